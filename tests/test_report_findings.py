"""The report's key findings, its comparison of a variant with a baseline, its appendix and its
French: findings checked against exact answers computed here (the core rules' closed forms, the
negotiation by every die face, the injury table row by row), a variant's changes listed exactly,
no reference to files a reader does not have, no English left in the French report."""
from __future__ import annotations

import html as html_lib
import re
from fractions import Fraction

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

import balance as bl  # noqa: E402
from balance.report import compare, findings, readings  # noqa: E402
from balance.report.bundle import compute_bundle  # noqa: E402
from balance.report.html import render_html  # noqa: E402
from balance.report.markdown import heading_slug, render_markdown  # noqa: E402
from balance.report.sections import render_sections  # noqa: E402

TRIALS = 2_000
SEED = 11
#: a variant's report: the comparison, and what the threshold moves
VARIANT_TOPICS = ["changes", "death", "injuries", "rescue", "assumptions"]


@pytest.fixture(scope="module")
def bundles(default_report):
    """The bundled rules' report (every section: tests/conftest.py computes it once for the
    run, 2,000 trials, seed 7) and a variant's."""
    return {"bundled": default_report.bundle(),
            "variant": compute_bundle("death_threshold_180", trials=TRIALS, seed=SEED,
                                      topics=VARIANT_TOPICS)}


@pytest.fixture(scope="module")
def pages(bundles, default_report):
    """Every (rules, language) rendered to HTML and Markdown, with the sections."""
    out = {}
    for lang in ("en", "fr"):
        out["bundled", lang] = {"sections": default_report.sections(lang),
                                "html": default_report.html(lang),
                                "md": default_report.markdown(lang)}
        sections = render_sections(bundles["variant"], lang)
        meta = {"title": bl.labels.text("report_title", lang)}
        md, _ = render_markdown(sections, meta, lang)
        out["variant", lang] = {"sections": sections, "html": render_html(sections, meta, lang),
                                "md": md}
    return out


def facts_of(bundle) -> dict[str, list]:
    found: dict[str, list] = {}
    for fact in findings.facts(bundle):
        found.setdefault(fact.key, []).append(fact)
    return found


def death_exact(seconds: int, negative_hp: int, wounds: int, threshold: int) -> float:
    """The core rules' closed form: P(1d100 + (n+1)(d+npv) >= threshold), by counting faces."""
    k = (wounds + 1) * (seconds + negative_hp)
    return sum(1 for face in range(1, 101) if face + k >= threshold) / 100


# --- findings against exact answers -------------------------------------------------------------

@pytest.mark.parametrize("name, threshold", [("bundled", 176), ("variant", 180)])
def test_death_finding_is_the_closed_form(bundles, name, threshold):
    (fact,) = facts_of(bundles[name])["death"]
    v = fact.values
    assert (v["seconds"], v["negative_hp"]) == (findings.TYPICAL_SECONDS, findings.TYPICAL_HP)
    assert v["p0"] == death_exact(v["seconds"], v["negative_hp"], 0, threshold)
    assert v["p3"] == death_exact(v["seconds"], v["negative_hp"], 3, threshold)
    assert fact.section == "death"


def test_death_finding_moves_as_the_threshold_says(bundles):
    base = facts_of(bundles["bundled"])["death"][0].values
    variant = facts_of(bundles["variant"])["death"][0].values
    # 30 s at -5 HP with 3 wounds: k = 140; 1d100 + 140 >= 176 on 65 faces, >= 180 on 61
    assert (base["p3"], variant["p3"]) == (0.65, 0.61)


def test_rescue_finding_holds_the_exact_answer_in_its_interval(bundles):
    (fact,) = facts_of(bundles["bundled"])["rescue"]
    v = fact.values
    table = bundles["bundled"].results["rescue"]["scenario"].extra["death"]
    total = table[table["death"] == "total"].set_index("wounds")
    for w in (0, 3):
        assert v[f"p{w}"] == total.loc[w, "probability"]
        # seed 11, 2,000 trials: the 95 % interval covers the exact answer
        assert v[f"p{w}_low"] <= v[f"exact{w}"] <= v[f"p{w}_high"]


def test_injury_finding_names_every_severity_step(bundles):
    (fact,) = facts_of(bundles["bundled"])["injuries"]
    rows = bl.load_rules()["injuries"]["table"]
    steps = [(row["low"], before["modifier"], row["modifier"])
             for before, row in zip(rows, rows[1:]) if row["modifier"] != before["modifier"]]
    assert fact.values["steps"] == steps == [(51, 0, -5), (101, -5, -10), (151, -10, -15)]
    assert fact.values["threshold"] == 176
    assert facts_of(bundles["variant"])["injuries"][0].values["threshold"] == 180


def negotiation_by_faces(psychology: int, ask: int) -> Fraction:
    """Expected price change (%) of an ask, the core rules' negotiation by each d20 face."""
    total = Fraction(0)
    for die in range(1, 21):
        points = psychology - die
        if points < 0 or Fraction(points) < Fraction(ask, 4):
            change = 0
        elif Fraction(points) < Fraction(ask, 2):
            change = points
        else:
            change = ask
        total += Fraction(change, 20)
    return total


def test_negotiation_finding_is_the_best_ask_by_enumeration(bundles):
    (fact,) = facts_of(bundles["bundled"])["negotiation"]
    v = fact.values
    p = findings.NEGOTIATION_PSYCHOLOGY
    payoffs = {ask: negotiation_by_faces(p, ask) for ask in range(1, 101)}
    best = max(payoffs.values())
    assert v["ask"] == min(a for a, x in payoffs.items() if x == best) == 16
    assert Fraction(v["change"]).limit_denominator(1000) == best == Fraction(43, 10)


def test_calibration_finding_reads_the_simulated_table(bundles):
    (fact,) = facts_of(bundles["bundled"])["calibration"]
    v = fact.values
    check = bundles["bundled"].results["encounters"]["check"]
    assert v["steps"] == len(check.steps) and v["monotone"] == int(check.steps["monotone"].sum())
    table = check.table
    at = table[table["calibration"].map(str) == v["calibration"]]
    assert v["low"] == at["party_win_rate"].min() and v["high"] == at["party_win_rate"].max()
    # the guide's ratios order difficulty within a family but not across families
    assert v["within_reversals"] == 0 and v["across_reversals"] > 0
    assert v["low_low"] <= v["low"] <= v["low_high"] < v["high_low"] <= v["high"]
    en = findings._sentence(fact, "en")
    assert "within a family" in en and "does not predict difficulty across families" in en


def test_duel_finding_reads_the_duel_table(bundles):
    (fact,) = facts_of(bundles["bundled"])["duels"]
    table = bundles["bundled"].results["duels"]["duels"].set_index(["first_skill",
                                                                    "second_skill"])
    for gap, p, low, high in fact.values["gaps"]:
        row = table.loc[(findings.DUEL_BASE + gap, findings.DUEL_BASE)]
        assert (p, low, high) == (row["first_wins"], row["ci_low"], row["ci_high"])
    assert [g for g, *_ in fact.values["gaps"]] == list(findings.DUEL_GAPS)


def test_findings_come_first_and_link_to_their_sections(pages):
    for (name, lang), page in pages.items():
        first = page["sections"][0]
        assert first.key == "findings" and first.findings
        keys = {s.key for s in page["sections"]}
        assert all(f.target in keys for f in first.findings)
        slugs = {s.key: heading_slug(s.title) for s in page["sections"]}
        for f in first.findings:
            assert f"href='#{f.target}'" in page["html"]
            assert f"(#{slugs[f.target]})" in page["md"]  # the heading's anchor in report.md
            assert f"\n## {page['sections'][[s.key for s in page['sections']].index(f.target)].title}" \
                in page["md"]
        assert (first.findings[0].target == "changes") == (name == "variant")


# --- a variant against its baseline --------------------------------------------------------------

def test_variant_lists_exactly_the_changes_made(bundles):
    res = bundles["variant"].results["changes"]
    assert res["changes"][["key", "old", "new"]].values.tolist() == \
        [["injuries.death_threshold", 176, 180]]
    found = facts_of(bundles["variant"])
    (rules_fact,) = found["rules_changed"]
    assert rules_fact.values["rows"] == [("injuries.death_threshold", 176, 180)]
    frame = res["comparison"]["frame"]
    listed = [f.values["metric"] for f in found["metric_changed"]]
    assert set(listed) <= set(frame.loc[frame["significant"], "metric"])
    assert len(listed) == min(findings.MAX_CHANGES, int(frame["significant"].sum()))
    # exact metrics change by what the closed form says: 40 s, -6 HP, 1 wound: k = 92
    row = frame.set_index("metric").loc["death.p@40s,6hp,1w"]
    assert (row["base"], row["variant"]) == (death_exact(40, 6, 1, 176),
                                            death_exact(40, 6, 1, 180))
    assert bundles["bundled"].results["changes"]["comparison"] is None
    assert facts_of(bundles["bundled"]).get("rules_changed") is None


def test_every_finding_is_a_sentence_with_a_capital(bundles):
    # a metric's description is written to go inside a sentence ("seconds at -5 HP ... until
    # death is a coin flip"); a finding that starts with it starts with a capital
    for name in ("bundled", "variant"):
        for lang in ("en", "fr"):
            texts = [findings._sentence(fact, lang) for fact in findings.facts(bundles[name])]
            assert texts and all(t[:1].isupper() or t[:1].isdigit() for t in texts), \
                [t for t in texts if not (t[:1].isupper() or t[:1].isdigit())]


def test_a_changed_table_cell_is_keyed_as_set_takes_it():
    # the report names a changed cell as `--set` and `balance rules check` do: rows counted
    # from 1 (the third row is injuries.table.3), then the column
    rules = bl.load_rules()
    table = [dict(row) for row in rules["injuries"]["table"]]
    table[2] = {**table[2], "modifier": -5}
    rows = compare.change_rows(rules.updated({"injuries": {"table": table}}), rules)
    assert rows[["key", "old", "new"]].values.tolist() == [["injuries.table.3.modifier", 0, -5]]
    shown = compare.change_rows_shown(rows, "fr")
    assert shown.iloc[0].tolist() == ["injuries.table.3.modifier", "0", "-5"]
    # a row only one side has is the whole row against an em dash
    shorter = compare.change_rows(rules.updated({"injuries": {"table": table[:-1]}}), rules)
    n = len(table)
    assert shorter["key"].tolist() == ["injuries.table.3.modifier", f"injuries.table.{n}"]
    assert shorter["new"].iloc[-1] is None and compare.value_shown(None) == "—"
    assert shorter["old"].iloc[-1] == dict(table[-1])


def test_a_snapshot_baseline_compares_its_own_metrics():
    from balance.regression.snapshot import take

    snap = take(None, trials=300, seed=3, only=["death.*", "mc.*"])
    out = compare.compare_rules(bl.load_rules("death_threshold_180"), snap, trials=10, seed=0)
    assert out["frame"]["metric"].tolist() == [m.name for m in snap.metrics]
    assert out["trials"] == 300 and out["base_rules"] is not None  # bundled: known
    assert out["changes"]["key"].tolist() == ["injuries.death_threshold"]


def test_report_command_takes_a_baseline(tmp_path, capsys):
    from balance.cli import main

    out = tmp_path / "rep"
    code = main(["report", "--rules", "death_threshold_180", "--baseline", "death_threshold_180",
                 "--trials", "200", "--out", str(out), "--sections", "changes", "--quiet"])
    assert code == 0
    page = (out / "index.html").read_text(encoding="utf-8")
    assert bl.labels.text("no_changes") in page  # the same rules: nothing to compare
    from balance.regression.snapshot import take, write

    snap = write(take(None, trials=300, seed=3, only=["death.*"]), tmp_path / "base.json")
    code = main(["report", "--set", "injuries.death_threshold=180", "--baseline", str(snap),
                 "--workers", "2", "--trials", "200", "--out", str(out), "--force",
                 "--sections", "changes", "death", "--quiet"])  # a snapshot: in one process
    page = (out / "index.html").read_text(encoding="utf-8")
    assert code == 0 and "snapshot base.json" in page and "death.p@40s,6hp,1w" in page
    code = main(["report", "--baseline", str(tmp_path / "missing.json"), "--out",
                 str(tmp_path / "x"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "missing.json" in err
    assert not (tmp_path / "x").exists()


# --- readable without our files; the appendix --------------------------------------------------

def visible_text(page: str) -> str:
    """What a reader sees: the page's text and the figures' texts (SVG text is drawn as paths,
    each with its string in a comment)."""
    figures = " ".join(re.findall(r"<!--(.*?)-->", page, re.S))
    page = re.sub(r"<style.*?</style>|<script.*?</script>", " ", page, flags=re.S)
    page = re.sub(r"<svg.*?</svg>", " ", page, flags=re.S)
    return html_lib.unescape(re.sub(r"<[^>]+>", " ", page)) + " " + figures


def test_no_reference_to_files_a_reader_does_not_have(pages):
    for page in pages.values():
        for shown in (visible_text(page["html"]), page["md"]):
            assert not re.search(r"(?i)RULES\.md|README|\bissues?\b|§", shown)


def test_appendix_lists_every_assumed_value_and_reading(pages):
    rules = bl.load_rules()
    keys = rules.assumptions["key"].tolist()
    assert len(keys) >= 40
    for lang in ("en", "fr"):
        appendix = next(s for s in pages["bundled", lang]["sections"] if s.key == "assumptions")
        readings_table, assumed_table = appendix.tables
        assert assumed_table.frame.iloc[:, 0].tolist() == keys
        assert len(readings_table.frame) == len(readings.readings(lang))
    data = readings.data()
    assert set(data["assumed"]) == set(keys)  # a reader's note, in both languages, for each
    for key in keys:
        assert data["assumed"][key]["fr"] != data["assumed"][key]["en"]
    for reading in data["reading"]:  # the keys that set a reading exist in the rules data
        assert all(rules.get(k, None) is not None for k in reading["rules"]), reading["rules"]


#: English words that a complete French report never shows (rule keys and metric names such as
#: ``death.p@40s`` are identifiers, left out below)
ENGLISH = ("the", "and", "with", "of", "from", "when", "every", "probability", "wound",
           "wounds", "death", "dead", "Death", "True", "False", "yes", "bundled", "variant",
           "seconds", "trials", "seed", "fights", "party", "damage", "failure", "success",
           "rules", "metric", "moved", "changed", "wins", "skill", "injury", "injuries",
           "stabilised", "healed", "rescue", "negotiation", "ask", "encounter", "interval",
           "roll", "none", "Appendix", "Key findings", "significant", "kind", "fight")


def test_french_report_has_no_english_left(pages):
    for name in ("bundled", "variant"):
        shown = visible_text(pages[name, "fr"]["html"])
        words = re.sub(r"`[^`]*`", " ", shown)  # a command line: `balance diff bundled ...`
        words = re.sub(r"\S*[._@=\[\]'/]\S*", " ", words)  # identifiers: keys, metrics, files
        left = sorted({w for w in ENGLISH if re.search(rf"(?<![\w-]){w}(?![\w-])", words)})
        assert not left, (name, left)
    assert "[Mort]" in pages["variant", "fr"]["html"] and "[Death]" in \
        pages["variant", "en"]["html"]


def test_every_metric_is_described_in_french():
    from balance.regression import catalogue

    for metric in catalogue():
        french = compare.describe(metric.description, "fr")
        assert french != metric.description, metric.name
        assert not re.search(r"\b(with|of|the|wound|death)\b", french), french
    campaign = next(m for m in catalogue() if m.name == "campaign.death@10fights")
    assert "probabilité de 0,5 par combat" in compare.describe(campaign.description, "fr")
    weak = next(m for m in catalogue() if m.name == "treatment.chance@C12,Weak,light")
    assert "soin léger de Faible" in compare.describe(weak.description, "fr")


def test_french_ticks_have_decimal_commas():
    from matplotlib.figure import Figure

    from balance.report.model import figure_from_axes

    for lang, mark in (("en", "0.2"), ("fr", "0,2")):
        ax = Figure().subplots()
        ax.plot([0, 1], [0, 1])
        svg = figure_from_axes("t", ax, lang=lang).svg
        ticks = re.findall(r"<!-- ([^>]*?) -->", svg)
        assert mark in ticks and ("0.2" in ticks) == (lang == "en"), ticks


def test_sections_side_by_side_give_the_same_numbers(bundles):
    from balance.report.build import compute_parallel
    from balance.report.sections import render_topic
    from balance.report.topics import Context

    keys = ["changes", "death", "rescue", "negotiation"]
    variant = "death_threshold_180"  # with a comparison: its results cross processes
    serial = compute_bundle(variant, trials=500, seed=SEED, topics=keys)
    bundle, rendered = compute_parallel(variant, "fr", trials=500, seed=SEED, workers=2,
                                        topics=keys)
    assert list(bundle.results) == keys
    ctx = Context(rules=serial.rules, settings=serial.settings, lang="fr")
    for key in keys:
        alone = render_topic(key, serial.results[key], ctx)
        assert [t.frame.to_dict() for t in rendered[key].tables] == \
            [t.frame.to_dict() for t in alone.tables]
    assert repr(findings.facts(bundle)) == repr(findings.facts(serial))  # NaN p of exact ones
