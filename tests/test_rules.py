"""Rules as data: loading, variants, fingerprint, assumptions, and one test per kind of broken file."""
import json
import re

import pytest

import balance as bl
from balance.rules import bundled_variants


@pytest.fixture
def write(tmp_path):
    def _write(text, name="variant.toml"):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path
    return _write


def test_defaults_hold_the_documents_numbers():
    rules = bl.load_rules()
    assert rules["injuries"]["death_threshold"] == 176
    assert rules["injuries"]["automatic_death_seconds"] == 175
    assert rules.get("injuries.die") == 100
    table = rules["injuries"]["table"]
    assert len(table) == 29
    assert (table[0]["low"], table[-1]["high"]) == (1, 175)
    assert {"gm_guide.toml", "percentile.toml"} <= {rules.source_of(s) for s in rules} | {
        "gm_guide.toml", "percentile.toml"}


def test_variant_file_changes_only_what_it_names(write):
    base = bl.load_rules()
    path = write("[injuries]\ndeath_threshold = 180\n")
    variant = bl.load_rules(path)
    assert variant["injuries"]["death_threshold"] == 180
    changed = {k for k in base if base[k] != variant[k]}
    assert changed == {"injuries"}
    a, b = base.to_dict()["injuries"], variant.to_dict()["injuries"]
    assert {k for k in a if a[k] != b[k]} == {"death_threshold"}
    assert variant.fingerprint != base.fingerprint
    assert variant == base.updated({"injuries": {"death_threshold": 180}})


def test_automatic_death_seconds_variant(write):
    variant = bl.load_rules(write("[injuries]\nautomatic_death_seconds = 120\n"))
    assert variant["injuries"]["automatic_death_seconds"] == 120
    assert bl.injuries.death_probability(seconds=120, negative_hp=1, wounds=0, rules=variant) == 1
    assert bl.injuries.death_probability(seconds=119, negative_hp=1, wounds=0, rules=variant) < 1


def test_fingerprint_is_stable_and_order_free():
    base = bl.load_rules()
    one = base.updated({"injuries": {"death_threshold": 180, "automatic_death_seconds": 170}})
    two = base.updated({"injuries": {"automatic_death_seconds": 170, "death_threshold": 180}})
    assert one.fingerprint == two.fingerprint
    assert re.fullmatch(r"[0-9a-f]{12}", base.fingerprint)
    assert base.updated({}).fingerprint == base.fingerprint


def test_rules_are_frozen():
    rules = bl.load_rules()
    with pytest.raises(TypeError):
        rules["injuries"]["death_threshold"] = 1
    with pytest.raises(TypeError):
        rules["injuries"]["table"][0]["low"] = 3


def test_assumptions_list_assumed_values_and_drop_overridden_ones():
    rules = bl.load_rules()
    keys = set(rules.assumptions["key"])
    assert "injuries.hp_loss_per_second" in keys
    row = rules.assumptions.set_index("key").loc["injuries.hp_loss_per_second"]
    assert row["value"] == 0
    mine = rules.updated({"injuries": {"hp_loss_per_second": 1}})
    assert "injuries.hp_loss_per_second" not in set(mine.assumptions["key"])


def test_bundled_variants_load():
    for name in bundled_variants():
        assert bl.load_rules(name).fingerprint != bl.load_rules().fingerprint


# -- one test per kind of broken rules file: message names file, table and row ---------------

def _table_text(mutate):
    rows = bl.load_rules().to_dict()["injuries"]["table"]
    mutate(rows)
    body = ",\n".join("{ " + ", ".join(f"{k} = {json.dumps(v, ensure_ascii=False)}"
                                        for k, v in r.items()) + " }" for r in rows)
    return "[injuries]\ntable = [\n" + body + "\n]\n"


def _refused(path, *fragments):
    with pytest.raises(bl.RulesError) as info:
        bl.load_rules(path)
    message = str(info.value)
    assert "\n" not in message
    assert path.name in message
    for fragment in fragments:
        assert fragment in message, message
    return message


def test_gap_is_refused(write):
    path = write(_table_text(lambda rows: rows[3].update(low=32)))
    _refused(path, "injuries.table", "row 4 (Tired)", "gap")


def test_overlap_is_refused(write):
    path = write(_table_text(lambda rows: rows[5].update(low=50)))
    _refused(path, "injuries.table", "row 6 (Weak)", "overlap")


def test_reversed_interval_is_refused(write):
    def mutate(rows):
        rows[19].update(low=117, high=116)
    _refused(write(_table_text(mutate)), "injuries.table", "row 20 (Amputated (Left Leg))",
             "reversed")


def test_wrong_start_is_refused(write):
    _refused(write(_table_text(lambda rows: rows[0].update(low=2))), "injuries.table", "row 1",
             "start at 1")


def test_wrong_type_is_refused(write):
    _refused(write('[injuries]\ndeath_threshold = "high"\n'), "injuries.death_threshold",
             "integer")
    _refused(write(_table_text(lambda rows: rows[2].update(modifier="bad"))),
             "injuries.table", "row 3 (Exhausted)", "modifier")


def test_unknown_key_is_refused_with_did_you_mean(write):
    message = _refused(write("[injuries]\ndeath_treshold = 180\n"), "[injuries]",
                       "death_treshold")
    assert "did you mean 'death_threshold'" in message
    message = _refused(write("[injuris]\ndie = 100\n"), "injuris")
    assert "did you mean 'injuries'" in message
    _refused(write(_table_text(lambda rows: rows[0].update(modifer=1))), "row 1 (Dazed)",
             "did you mean 'modifier'")


def test_out_of_range_value_is_refused(write):
    _refused(write("[injuries]\ndeath_threshold = -5\n"), "injuries.death_threshold",
             "out of range")
    _refused(write(_table_text(lambda rows: rows[4].update(modifier=-500))), "injuries.table",
             "row 5 (Broken)", "out of range")


def test_bad_toml_and_missing_file_are_refused(write, tmp_path):
    _refused(write("[injuries\n"), "not valid TOML")
    with pytest.raises(bl.RulesError, match="no such rules file"):
        bl.load_rules(tmp_path / "nope.toml")


def test_limits_cannot_be_overridden(write):
    _refused(write('[limits]\n"injuries.die" = [1, 2]\n'), "[limits]")


def test_in_memory_variant_errors_name_the_source():
    with pytest.raises(bl.RulesError, match=r"^<updated>: \[injuries\]: unknown key"):
        bl.load_rules().updated({"injuries": {"deth": 1}})
