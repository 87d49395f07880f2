"""Variant strings reach report.md, index.html and the terminal as text: HTML and Markdown
syntax escaped, control characters dropped (issue 11, item 8)."""
from __future__ import annotations

import json
import re

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import balance as bl  # noqa: E402
from balance import cli  # noqa: E402
from balance.report.html import render_html  # noqa: E402
from balance.report.markdown import render_markdown  # noqa: E402
from balance.report.model import Figure, Section, Table  # noqa: E402

# a control character drawn in a figure would be a missing glyph: make its warning an error
pytestmark = pytest.mark.filterwarnings("error:Glyph .* missing from font:UserWarning")

#: hostile names and, by hand, how report.md must show them (CommonMark text)
HOSTILE = {
    "<script>alert(1)</script>": "&lt;script&gt;alert(1)&lt;/script&gt;",
    "<img src=x onerror=alert(1)>": "&lt;img src=x onerror=alert(1)&gt;",
    "[x](javascript:alert(1))": r"\[x\](javascript:alert(1))",
    "![](http://remote.example/i.png)": r"!\[\](http://remote.example/i.png)",
    "nul\x00esc\x1b[31mred\x9b1m\x7f": r"nulesc\[31mred1m",
    "*bold* _em_ `code` a|b ~~s~~": r"\*bold\* \_em\_ \`code\` a\|b \~\~s\~\~",
}
#: every control character but newline and tab; DEL and C1 too
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
NOTE = "<script>n()</script> [n](javascript:n()) \x1b[2J\x00"


def toml_string(s: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's, ``\\u0000`` included)."""
    return json.dumps(s, ensure_ascii=True)


@pytest.fixture(scope="module")
def hostile_file(tmp_path_factory):
    """A variant renaming the first injuries, in English and French, to hostile strings, and
    giving an assumed value a hostile note."""
    rows = [dict(r) for r in bl.load_rules()["injuries"]["table"]]
    for row, name in zip(rows, HOSTILE):
        row["en"], row["fr"] = name, name + " fr"
    lines = ["[injuries]", "table = ["]
    for row in rows:
        cells = ", ".join(f"{k} = {toml_string(v) if isinstance(v, str) else v}"
                          for k, v in row.items())
        lines.append(f"  {{ {cells} }},")
    lines += ["]", "", "[assumed]", f'"injuries.hp_loss_per_second" = {toml_string(NOTE)}', ""]
    path = tmp_path_factory.mktemp("variant") / "hostile.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


@pytest.fixture(scope="module", params=["en", "fr"])
def report(request, hostile_file, tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / request.param
    bl.report.build_report(hostile_file, out=out, lang=request.param, trials=2000, seed=1,
                           progress=False, topics=["injuries", "assumptions"])
    return {"lang": request.param, "md": (out / "report.md").read_text(encoding="utf-8"),
            "html": (out / "index.html").read_text(encoding="utf-8")}


def assert_markdown_is_text(md: str) -> None:
    assert not CONTROL.search(md)
    assert not re.search(r"<[A-Za-z/!?]", md), "raw HTML in report.md"
    # every unescaped link or image target is one of the report's own figures
    for target in re.findall(r"(?<!\\)\]\(([^)]*)\)", md):  # a figure, or a finding's section
        assert (target.startswith("figures/") and target.endswith((".png", ".svg"))) or \
            re.fullmatch(r"#[\w-]+", target), target
    assert not re.search(r"(?i)<\s*(javascript|https?):", md)  # no autolink


def test_hostile_injury_names_are_escaped_in_report_md(report):
    md = report["md"]
    assert_markdown_is_text(md)
    suffix = " fr" if report["lang"] == "fr" else ""
    for escaped in HOSTILE.values():
        assert f"| {escaped}{suffix} |" in md  # a table cell of the injury table


def test_hostile_assumed_note_is_escaped_in_report_md(report):
    assert r"&lt;script&gt;n()&lt;/script&gt; \[n\](javascript:n()) \[2J" in report["md"]


def test_html_report_stays_safe(report):
    page = report["html"]
    assert not CONTROL.search(page)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert page.count("<script") == 0 and "onerror=" not in page.replace(
        "&lt;img src=x onerror=alert(1)&gt;", "")
    for tag in re.findall(r"(?i)<img\b[^>]*>", page):
        assert re.search(r"src='data:image/png;base64,", tag), tag[:60]
    for value in re.findall(r"""(?i)\bhref\s*=\s*['"]([^'"]*)['"]""", page):
        assert value.startswith(("#", "data:image/png;base64,")), value[:40]  # SVG rasters


def hostile_section() -> tuple[Section, dict]:
    """Every field of a section and of the header holding hostile text."""
    bad = list(HOSTILE)
    frame = pd.DataFrame({bad[0]: bad[1:4], "n": [1, -2, 3]},
                         index=pd.Index(bad[3:6], name=bad[4]))
    section = Section(key="k", title=bad[0], text="# " + bad[2] + "\n- " + bad[1],
                      figures=(Figure("fig", b"\x89PNG", caption=bad[3] + " ]("),),
                      tables=(Table("t", frame, caption=bad[4]),),
                      provenance=((bad[1], bad[2]),),
                      assumed=("injuries.x = '`<b>`'", bad[4]),
                      notes=("- " + bad[0], "1. " + bad[2]))
    meta = {"title": bad[2], bad[0]: bad[3], "missing": [bad[1]]}
    return section, meta


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_every_markdown_field_is_text(lang):
    section, meta = hostile_section()
    md, files = render_markdown([section], meta, lang)
    code_span = "`` injuries.x = '`<b>`' ``"  # a code span shows its text as it is
    assert code_span in md
    assert_markdown_is_text(md.replace(code_span, ""))
    assert list(files) == ["figures/fig.png"]
    lines = md.splitlines()
    assert lines[0] == r"# \[x\](javascript:alert(1))"
    assert r"\# \[x\](javascript:alert(1)) - &lt;img src=x onerror=alert(1)&gt;" in lines
    assert r"- \- &lt;script&gt;alert(1)&lt;/script&gt;" in lines
    assert r"- 1\. \[x\](javascript:alert(1))" in lines
    assert r"![!\[\](http://remote.example/i.png) \](](figures/fig.png)" in lines


def test_every_html_field_is_escaped():
    section, meta = hostile_section()
    page = render_html([section], meta, "en")
    assert not CONTROL.search(page)
    assert "<script" not in page and "javascript:alert(1)</a>" not in page
    assert not re.search(r"(?i)<img\b(?![^>]*src='data:image/png;base64,)", page)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
def test_cli_prints_no_control_characters(capsys, hostile_file, fmt):
    code = cli.main(["injuries", "--seconds", "30", "--negative-hp", "5", "--all",
                     "--rules", str(hostile_file), "--format", fmt])
    out = capsys.readouterr().out
    assert code == 0
    assert not CONTROL.search(out)
    assert "nulesc[31mred1m" in out  # the name, without its control characters
    if fmt == "json":
        names = {str(v) for row in json.loads(out) for v in row.values()}
        assert "nulesc[31mred1m" in names


def test_error_line_has_no_control_characters(capsys, tmp_path):
    path = tmp_path / "badkey.toml"
    path.write_text('[injuries]\n"x\\u001b[2Jy\\u009b\\u0000" = 1\n', encoding="utf-8")
    assert cli.main(["rules", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("balance: error: ") and err.count("\n") == 1
    assert not CONTROL.search(err)
    assert "x[2Jy" in err  # the key, without its control characters


def test_rules_show_json_has_no_control_characters(capsys, hostile_file):
    assert cli.main(["rules", "show", "injuries", "--rules", str(hostile_file),
                     "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert not CONTROL.search(out)
    names = [row["en"] for row in json.loads(out)["table"]]
    assert names[4] == "nulesc[31mred1m" and names[0] == "<script>alert(1)</script>"


def test_dollar_signs_in_names_are_text_in_figures(tmp_path):
    """Matplotlib would parse ``$\\frac{1$`` as mathtext and fail: figures show names as text."""
    rows = [dict(r) for r in bl.load_rules()["injuries"]["table"]]
    rows[0]["en"] = rows[0]["fr"] = r"$\frac{1$ and $x^2$"
    table = ",\n".join("  { " + ", ".join(f"{k} = {toml_string(v) if isinstance(v, str) else v}"
                                         for k, v in row.items()) + " }" for row in rows)
    path = tmp_path / "dollars.toml"
    path.write_text(f"[injuries]\ntable = [\n{table}\n]\n", encoding="utf-8")
    out = bl.report.build_report(path, out=tmp_path / "r", trials=2000, seed=1,
                                 progress=False, topics=["injuries"])
    assert r"| \$\\frac{1\$ and \$x^2\$ |" in (out / "report.md").read_text(encoding="utf-8")


def test_plots_save_draws_no_control_character(tmp_path):
    # a name with NUL/ESC as tick label, legend entry and title: saved without a missing glyph
    import matplotlib.pyplot as plt

    from balance import plots

    fig, ax = plt.subplots()
    ax.set_yticks([0, 1], ["Weak\x00ened", "Bro\x1b[31mken"])
    ax.plot([0, 1], [0, 1], label="De\x07ath")
    ax.legend()
    ax.set_title("Inj\x9buries")
    plots.save(ax, tmp_path / "f.png")  # the module's filter turns a glyph warning into an error
    assert [t.get_text() for t in ax.get_yticklabels()] == ["Weakened", "Bro[31mken"]
    assert ax.get_legend().get_texts()[0].get_text() == "Death"
    assert ax.get_title() == "Injuries"
    plt.close(fig)
