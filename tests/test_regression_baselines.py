"""Baselines validated as strictly as rules (issue 11, items 2, 3, 6 and 7).

A damaged baseline (NaN or out-of-range values, counts that do not fit their trials, negative
variances, strings or fractions for integers, unknown metrics, a damaged ``curves`` block, a
file nested 100,000 deep or too large) exits 2 with one line naming the file, the metric and
the field; ``--alpha`` outside (0, 1) is refused; and renaming a table row in a variant
compares instead of failing. One baseline of the whole catalogue (2,000 trials) is built once.
"""
import json
import math
import subprocess
import sys

import pytest
from cli_run import in_process
from strategies import toml_value
from hypothesis import HealthCheck, given, settings, strategies as st

import balance as bl
from balance.regression import snapshot

TRIALS = ["--trials", "2000"]
PROB = "death.p@40s,6hp,1w"          # an exact proportion
PRICE = "negotiation.price@200NX"     # an exact scalar in NX
DAYS = "treatment.days_to_cure@C12,Weak"
MC_P = "mc.death@60s,10hp,1w"         # Monte Carlo proportion
MC_D = "campaign.wounds@10fights"     # Monte Carlo distribution (a partition of its trials)
MC_M = "duel.rounds@70v50"            # Monte Carlo mean
EXACT_D = "negotiation.outcomes@psy12,ask20"


cli = in_process  # balance ARGV... in this process: (exit code, stdout, stderr)


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    path = tmp_path_factory.mktemp("baselines") / "baseline.json"
    code, _, err = cli("snapshot", "--out", path, *TRIALS, "--seed", "3")
    assert code == 0, err
    return path


@pytest.fixture(scope="module")
def doc(base):
    return json.loads(base.read_text())


def damaged(doc, tmp_path, change, name="baseline.json", keep_digest=False):
    """A copy of ``doc`` changed by ``change(d)``, written (NaN allowed) to ``tmp_path/name``.

    The content digest is dropped unless ``keep_digest`` (an old-format file has none), so the
    field checks themselves are what refuses the file.
    """
    d = json.loads(json.dumps(doc))
    if not keep_digest:
        d.pop("sha256", None)
    change(d)
    path = tmp_path / name
    path.write_text(json.dumps(d, indent=1))
    return path


def refused(path, *fragments, command=None):
    """``balance check --baseline path`` (or ``command``) exits 2 with one line holding
    every fragment."""
    code, out, err = cli(*(command or ("check", "--baseline", path)))
    assert code == 2, (out, err)
    assert err.count("\n") == 1 and "Traceback" not in err and out == "", err
    for f in fragments:
        assert f in err, err
    return err


def metric(name, field, value):
    def change(d):
        d["metrics"][name][field] = value
    return change


# ---------------------------------------------------------------------------- corruptions

CORRUPTIONS = {
    "nan value": (metric(PROB, "value", math.nan), [f"metric '{PROB}'", "value", "got NaN"]),
    "nan string": (metric(PROB, "value", "nan"), [f"metric '{PROB}'", "value"]),
    "infinite probability": (metric(PROB, "value", math.inf), [f"metric '{PROB}'", "value"]),
    "probability 5": (metric(PROB, "value", 5.0),
                      [f"metric '{PROB}': value must be a probability in [0, 1], got 5.0"]),
    "negative probability": (metric(PROB, "value", -0.1), [f"metric '{PROB}'", "value"]),
    "nan price": (metric(PRICE, "value", math.nan), [f"metric '{PRICE}'", "value"]),
    "infinite price literal": (metric(PRICE, "value", -math.inf), [f"metric '{PRICE}'"]),
    "bool value": (metric(PRICE, "value", True), [f"metric '{PRICE}'", "value"]),
    "string value": (metric(PRICE, "value", "191.4"), [f"metric '{PRICE}'", "value"]),
    "trials as string": (lambda d: d.update(trials="20000"), ["trials", "'20000'"]),
    "trials fraction": (lambda d: d.update(trials=20000.7), ["trials", "20000.7"]),
    "trials whole float": (lambda d: d.update(trials=2000.0), ["trials", "2000.0"]),
    "trials bool": (lambda d: d.update(trials=True), ["trials", "True"]),
    "trials zero": (lambda d: d.update(trials=0), ["trials"]),
    "seed fraction": (lambda d: d.update(seed=7.9), ["seed", "7.9"]),
    "seed negative": (lambda d: d.update(seed=-1), ["seed"]),
    "metric trials as string": (metric(MC_P, "trials", "2000"), [f"metric '{MC_P}'", "trials"]),
    "metric trials other than the run": (metric(MC_P, "trials", 20000),
                                         [f"metric '{MC_P}'", "trials"]),
    "counts above trials": (metric(MC_P, "counts", [2001]), [f"metric '{MC_P}'", "counts"]),
    "negative count": (metric(MC_P, "counts", [-1]), [f"metric '{MC_P}'", "counts"]),
    "fractional count": (metric(MC_P, "counts", [1315.5]), [f"metric '{MC_P}'", "counts"]),
    "value not the counts' share": (metric(MC_P, "value", 0.9), [f"metric '{MC_P}'", "value"]),
    "nan interval": (metric(MC_P, "interval", [math.nan, 0.7]),
                     [f"metric '{MC_P}'", "interval"]),
    "distribution counts beyond trials": (
        lambda d: d["metrics"][MC_D]["counts"].__setitem__(0, 10**6),
        [f"metric '{MC_D}'", "counts"]),
    "distribution counts short of trials": (
        lambda d: d["metrics"][MC_D]["counts"].__setitem__(0, 0), [f"metric '{MC_D}'", "counts"]),
    "distribution values above 1": (
        lambda d: d["metrics"][EXACT_D]["value"].__setitem__(0, 3.0),
        [f"metric '{EXACT_D}'", "value"]),
    "distribution not summing to 1": (
        lambda d: d["metrics"][EXACT_D].update(value=[0.1, 0.1, 0.1]),
        [f"metric '{EXACT_D}'", "value"]),
    "labels not strings": (lambda d: d["metrics"][EXACT_D].update(labels=[1, 2, 3]),
                           [f"metric '{EXACT_D}'", "labels"]),
    "duplicate labels": (lambda d: d["metrics"][EXACT_D].update(labels=["a", "a", "b"]),
                         [f"metric '{EXACT_D}'", "labels"]),
    "negative variance": (lambda d: d["metrics"][MC_M]["sums"].__setitem__(1, 1.0),
                          [f"metric '{MC_M}'", "sums", "variance"]),
    "nan sums": (lambda d: d["metrics"][MC_M]["sums"].__setitem__(0, math.nan),
                 [f"metric '{MC_M}'", "sums"]),
    "unknown metric": (lambda d: d["metrics"].update({"death.p@1s": d["metrics"][PROB]}),
                       ["metric 'death.p@1s'", "not a metric of this balance"]),
    "kind flipped": (metric(PROB, "kind", "mc"), [f"metric '{PROB}'", "kind"]),
    "unknown kind": (metric(PROB, "kind", "guess"), [f"metric '{PROB}'", "kind"]),
    "unit changed": (metric(PROB, "unit", "NX"), [f"metric '{PROB}'", "unit"]),
    "exact metric with counts": (metric(PROB, "counts", [3]), [f"metric '{PROB}'", "counts"]),
    "unknown field": (metric(PROB, "valeur", 0.17), [f"metric '{PROB}'", "valeur"]),
    "negative tolerance": (metric(PROB, "tolerance", -1), [f"metric '{PROB}'", "tolerance"]),
    "nan tolerance": (metric(PROB, "tolerance", math.nan), [f"metric '{PROB}'", "tolerance"]),
    "metrics not a table": (lambda d: d.update(metrics=[]), ["metrics"]),
    "entry not a table": (lambda d: d["metrics"].update({PROB: 0.17}), [f"metric '{PROB}'"]),
    "sources not strings": (lambda d: d["rules"].update(sources=[1]), ["rules", "sources"]),
    "control character in a label": (
        lambda d: d["metrics"][EXACT_D]["labels"].__setitem__(0, "un\x1b[31mchanged"),
        [f"metric '{EXACT_D}'", "labels", "printable"]),
    "only matching nothing": (lambda d: d.update(only=["nope.*"]), ["only", "'nope.*'"]),
    "schema version true": (lambda d: d.update(schema_version=True), ["schema version"]),
}


@pytest.mark.parametrize("case", sorted(CORRUPTIONS))
def test_each_corruption_exits_2_naming_file_metric_and_field(doc, tmp_path, case):
    change, fragments = CORRUPTIONS[case]
    path = damaged(doc, tmp_path, change)
    err = refused(path, str(path), *fragments)
    assert err.startswith(f"balance: error: {path}: ")


def test_clean_baseline_reads_and_checks(base):
    code, out, err = cli("check", "--baseline", base)
    assert code == 0 and "nothing moved" in out, err


def test_every_exact_value_nan_no_longer_hides_real_changes(doc, base, tmp_path):
    """The issue's case: with every exact value NaN, `check` against a variant exited 0."""
    code, out, _ = cli("check", "--baseline", base, "--rules", "death_threshold_180")
    moved = [x for x in out.splitlines() if x.endswith("MOVED")]
    assert code == 1 and len(moved) >= 7

    def all_nan(d):
        for entry in d["metrics"].values():
            if entry["kind"] == "exact" and entry["shape"] != "distribution":
                entry["value"] = math.nan
    path = damaged(doc, tmp_path, all_nan)
    code, out, err = cli("check", "--baseline", path, "--rules", "death_threshold_180")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "metric 'death.p@30s,5hp,0w': value" in err


def test_damaged_curves_block_refused_before_diff_html(doc, base, tmp_path):
    cases = {
        "string": lambda d: d["curves"]["death_probability"]["wounds"].update({"1": "oops"}),
        "short": lambda d: d["curves"]["death_probability"]["wounds"]["1"].pop(),
        "nulls": lambda d: d["curves"]["death_probability"]["wounds"].update(
            {"1": [None] * len(d["curves"]["death_probability"]["seconds"])}),
        "above 1": lambda d: d["curves"]["death_probability"]["wounds"]["2"].__setitem__(3, 7.0),
        "bad wound key": lambda d: d["curves"]["death_probability"]["wounds"].update(
            {"x": [0.0] * len(d["curves"]["death_probability"]["seconds"])}),
        "seconds": lambda d: d["curves"]["death_probability"].update(seconds="abc"),
        "hp": lambda d: d["curves"]["death_probability"].update(negative_hp=[5]),
        "not a table": lambda d: d.update(curves=[1, 2]),
    }
    html = tmp_path / "diff.html"
    for case, change in cases.items():
        path = damaged(doc, tmp_path, change, name=f"curves_{case.replace(' ', '_')}.json")
        refused(path, str(path), "curves", command=("diff", base, path, "--html", html))
        assert not html.exists()


def test_json_nested_100000_deep_is_one_line(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    refused(path, str(path), "nested deeper than")
    path.write_text('{"schema": ' + "[" * 100_000)     # deep and truncated
    refused(path, str(path), "nested deeper than")


def test_file_over_the_size_limit_is_refused_before_reading(tmp_path):
    path = tmp_path / "huge.json"
    with open(path, "wb") as handle:                   # sparse: no disk used
        handle.truncate(snapshot.MAX_BYTES + 1)
    refused(path, str(path), "larger than the 32 MiB")


def test_largest_hostile_file_under_a_memory_limit(tmp_path):
    """32 MiB of opening brackets (the size limit, nested 33 million deep), in a real process
    limited to 1.5 GiB of address space: one line, exit 2, well within the timeout."""
    resource = pytest.importorskip("resource")
    path = tmp_path / "open.json"
    path.write_bytes(b"[" * snapshot.MAX_BYTES)

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (1536 * 2**20,) * 2)
    proc = subprocess.run([sys.executable, "-m", "balance", "check", "--baseline", str(path)],
                          capture_output=True, text=True, preexec_fn=limit, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == f"balance: error: {path}: not a snapshot (brackets nested deeper " \
                          "than 32 levels)\n"


def test_duplicate_keys_and_huge_integers(doc, base, tmp_path):
    text = base.read_text()
    dup = tmp_path / "dup.json"
    dup.write_text(text.replace('"trials": 2000,', '"trials": 2000, "trials": 2000,', 1))
    refused(dup, str(dup), "'trials' appears twice")
    big = tmp_path / "big.json"
    big.write_text(text.replace('"seed": 3,', '"seed": ' + "9" * 5000 + ",", 1))
    refused(big, str(big), "seed")


def test_content_digest_catches_an_edit_that_stays_valid(doc, base, tmp_path):
    assert len(doc["sha256"]) == 64
    path = damaged(doc, tmp_path, metric(PROB, "value", 0.5), keep_digest=True)
    refused(path, str(path), "sha256", "edited or damaged")
    same = damaged(doc, tmp_path, metric(PROB, "value", 0.17), name="same.json",
                   keep_digest=True)
    assert snapshot.read(same).measurements[PROB].value == 0.17
    old = damaged(doc, tmp_path, lambda d: None, name="old.json")   # no digest: still read
    assert "sha256" not in json.loads(old.read_text())
    assert snapshot.read(old).measurements[PROB].value == 0.17


def test_infinite_days_still_read_back(tmp_path):
    hopeless = bl.load_rules().updated({"treatment": {"full": {"bonus": -20}}})
    snap = snapshot.take(hopeless, trials=200, only=["treatment.*"])
    path = snapshot.write(snap, tmp_path / "inf.json")
    assert snapshot.read(path).measurements[DAYS].value == math.inf


# ---------------------------------------------------------------------------- --alpha

@pytest.mark.parametrize("alpha", ["2", "nan", "-1", "0", "1", "inf", "x"])
def test_alpha_outside_0_1_is_refused_everywhere(base, alpha):
    for argv in (("diff", base, base, "--alpha", alpha),
                 ("check", "--baseline", base, "--alpha", alpha)):
        code, out, err = cli(*argv)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert "--alpha" in err and "between 0 and 1" in err
    snap = snapshot.read(base)
    for call in (lambda a: bl.regression.compare_snapshots(snap, snap, alpha=a),
                 lambda a: bl.regression.check(snap, alpha=a),
                 lambda a: bl.regression.compare(snap, snap, alpha=a)):
        with pytest.raises(ValueError, match="alpha must be a number strictly between 0 and 1"):
            call(float(alpha) if alpha != "x" else alpha)


def test_alpha_inside_is_accepted(base):
    assert cli("diff", base, base, "--alpha", "0.5")[0] == 0


# ---------------------------------------------------------------------------- renamed rows

def _variant(path, rules, renames):
    """A variant file replacing whole tables, with some rows' English names changed."""
    text = ""
    for (section, table), names in renames.items():
        rows = [dict(dict(r), en=names.get(r["en"], r["en"])) for r in rules[section][table]]
        text += f"[{section}]\n{table} = [\n" + ",\n".join(map(toml_value, rows)) + "\n]\n"
    path.write_text(text, encoding="utf-8")
    return path


def test_renamed_rows_compare_instead_of_failing(base, tmp_path):
    rules = bl.load_rules()
    renamed = _variant(tmp_path / "renamed.toml", rules, {
        ("injuries", "table"): {"Weak": "Weakened", "Bleeding": "Haemorrhage"},
        ("bestiary", "creatures"): {"Goblin": "Gobbo"}})
    assert bl.load_rules(renamed).get("injuries.table")[5]["en"] == "Weakened"   # a valid variant
    code, out, err = cli("check", "--baseline", base, "--rules", renamed)
    assert code == 0 and "nothing moved" in out, (out, err)
    code, out, err = cli("diff", base, renamed, "--crn", "--seed", "3", *TRIALS)
    assert code == 0 and "nothing moved" in out, (out, err)


def test_renamed_row_that_also_changed_is_reported(base, tmp_path):
    rules = bl.load_rules()
    rows = [dict(r, en="Weakened", modifier=-10) if r["en"] == "Weak" else dict(r)
            for r in rules["injuries"]["table"]]
    variant = rules.updated({"injuries": {"table": rows}})
    frame = bl.regression.check(base, variant).set_index("metric")
    # Cunning 12, light treatment (+2): clip(12 + 2 - 10, 0, 20) / 20 = 0.2, was 14 - 5 -> 0.45
    row = frame.loc["treatment.chance@C12,Weak,light"]
    assert (row["base"], row["variant"], bool(row["moved"])) == (0.45, 0.2, True)
    outcomes = frame.loc["injuries.outcomes@60s,5hp,0w"]
    assert not outcomes["moved"]          # renamed, same interval: same outcome distribution


def test_a_table_too_short_for_a_metric_says_so_in_its_rows(base):
    rules = bl.load_rules()
    rows = [dict(r) for r in rules["bestiary"]["creatures"]][:1]
    frame = bl.regression.check(base, rules.updated({"bestiary": {"creatures": rows}}))
    gone = frame[frame["unmeasured"] != ""].set_index("metric")
    # every metric of an encounter with a creature other than the Goblin, and nothing else;
    # each names the first creature it reads that is gone
    expected = {m: f"variant: no bestiary.creatures row {'Dragon' if 'dragon' in m else 'Troll'!r}"
                for m in frame["metric"] if "dragon" in m or "troll" in m}
    assert gone["unmeasured"].to_dict() == expected
    assert gone["moved"].all() and gone["variant"].isna().all()


# ---------------------------------------------------------------------------- fuzz

# Hostile replacements, each invalid wherever it lands in the fuzz below (every field it can
# replace is a number, an integer, a probability, a list or a known name).
INVALID = [math.nan, math.inf, -math.inf, "nan", "20000", 20000.7, 7.9, True, False, None, -1,
           -0.5, 5.0, 10**30, [], {}, [math.nan], "", "oops", [[1]], {"a": 1}]
FIELDS = ["value", "trials", "counts", "sums", "interval", "kind", "shape", "unit", "labels",
          "tolerance", "seed"]


def _leaves(node, path=()):
    """Every (path, value) of a JSON tree whose value is a number (not the digest)."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _leaves(v, path + (i,))
    elif isinstance(node, (int, float)) and not isinstance(node, bool):
        yield path, node


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


def _one_line_or_valid(base, path, must_fail):
    code, out, err = cli("diff", base, path)
    assert "Traceback" not in err
    if code == 2:
        assert err.count("\n") == 1 and err.startswith(f"balance: error: {path}: "), err
    else:
        assert not must_fail, (code, out)
        assert code in (0, 1) and "metrics" in out
    return code


@settings(derandomize=True, max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_field_corruptions(doc, base, fuzz_dir, data):
    """Replace one field of one metric (or the file's trials/seed) by a hostile value."""
    d = json.loads(json.dumps(doc))
    d.pop("sha256")
    names = sorted(d["metrics"])
    name = data.draw(st.sampled_from(names + ["(file)"]), label="metric")
    bad = data.draw(st.sampled_from(INVALID), label="value")
    if name == "(file)":
        field = data.draw(st.sampled_from(["trials", "seed"]), label="field")
        d[field] = -1 if (field, bad) == ("seed", 10**30) else bad   # a big seed is valid
    else:
        entry = d["metrics"][name]
        present = [f for f in FIELDS if f in entry]
        field = data.draw(st.sampled_from(present), label="field")
        number = isinstance(bad, (int, float)) and not isinstance(bad, bool)
        exact_number = entry["kind"] == "exact" and entry["unit"] != "probability"
        if number and ((field == "tolerance" and 0 <= bad < math.inf) or (
                field == "value" and exact_number and math.isfinite(bad))):
            bad = "oops"                           # a tolerance of 7.9, a price of 5 are valid
        entry[field] = bad
    path = fuzz_dir / "field.json"
    path.write_text(json.dumps(d))
    assert _one_line_or_valid(base, path, must_fail=True) == 2


@settings(derandomize=True, max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_number_corruptions(doc, base, fuzz_dir, data):
    """Change one number anywhere (digest removed): an invalid one is refused; a valid one is
    compared (exit 0 or 1); never a traceback."""
    d = json.loads(json.dumps(doc))
    d.pop("sha256")
    leaves = sorted(_leaves(d), key=repr)
    where, old = data.draw(st.sampled_from(leaves), label="leaf")
    new = data.draw(st.sampled_from([math.nan, math.inf, -1, 1.5, 0.5, old + 1, old * 2,
                                     "1", True, None]), label="new")
    node = d
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = new
    path = fuzz_dir / "number.json"
    path.write_text(json.dumps(d))
    _one_line_or_valid(base, path, must_fail=_invalid_number(doc, where, new))


def _invalid_number(doc, where, new):
    """Whether putting ``new`` at ``where`` is a corruption by the snapshot format's own terms:
    not a finite number, a probability outside [0, 1], a fractional or negative count or
    trials."""
    if not isinstance(new, (int, float)) or isinstance(new, bool) or not math.isfinite(new):
        return True
    if where[0] in ("trials", "seed"):
        return new != int(new) or isinstance(new, float) or new < (where[0] == "trials")
    if where[0] == "metrics":
        entry = doc["metrics"][where[1]]
        if where[2] == "value" and entry["unit"] == "probability":
            return not 0 <= new <= 1
        if where[2] in ("counts", "trials"):
            return isinstance(new, float) or new < 0
    if where[0] == "curves" and where[2] == "wounds":
        return not 0 <= new <= 1
    return False


@settings(derandomize=True, max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_byte_corruptions(base, fuzz_dir, data):
    """Truncate, delete or overwrite bytes of the real file: with its digest, every change is
    refused with one line (exit 2), never compared."""
    raw = base.read_bytes()
    at = data.draw(st.integers(0, len(raw) - 1), label="at")
    how = data.draw(st.sampled_from(["truncate", "delete", "replace"]), label="how")
    byte = data.draw(st.sampled_from(b'0123456789.-e"{}[],: xN\xff'), label="byte")
    if how == "truncate":
        new = raw[:at]
    elif how == "delete":
        new = raw[:at] + raw[at + 1:]
    else:
        new = raw[:at] + bytes([byte]) + raw[at + 1:]
    path = fuzz_dir / "bytes.json"
    path.write_bytes(new)
    code = _one_line_or_valid(base, path, must_fail=False)
    assert code == 2 or json.loads(new) == json.loads(raw)
