"""Table rows are compared by what they are (their name), not by their position: the variant
report's metrics, ``balance diff``/``check`` and ``balance rules check`` after a variant merges,
removes, renames or reorders rows. Expected values are computed here by calling the engines
on the named row directly; each test failed while rows were matched by position."""
from __future__ import annotations

import json
import math

import pytest
from cli_run import in_process
from hypothesis import given, strategies as st

import balance as bl
from balance.core import treatment
from balance.errors import RulesError
from balance.regression import snapshot
from balance.regression.rows import RowRemoved, row
from balance.regression.validate import digest
from balance.report import compare
from balance.report.data import rule_changes
from balance.rules.tables import matched_rows, moved_rows, nested

RULES = bl.load_rules()
BLEEDING = "treatment.days_to_cure@C12,Bleeding"
WEAK = "treatment.chance@C12,Weak,light"


def _rows(table="injuries.table"):
    return [dict(r) for r in RULES.get(table)]


def _with(table, rows):
    return RULES.updated(nested(table, rows), source="test variant")


def merged_first_two():
    """Dazed (1-10) and Feeble (11-20) merged into Dazed (1-20): Feeble removed."""
    rows = _rows()
    rows[0]["high"] = 20
    del rows[1]
    return _with("injuries.table", rows)


def bleeding_removed():
    """Coma (136-140) and Bleeding (141-150) merged into Coma (136-150)."""
    rows = _rows()
    rows[26]["high"] = 150
    del rows[27]
    return _with("injuries.table", rows)


def bleeding_renamed(*, merge=False):
    rows = _rows()
    rows[27].update(en="Haemorrhage", fr="Hémorragie")
    if merge:
        rows[0]["high"] = 20
        del rows[1]
    return _with("injuries.table", rows)


def days(rules, injury):
    """Expected days of full treatment at Cunning 12, straight from the engine."""
    return float(treatment.expected_cure_minutes(12, injury, "full", rules=rules)) / 1440


def frame(variant, only="treatment.*"):
    return bl.regression.compare(None, variant, only=only).set_index("metric")


def changes(variant):
    return [tuple(r) for r in rule_changes(variant).itertuples(index=False)]


# --- the metrics ----------------------------------------------------------------------------
def test_a_merged_row_leaves_bleeding_unchanged():
    variant = merged_first_two()
    row_of = frame(variant).loc[BLEEDING]
    expected = days(variant, "Bleeding")
    assert math.isfinite(expected) and expected == pytest.approx(days(RULES, "Bleeding"))
    assert (row_of["base"], row_of["variant"]) == pytest.approx((days(RULES, "Bleeding"),
                                                                 expected))
    assert not row_of["moved"]
    # Weak (row 6, now row 5) keeps its own modifier, -5
    assert frame(variant).loc[WEAK, "variant"] == pytest.approx(
        float(treatment.treatment_chance(12, "Weak", "light", rules=variant)))


def test_a_removed_row_is_never_measured_on_another():
    variant = bleeding_removed()
    with pytest.raises(RowRemoved, match="'Bleeding'"):
        row(variant, "injuries.table", "Bleeding", BLEEDING)
    gone = frame(variant).loc[BLEEDING]
    # the base side is the engine's answer for Bleeding; the variant side is not measured
    assert gone["base"] == pytest.approx(days(RULES, "Bleeding"))
    assert math.isnan(gone["variant"]) and math.isnan(gone["change"])
    assert gone["moved"] and gone["unmeasured"] == "variant: no injuries.table row 'Bleeding'"
    # what slid into its place (The end is near, -15) would take inf days
    assert days(variant, variant["injuries"]["table"][27]["en"]) == math.inf


def test_the_other_metrics_compare_as_if_the_gone_one_was_not_asked_for():
    variant = bleeding_removed()
    both = frame(variant, only="treatment.*").drop(index=BLEEDING)
    alone = frame(variant, only=list(both.index))
    assert (both["unmeasured"] == "").all()
    cols = ["base", "variant", "change", "moved"]
    assert both[cols].to_dict() == alone[cols].to_dict()
    assert both.loc[WEAK, "variant"] == pytest.approx(
        float(treatment.treatment_chance(12, "Weak", "light", rules=variant)))


def test_a_metric_neither_side_can_measure_has_not_moved():
    variant = bleeding_removed()
    gone = bl.regression.compare(variant, variant, only="treatment.*").set_index("metric")
    assert not gone["moved"].any()
    assert gone.loc[BLEEDING, "unmeasured"] == "both sides: no injuries.table row 'Bleeding'"


def test_a_removed_row_is_one_line_in_diff_and_check(tmp_path):
    path = tmp_path / "v.toml"
    bleeding_removed().save(path)
    code, out, err = in_process("diff", "bundled", str(path), "--only", "treatment.*")
    assert (code, err) == (1, ""), (code, out, err)
    line = [x for x in out.splitlines() if x.startswith(BLEEDING)]
    assert len(line) == 1 and "GONE: variant: no injuries.table row 'Bleeding'" in line[0]
    assert "inf" not in out and "nan" not in out
    assert out.splitlines()[-1] == ("1 of 3 metrics moved beyond their tolerance (1 not measured "
                                    "on a side whose rules cannot: see their status)")
    base = tmp_path / "base.json"
    assert in_process("snapshot", "--out", str(base), "--only", "treatment.*")[0] == 0
    code, out, err = in_process("check", "--baseline", str(base), "--rules", str(path))
    assert (code, err) == (1, "") and f"{BLEEDING}" in out and "GONE" in out, (code, out, err)
    assert in_process("check", "--baseline", str(base))[0] == 0


def test_the_diff_files_say_which_row_is_gone(tmp_path):
    path = tmp_path / "v.toml"
    bleeding_removed().save(path)
    csv, html = tmp_path / "d.csv", tmp_path / "d.html"
    code, out, err = in_process("diff", "bundled", str(path), "--only", "treatment.*",
                                "--csv", str(csv), "--html", str(html))
    assert code == 1, err
    import pandas as pd
    table = pd.read_csv(csv, keep_default_na=False).set_index("metric")
    assert table.loc[BLEEDING, "unmeasured"] == "variant: no injuries.table row 'Bleeding'"
    assert table.loc[BLEEDING, "variant"] == "" and table.loc[WEAK, "unmeasured"] == ""
    page = html.read_text(encoding="utf-8")
    assert "not measured" in page and "nan" not in page
    assert "(not measured: variant: no injuries.table row &#x27;Bleeding&#x27;)" in page, page


def test_the_report_says_the_row_is_missing_and_compares_the_rest():
    variant = bleeding_removed()
    result = compare.compare_rules(variant, RULES, trials=200, seed=1)
    assert result["unmatched"] == [{"metric": BLEEDING, "side": "variant",
                                    "table": "injuries.table", "row": "Bleeding", "what": None}]
    metrics = result["frame"].set_index("metric")
    assert BLEEDING not in metrics.index
    assert metrics.loc[WEAK, "variant"] == pytest.approx(
        float(treatment.treatment_chance(12, "Weak", "light", rules=variant)))
    days_to_cure = result["frame"][result["frame"]["metric"].str.startswith("treatment.days")]
    assert all(math.isfinite(v) for v in days_to_cure["variant"]), days_to_cure


def test_the_report_text_names_the_missing_row():
    from balance.report.topics import changes as section
    from balance.report.topics._base import Context
    from balance.report.bundle import empty_bundle

    variant = bleeding_removed()
    settings = empty_bundle(variant, trials=200, seed=1, workers=1, topics=["changes"])[0].settings
    results = section.compute(variant, settings)
    rendered = section.render(results, Context(rules=variant, settings=settings, lang="en"))
    notes = " ".join(rendered.notes)
    assert "Not compared: " + BLEEDING in notes and "'Bleeding'" in notes
    assert "inf" not in " ".join(str(t.frame.to_dict()) for t in rendered.tables)


def test_a_renamed_row_in_place_is_followed():
    variant = bleeding_renamed()
    assert frame(variant).loc[BLEEDING, "variant"] == pytest.approx(days(variant, "Haemorrhage"))


def test_a_renamed_row_in_a_table_that_changed_length_is_removed_and_added():
    variant = bleeding_renamed(merge=True)
    with pytest.raises(RowRemoved, match="'Bleeding'"):
        row(variant, "injuries.table", "Bleeding", BLEEDING)
    keys = [(k, None if o is None else o["en"], None if n is None else n["en"])
            for k, o, n in changes(variant) if k.count(".") == 2]
    assert keys == [("injuries.table.2", "Feeble", None),
                    ("injuries.table.28", "Bleeding", None),
                    ("injuries.table.27", None, "Haemorrhage")]


def test_injury_rows_cannot_be_reordered():
    rows = _rows()
    rows[0], rows[1] = rows[1], rows[0]
    with pytest.raises(RulesError, match="injuries.table"):
        _with("injuries.table", rows)


def test_a_reordered_bestiary_moves_nothing():
    rows = _rows("bestiary.creatures")
    rows[0], rows[1] = rows[1], rows[0]                 # Dragon first, then Goblin
    variant = _with("bestiary.creatures", rows)
    diff = frame(variant, only="encounters.*")
    assert not diff["moved"].any(), diff[diff["moved"]]
    # one row moved, nothing else changed: the order is reported, not every cell
    assert changes(variant) in ([("bestiary.creatures.1", "row 2 (Dragon)", "row 1 (Dragon)")],
                                [("bestiary.creatures.2", "row 1 (Goblin)", "row 2 (Goblin)")])


def test_the_outcome_distribution_is_matched_by_name():
    # as many rows as bundled, other names: Dazed and Feeble merged, Bleeding split in two
    rows = _rows()
    rows[0]["high"] = 20
    del rows[1]
    rows[26]["high"] = 145
    rows.insert(27, {"low": 146, "high": 150, "modifier": -10, "en": "Heavy bleeding",
                     "fr": "Saignement grave"})
    variant = _with("injuries.table", rows)
    assert len(rows) == len(_rows())
    diff = bl.regression.compare(None, variant, only="injuries.outcomes@60s,5hp,0w").iloc[0]
    # totals 66-165 (k = 65): Bleeding keeps 141-145 (5 of 100), Heavy bleeding takes 146-150;
    # every other category is unchanged (Dazed and Feeble are out of reach)
    assert diff["category"] in ("Bleeding", "Heavy bleeding", "Coma"), diff["category"]
    assert abs(diff["change"]) == pytest.approx(0.05)


# --- rules check ----------------------------------------------------------------------------
def test_rules_check_of_a_merge_lists_the_two_changes(tmp_path):
    path = tmp_path / "v.toml"
    merged_first_two().save(path)
    code, out, err = in_process("rules", "check", str(path), "--format", "json")
    assert (code, err) == (0, "")
    got = [(r["key"], r["bundled"], r["variant"]) for r in json.loads(out)]
    assert got == [("injuries.table.1.high", "10", "20"),
                   ("injuries.table.2", "low 11 · high 20 · modifier 0 · en Feeble · fr Fragile",
                    "—")]


def test_rules_check_of_a_removed_row_keeps_the_others_unchanged():
    assert changes(bleeding_removed()) == [
        ("injuries.table.27.high", 140, 150),
        ("injuries.table.28", _rows()[27], None)]


def test_rules_check_of_a_renamed_row_is_its_name_cells():
    assert changes(bleeding_renamed()) == [("injuries.table.28.en", "Bleeding", "Haemorrhage"),
                                           ("injuries.table.28.fr", "Saignement", "Hémorragie")]


def test_tables_without_names_stay_positional():
    rows = _rows("economy.dice_values")[:2]
    assert changes(_with("economy.dice_values", rows)) == [
        (f"economy.dice_values.{i + 1}", r, None) for i, r in enumerate(_rows(
            "economy.dice_values")) if i >= 2]


# --- matching ---------------------------------------------------------------------------------
@given(st.lists(st.integers(0, 30), unique=True, max_size=12), st.randoms(use_true_random=False))
def test_matched_rows_only_pairs_equal_names_or_renames_in_place(names, rnd):
    old = [f"r{n}" for n in names]
    new = [n if rnd.random() < 0.7 else f"{n}'" for n in old if rnd.random() < 0.8]
    if rnd.random() < 0.3:
        rnd.shuffle(new)
    pairs = matched_rows(old, new)
    assert len(set(pairs.values())) == len(pairs)
    for i, j in pairs.items():
        assert old[i] == new[j] or (len(old) == len(new) and i == j and old[i] not in new
                                    and new[j] not in old)
    assert all(i in pairs for i, n in enumerate(old) if n in new)
    assert moved_rows(pairs) <= set(pairs)
    kept = sorted(pairs[i] for i in set(pairs) - moved_rows(pairs))
    assert kept == [pairs[i] for i in sorted(set(pairs) - moved_rows(pairs))]  # in order


# --- baselines --------------------------------------------------------------------------------
def _as_version_one(path, fingerprint=None):
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["schema_version"] = 1
    if fingerprint is not None:
        doc["rules"]["fingerprint"] = fingerprint
    doc["sha256"] = digest(doc)
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_a_version_one_baseline_of_the_bundled_rules_still_reads(tmp_path):
    path = tmp_path / "old.json"
    snapshot.write(snapshot.take(only=["treatment.*"]), path)
    old = snapshot.read(_as_version_one(path))
    assert old.measurements[BLEEDING].value == pytest.approx(days(RULES, "Bleeding"))
    code, out, err = in_process("check", "--baseline", str(path))
    assert code == 0 and "nothing moved" in out, (code, out, err)


def test_a_version_one_baseline_of_other_rules_is_refused_in_one_line(tmp_path):
    path = tmp_path / "old.json"
    variant = merged_first_two()
    snapshot.write(snapshot.take(variant, only=["treatment.*"]), path)
    _as_version_one(path)
    with pytest.raises(snapshot.SnapshotError, match="schema version 1") as err:
        snapshot.read(path)
    assert "\n" not in str(err.value) and "balance snapshot --force" in str(err.value)
    code, out, err_text = in_process("check", "--baseline", str(path))
    assert code == 2 and err_text.count("\n") == 1 and "schema version 1" in err_text


def test_the_pinned_baseline_is_version_two():
    from pathlib import Path

    doc = json.loads((Path(__file__).parent / "baselines" / "bundled.json").read_text("utf-8"))
    assert doc["schema_version"] == snapshot.SCHEMA_VERSION == 2
