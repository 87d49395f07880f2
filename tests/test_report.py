"""The balance report: built on small trial counts into a temporary folder; self-contained HTML,
every section, French labels, provenance of every section, atomic writes."""
from __future__ import annotations

import re

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import balance as bl  # noqa: E402
from balance.report import build, topics  # noqa: E402
from balance.labels import text  # noqa: E402
from balance.report.model import Section, Table  # noqa: E402

TRIALS = 2_000


@pytest.fixture(scope="module")
def reports(default_report):
    """The default report's folders (tests/conftest.py: built once for the whole run, the
    English one by ``build_report``, the French one from the same computation)."""
    return {"en": default_report.folder("en"), "fr": default_report.folder("fr")}


def html_of(path) -> str:
    return (path / "index.html").read_text(encoding="utf-8")


def expected_sections() -> list[str]:
    modules, _ = topics.available_topics()
    return [m.KEY for m in modules]


def test_report_files(reports):
    path = reports["en"]
    assert (path / "index.html").is_file() and (path / "report.md").is_file()
    md = (path / "report.md").read_text(encoding="utf-8")
    linked = re.findall(r"!\[[^\]]*\]\((figures/[^)]+\.(?:svg|png))\)", md)
    assert linked, "report.md links no figure"
    for rel in linked:  # each figure drawn once, as SVG (a PNG where a report asks for one)
        head = (path / rel).read_bytes()[:8]
        assert head == (b"<?xml ve" if rel.endswith(".svg") else b"\x89PNG\r\n\x1a\n")
    assert sorted(p.name for p in (path / "figures").iterdir()) == \
        sorted(rel.split("/")[1] for rel in linked)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_html_is_self_contained(reports, lang):
    page = html_of(reports[lang])
    assert not re.search(r"(?i)https?://", page)
    assert not re.search(r"(?i)//[a-z0-9.-]+\.[a-z]{2,}/", page)  # protocol-relative URLs
    for attr, value in re.findall(r"""(?i)\b(src|href)\s*=\s*['"]([^'"]*)['"]""", page):
        if attr.lower() == "src" or value.startswith("data:"):  # an SVG's raster: inlined
            assert value.startswith("data:image/png;base64,"), value[:40]
        else:
            assert value.startswith("#"), value
    assert "<script" not in page.lower() and "<link" not in page.lower()
    assert "@import" not in page and not re.search(r"url\((?!#)", page)  # SVG: url(#clip)


def test_every_section_is_there_with_its_provenance(reports):
    page = html_of(reports["en"])
    keys = expected_sections()
    assert {"death", "injuries", "d20", "treatment", "negotiation", "assumptions"} <= set(keys)
    fingerprint = bl.load_rules().fingerprint
    for key in keys:
        match = re.search(rf"<section id='{key}'>(.*?)</section>", page, re.S)
        assert match, f"section {key} missing"
        body = match.group(1)
        assert fingerprint in body
        assert "Assumed values this section depends on" in body
    for key in ("montecarlo_check", "rescue", "campaign"):
        if key in keys:
            body = re.search(rf"<section id='{key}'>(.*?)</section>", page, re.S).group(1)
            assert f"{TRIALS:,}" in body and "seed</b>: 7" in body
            assert "95 %" in body
    # the death section names its assumed value
    death = re.search(r"<section id='death'>(.*?)</section>", page, re.S).group(1)
    assert "injuries.hp_loss_per_second = 0" in death


def test_french_report(reports):
    page = html_of(reports["fr"])
    assert "<html lang='fr'>" in page
    assert text("sec_death", "fr") in page
    assert "Étourdi" in page and "La fin est proche" in page  # injury names from the rules
    assert "Valeurs supposées dont dépend cette section" in page
    assert text("sec_death", "en") not in page
    md = (reports["fr"] / "report.md").read_text(encoding="utf-8")
    assert md.startswith("# Rapport d'équilibrage")


def test_report_for_a_variant_names_its_folder_and_fingerprint(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = bl.report.build_report("death_threshold_180", trials=200, seed=1, progress=False,
                                  topics=["changes", "death", "assumptions"])
    assert path == (tmp_path / "reports" / "death_threshold_180").resolve()
    page = html_of(path)
    assert bl.load_rules("death_threshold_180").fingerprint in page
    assert "<section id='injuries'>" not in page
    changes = re.search(r"<section id='changes'>(.*?)</section>", page, re.S).group(1)
    table = re.search(r"id='changes_table'>(.*?)</table>", changes, re.S).group(1)
    rows = re.findall(r"<tr>(<td.*?)</tr>", table)
    assert len(rows) == 1 and re.findall(r"<td[^>]*>([^<]*)</td>", rows[0]) == \
        ["injuries.death_threshold", "176", "180"]


def test_bundled_rules_change_nothing(reports):
    page = html_of(reports["en"])
    changes = re.search(r"<section id='changes'>(.*?)</section>", page, re.S).group(1)
    assert "None: these are the bundled rules." in changes and "<table" not in changes
    assert "<p>Nothing to compare: these rules are the baseline itself (bundled). To see" \
        in changes
    french = re.search(r"<section id='changes'>(.*?)</section>", html_of(reports["fr"]),
                       re.S).group(1)
    assert "<p>Rien à comparer : ces règles sont la référence elle-même (règles fournies). " \
        "Pour voir" in french


@pytest.mark.parametrize("lang, sentence", [
    ("en", "Nothing to compare: these rules (bundled + same.toml) set every value as the "
           "baseline (bundled) does."),
    ("fr", "Rien à comparer : ces règles (règles fournies + same.toml) fixent chaque valeur "
           "comme la référence (règles fournies).")])
def test_a_variant_setting_the_bundled_values_has_nothing_to_compare(tmp_path, monkeypatch,
                                                                     lang, sentence):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "same.toml").write_text("[injuries]\ndeath_threshold = 176\n", encoding="utf-8")
    path = bl.report.build_report("same.toml", out=tmp_path / "r", lang=lang, trials=200,
                                  seed=1, progress=False, topics=["changes"])
    changes = re.search(r"<section id='changes'>(.*?)</section>", html_of(path), re.S).group(1)
    assert f"<p>{sentence} " in changes and "<table" not in changes


def fail_in_render(monkeypatch):
    from balance.report.topics import negotiation

    def boom(results, ctx):
        raise RuntimeError("injected failure while rendering")

    monkeypatch.setattr(negotiation, "render", boom)


def test_a_failed_build_leaves_nothing(tmp_path, monkeypatch):
    fail_in_render(monkeypatch)
    with pytest.raises(RuntimeError, match="injected"):
        bl.report.build_report(out=tmp_path / "rep", trials=200, seed=1, progress=False,
                               topics=["death", "negotiation"])
    assert list(tmp_path.iterdir()) == []


def test_a_failed_write_keeps_the_previous_report(tmp_path):
    out = tmp_path / "rep"
    build.write_report(out, {"index.html": "old", "figures/a.png": b"\x89PNG"})
    with pytest.raises(TypeError):
        build.write_report(out, {"index.html": "new", "figures/b.png": object()})
    assert (out / "index.html").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]  # no temp leftovers
    build.write_report(out, {"index.html": "new"})
    assert (out / "index.html").read_text() == "new" and not (out / "figures").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]


def test_render_html_reuses_sections_as_data():
    import pandas as pd

    section = Section(key="diff", title="A <vs> B", text="two rule sets",
                      tables=(Table("t", pd.DataFrame({"metric": ["x"], "a": ["1.0 %"]})),),
                      provenance=(("Rules", "abc"),), assumed=("k = 1",))
    page = bl.report.render_html([section], {"title": "Diff", "Rules A": "abc"}, "en")
    assert "A &lt;vs&gt; B" in page and "<td class='num'>1.0 %</td>" in page
    md, files = bl.report.render_markdown([section], {"title": "Diff"}, "fr")
    assert "| metric | a |" in md and files == {}


def test_bad_arguments_are_one_line_value_errors(tmp_path):
    with pytest.raises(ValueError, match="lang"):
        bl.report.build_report(out=tmp_path / "x", lang="de")
    with pytest.raises(ValueError, match="trials"):
        bl.report.build_report(out=tmp_path / "x", trials=0, progress=False)
    with pytest.raises(ValueError, match="topics"):
        bl.report.build_report(out=tmp_path / "x", topics=["nope"], progress=False)
    assert list(tmp_path.iterdir()) == []


def section_of(page: str, key: str) -> str:
    return re.search(rf"<section id='{key}'>(.*?)</section>", page, re.S).group(1)


def test_rest_and_timeline_sections(reports):
    page = html_of(reports["en"])
    rest = section_of(page, "rest")
    assert "rest.min_score = 0" in rest  # the assumed value it depends on
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", rest)
    # the documents' examples: forest 15 x 8 = 120; cave 13 x 3 = 39 then 12 x 5 = 60
    assert ["Forest", "1", "8", "6", "4", "4", "1", "0", "15", "8", "120"] == cells[
        cells.index("Forest"):cells.index("Forest") + 11]
    assert "39" in cells and "60" in cells
    timeline = section_of(page, "timeline")
    assert "time.ap_per_second = 1" in timeline
    rows = re.findall(r"<tr>(<td.*?)</tr>", timeline)
    first = [re.findall(r"<td[^>]*>([^<]*)</td>", r) for r in rows[:11]]
    assert [r[1] for r in first] == [f"{-(-60 // max(c, 1))} / 60" for c in range(11)]
    fr = html_of(reports["fr"])
    assert text("sec_rest", "fr") in fr and "médiocre" in fr and "Grotte (interrompu)" in fr
    assert "Attaque d&#x27;opportunité" in section_of(fr, "timeline")
    assert "Gobelin" in section_of(fr, "timeline")


def test_bundled_variants_section(reports):
    page = html_of(reports["en"])
    body = section_of(page, "variants")
    for name in bl.rules.bundled_variants():
        assert f"id='variants_{name}'" in body
        assert bl.load_rules(name).fingerprint in body
    assert f"{TRIALS:,}" in body and "7" in body  # trials and seed of its Monte Carlo metrics
    assert "variants_death_curves" in body
    table = re.search(r"id='variants_death_threshold_180'.*?</table>", body, re.S).group(0)
    row = re.search(r"<tr><td[^>]*>death\.p@40s,6hp,1w</td>(.*?)</tr>", table).group(1)
    # 40 s at -6 HP, 1 wound: k = 2 x 46 = 92; P(d100 + 92 >= threshold) = (101 - (t - 92)) / 100
    assert re.findall(r"<td[^>]*>([^<]*)</td>", row)[1:5] == \
        ["0.1700", "0.1300", "-4.00 pp", "exact"]
    charisma = re.search(r"id='variants_charisma_negotiation'.*?</table>", body, re.S).group(0)
    assert "negotiation.price@200NX" in charisma and "death.p@" not in charisma
    fr = section_of(html_of(reports["fr"]), "variants")
    assert text("sec_variants", "fr") in html_of(reports["fr"])
    assert "significatif" in fr and "Monte Carlo" in fr and "oui" in fr


def test_french_tables_name_levels_and_headers_in_french(reports):
    fr = html_of(reports["fr"])
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", section_of(fr, "treatment"))
    assert "léger" in cells and "complet" in cells  # level names from the rules data
    assert "light" not in cells and "full" not in cells
    if "campaign" in expected_sections():
        heads = re.findall(r"<th>([^<]*)</th>", section_of(fr, "campaign"))
        assert "tirages" in heads and "trials" not in heads


def test_every_simulated_section_states_trials_and_seed(reports):
    page = html_of(reports["en"])
    modules, _ = topics.available_topics()
    simulated = [m.KEY for m in modules if "balance.montecarlo" in m.REQUIRES]
    assert {"rescue", "variants"} <= set(simulated)
    for key in simulated:
        prov = re.search(r"<div class='prov'>(.*?)</div></div>", section_of(page, key), re.S)
        assert prov and "<b>trials</b>: " in prov.group(1) and "<b>seed</b>: " in prov.group(1), key
        assert re.search(r"<b>seed</b>: [^<]*\b7\b", prov.group(1)), key


def test_variant_p_values_never_print_as_zero():
    from balance.report.compare import metrics_shown
    from balance.regression.checking import p_text

    assert p_text(0.0) == "< 1e-300"
    assert p_text(2.29e-74) == "2.29e-74" and p_text(1.0) == "1"
    frame = pd.DataFrame({"metric": ["m"], "category": [""], "exact": [False], "base": [0.5],
                          "variant": [0.1], "unit": ["probability"], "change": [-0.4],
                          "p_adjusted": [0.0], "significant": [True], "moved": [True]})
    assert metrics_shown(frame)["p (Holm)"].tolist() == ["< 1e-300"]


# --- decimal mark: a comma in French, a point in English -------------------------------------

def death_by_faces(seconds: int, negative_hp: int, wounds: int, threshold: int = 176) -> float:
    """Death chance of RULES.md 1.2 by rolling each face of the d100 by hand."""
    modifier = (wounds + 1) * (seconds + negative_hp)
    return sum(face + modifier >= threshold for face in range(1, 101)) / 100


def markdown_section(md: str, title: str) -> str:
    start = md.index(f"\n## {title}\n")
    end = md.find("\n## ", start + 1)
    return md[start:] if end < 0 else md[start:end]


def table_cell(block: str, row_start: tuple[str, ...], column: str) -> str:
    """The cell of the first Markdown table of ``block`` in ``column`` on the row beginning
    with ``row_start``."""
    lines = [ln for ln in block.splitlines() if ln.startswith("|")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        if tuple(cells[:len(row_start)]) == row_start:
            return cells[head.index(column)]
    raise AssertionError(f"no row {row_start}")


@pytest.mark.parametrize("lang, mark", [("en", "."), ("fr", ",")])
def test_death_table_uses_the_language_decimal_mark(reports, lang, mark):
    md = (reports[lang] / "report.md").read_text(encoding="utf-8")
    block = markdown_section(md, text("sec_death", lang))
    p = death_by_faces(40, 10, 1)
    assert p == 0.25  # (1 + 1) * (40 + 10) = 100: faces 76..100 kill
    expected = f"{round(100 * p)}{mark}0 %"
    assert table_cell(block, ("1", "10"), "40 s") == expected


@pytest.mark.parametrize("lang, mark", [("en", "."), ("fr", ",")])
def test_variant_table_death_at_40s_6hp_1w(reports, lang, mark):
    md = (reports[lang] / "report.md").read_text(encoding="utf-8")
    p = death_by_faces(40, 6, 1)
    assert p == 0.17  # RULES.md 1.2, example 2: modifier 92, faces 84..100 kill
    row = next(ln for ln in md.splitlines() if ln.startswith("| death.p@40s,6hp,1w |"))
    assert f"| 0{mark}{round(100 * p)}00 |" in row
    assert "0.1700" not in row if lang == "fr" else "0,1700" not in row


def test_french_numeric_cells_and_captions_have_no_decimal_point(reports):
    cells = {lang: re.findall(r"<td class='num'>([^<]*)</td>", html_of(reports[lang]))
             for lang in ("en", "fr")}
    assert len(cells["en"]) == len(cells["fr"])  # the comma keeps French numbers right-aligned
    assert any(re.search(r"\d\.\d", c) for c in cells["en"])
    assert not [c for c in cells["fr"] if re.search(r"\d\.\d", c)]
    assert any(re.search(r"\d,\d", c) for c in cells["fr"])
    md = (reports["fr"] / "report.md").read_text(encoding="utf-8")
    captions = [ln for ln in md.splitlines() if ln.startswith(("*", "![")) or ln.startswith("- ")]
    sections = re.compile(r"RULES\.md [\d.,\- ]+")  # "RULES.md 1.5, 2.6": no decimals
    assert not [c for c in captions if re.search(r"\d\.\d", sections.sub("", c))]


def test_formatters_take_the_language():
    from balance.labels import count, decimal
    from balance.report.topics._base import fmt_estimate, fmt_interval, fmt_percent, fmt_prob

    assert fmt_percent(12.345) == "12.35 %" and fmt_percent(12.345, lang="fr") == "12,35 %"
    assert fmt_prob(0.17) == "17.0 %" and fmt_prob(0.17, lang="fr") == "17,0 %"
    assert fmt_interval(0.1, 0.125, lang="fr") == "10,00 % – 12,50 %"
    assert fmt_estimate(0.5, 0.25, 0.75, lang="fr") == "50,0 % (25,0 % – 75,0 %)"
    assert fmt_estimate(0.5, 0.25, 0.75) == "50.0 % (25.0 % – 75.0 %)"
    assert decimal(0.5, lang="fr") == "0,5" and decimal(2.0) == "2" and decimal(1 / 3, 2) == "0.33"
    fields = dict(fights=10, knockout=0.3, negative_hp="1d6", arrival="10+1d20", cunning=12,
                  hours=24, policy="p")
    assert "hors de combat 0,3 par combat" in text("campaign_scenario", "fr", **fields)
    assert "knockout chance 0.3 per fight" in text("campaign_scenario", "en", **fields)
    assert count(1234567, "fr") == "1\u202f234\u202f567"


def test_render_html_right_aligns_french_numbers():
    import pandas as pd

    section = Section(key="s", title="t", tables=(Table("t", pd.DataFrame(
        {"a": ["12,3 %", "1\u202f234,5 h", "12,30 % – 12,41 %", "0,1700"]})),))
    page = bl.report.render_html([section], {"title": "T"}, "fr")
    assert page.count("<td class='num'>") == 4
