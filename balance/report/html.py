"""Render report sections to one self-contained HTML page: figures inlined (SVG as it is, or a
base64 PNG), inline CSS, no script, no external URL; it opens offline and can be mailed as it is.

The page: contents kept in view (a sticky side column on wide screens, at the top on narrow
ones, with a link back to it after every section), numbered figures, print styles (no heading
left alone at the bottom of a page, no figure cut in two), dark mode through
``prefers-color-scheme`` (figures stay on a light card, as drawn), values on hover in SVG
figures that carry ``<title>`` elements, and table rows highlighted under the pointer."""
from __future__ import annotations

import base64
import html
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, cast

import pandas as pd

from ..text import plain_text
from ..labels import check_lang, text
from .model import Figure, Section, Table

__all__ = ["render_html", "table_html", "figure_html", "inline_svg", "hover_titles"]

#: the page's own words (its chrome), by language
_WORDS = {"en": {"top": "Back to contents", "figure": "Figure"},
          "fr": {"top": "Retour au sommaire", "figure": "Figure"}}

_CSS = """
:root{color-scheme:light dark;--fg:#1d1d1f;--bg:#f3f4f6;--paper:#fff;--muted:#4b5563;
 --line:#e5e7eb;--cell:#d9dce1;--head:#f0f1f3;--code:#f0f1f3;--prov:#f4f6f8;--accent:#0072B2;
 --link:#005a8c;--warn:#8a4b00;--hover:#fff7d6}
@media (prefers-color-scheme:dark){:root{--fg:#e6e6e6;--bg:#111214;--paper:#1b1c1f;
 --muted:#b3b8c0;--line:#34373d;--cell:#3a3d44;--head:#26282d;--code:#2a2d33;--prov:#23262c;
 --accent:#56B4E9;--link:#8cc8f0;--warn:#f0b35a;--hover:#3a3420}}
*{box-sizing:border-box}
body{font-family:-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;margin:0;
 color:var(--fg);background:var(--bg);line-height:1.45}
a{color:var(--link)}
.page{display:grid;grid-template-columns:minmax(0,1fr)}
main{width:100%;max-width:1000px;margin:0 auto;padding:1.5rem 2rem 4rem;background:var(--paper);
 min-width:0}
h1{font-size:1.8rem;margin:.2rem 0 .6rem}
h2{font-size:1.3rem;margin-top:2.2rem;border-bottom:2px solid var(--line);padding-bottom:.2rem}
h1,h2,figcaption,.note{overflow-wrap:break-word}
p,.prov,.meta td{overflow-wrap:anywhere}
.meta,.prov{font-size:.85rem;color:var(--muted)}.meta td{padding:.1rem .8rem .1rem 0;
 vertical-align:top}
.prov{background:var(--prov);border-left:3px solid var(--accent);padding:.4rem .7rem;margin:.6rem 0}
.prov span{margin-right:1.2rem;display:inline-block}.note{font-size:.85rem;color:var(--muted)}
figure{margin:1rem 0}
.card{background:#fff;border-radius:6px;padding:4px;max-width:100%;width:fit-content}
.card img,.card svg{max-width:100%;height:auto;display:block}
figcaption{font-size:.85rem;color:var(--muted);margin-top:.3rem}
figcaption b{color:var(--fg)}
.tbl{overflow-x:auto;margin:.8rem 0;max-width:100%}
table.data{border-collapse:collapse;font-size:.8rem}
table.data th,table.data td{border:1px solid var(--cell);padding:.2rem .45rem;text-align:left;
 vertical-align:top}
table.data th{background:var(--head)}
table.data td.num{text-align:right;white-space:nowrap}
table.data tbody tr:hover td{background:var(--hover)}
code{font-size:.85em;background:var(--code);padding:0 .2em}
.missing{font-size:.85rem;color:var(--warn)}
ul.findings{background:var(--prov);border-left:4px solid var(--accent);margin:.8rem 0;
 padding:.6rem .9rem .6rem 2rem}
ul.findings li{margin:.35rem 0;overflow-wrap:anywhere}
ul.findings a{font-size:.85rem}
nav.toc{font-size:.9rem}
nav.toc ol{padding-left:1.6rem;margin:.3rem 0 0}
nav.toc li{margin:.1rem 0}
g.hover use{cursor:crosshair}
a.top{display:inline-block;font-size:.8rem;margin-top:.6rem;text-decoration:none}
a.top:hover,nav.toc a:hover{text-decoration:underline}
section{scroll-margin-top:.5rem}
@media (min-width:700px) and (max-width:1199.98px){nav.toc ol{columns:2}}
@media (min-width:1200px){
 .page{grid-template-columns:220px minmax(0,1000px);justify-content:center;column-gap:1.2rem}
 nav.toc{position:sticky;top:0;align-self:start;max-height:100vh;overflow-y:auto;
  padding:1.5rem .2rem 1rem 0}
 main nav.toc{display:none}
}
@media (max-width:1199.98px){.page>nav.toc{display:none}
 main nav.toc{margin:.8rem 0}}
@media (max-width:600px){main{padding:1rem .8rem 3rem}h1{font-size:1.5rem}}
@media print{
 :root{--fg:#000;--bg:#fff;--paper:#fff;--muted:#333;--link:#000;--hover:transparent}
 body{background:#fff}.page{display:block}main{max-width:none;padding:0}
 .page>nav.toc,a.top{display:none}main nav.toc{display:block}
 h1,h2,h3{break-after:avoid;page-break-after:avoid}
 h2{break-before:auto}
 .prov,ul.findings li{break-inside:avoid}.prov{break-before:avoid}
 section>p,.prov{break-after:avoid}
 figure,.card,img,svg{break-inside:avoid;page-break-inside:avoid}
 tr,thead{break-inside:avoid}thead{display:table-header-group}
 .tbl{overflow:visible}
 a{text-decoration:none}
}
"""


def _e(value: object) -> str:
    """Text and attribute values: control characters dropped, then HTML-escaped."""
    return html.escape(plain_text(value), quote=True)


_NUMBER = re.compile(r"^[-+−]?[\d.,]+( ?(%|h|s))?( \(.*\))?$|^∞$|^[-+−]?[\d.,]+ %? ?– ?[-+−]?[\d.,]+ ?%?$")


def _cell(value: object) -> str:
    if value is None or (not isinstance(value, str) and pd.isna(cast(Any, value))):
        return "<td></td>"
    text_ = str(value)
    align = " class='num'" if _NUMBER.match(text_.replace("\u202f", "")) else ""
    return f"<td{align}>{_e(text_)}</td>"


def flat(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with its (named) index as ordinary columns and one header row."""
    if not isinstance(frame.index, pd.RangeIndex) or frame.index.name is not None:
        frame = frame.reset_index()
    if isinstance(frame.columns, pd.MultiIndex):
        frame.columns = [" ".join(str(c) for c in col if str(c)) for col in frame.columns]
    return frame


def table_html(table: Table) -> str:
    """A table as an HTML ``<table>`` (values shown as given; numbers right-aligned)."""
    frame = flat(table.frame)
    head = "".join(f"<th>{_e(c)}</th>" for c in frame.columns)
    rows = "".join("<tr>" + "".join(_cell(v) for v in row) + "</tr>"
                   for row in frame.itertuples(index=False))
    caption = f"<p class='note'>{_e(table.caption)}</p>" if table.caption else ""
    return (f"<div class='tbl' id='{_e(table.name)}'><table class='data'><thead><tr>{head}"
            f"</tr></thead><tbody>{rows}</tbody></table></div>{caption}")


_SVG_HEAD = re.compile(r"<svg\b[^>]*>")


_HOVER = re.compile(r'<g id="hover_([A-Za-z0-9_-]*)"')
_G_TAG = re.compile(r"<g\b|</g>")
_USE = re.compile(r"<use\b[^>]*?/>")


def _hover_texts(data: str) -> list[str] | None:
    try:
        texts = json.loads(base64.urlsafe_b64decode(data + "=" * (-len(data) % 4)))
    except ValueError:
        return None
    return [str(t) for t in texts] if isinstance(texts, list) else None


def hover_titles(svg: str, prefix: str = "hover") -> str:
    """Turn the groups :func:`balance.plots._style.hover` marked (``id="hover_<data>"``)
    into ``<title>`` elements, one per marker (shown by the browser under the pointer): the
    i-th text on the group's i-th marker, or one title on the whole group when the counts
    differ. The group keeps a short id (``<prefix>-<n>``)."""
    out, pos, n = [], 0, 0
    while (match := _HOVER.search(svg, pos)) is not None:
        texts = _hover_texts(match.group(1))
        depth, end = 0, None
        for tag in _G_TAG.finditer(svg, match.start()):
            depth += 1 if tag.group(0) == "<g" else -1
            if depth == 0:
                end = tag.start()
                break
        if end is None or texts is None:
            break
        body = svg[match.end():end]
        uses = _USE.findall(body)
        if len(uses) == len(texts) and texts:
            it = iter(texts)
            body = _USE.sub(lambda m: f"{m.group(0)[:-2]}><title>{_e(next(it))}</title></use>",
                            body)
        elif texts:
            first = body.index(">") + 1
            body = body[:first] + f"<title>{_e(' · '.join(texts))}</title>" + body[first:]
        n += 1
        out.append(svg[pos:match.start()] + f'<g id="{_e(prefix)}-{n}" class="hover"' + body)
        pos = end
    out.append(svg[pos:])
    return "".join(out)


def inline_svg(svg: str) -> str:
    """A matplotlib SVG document made fit to inline in an HTML page: no XML prolog, doctype,
    metadata or namespace URL (the HTML parser puts ``<svg>`` in its namespace), no global
    style rule (matplotlib's ``*{...}`` would apply to the whole page), and scaled to its
    column (its viewBox kept, its size a maximum width)."""
    svg = svg[svg.index("<svg"):]
    svg = re.sub(r"(?s)<metadata>.*?</metadata>", "", svg, count=1)
    svg = re.sub(r"(?s)<defs>\s*<style[^>]*>.*?</style>\s*</defs>", "", svg, count=1)
    found = _SVG_HEAD.match(svg)
    assert found is not None  # matplotlib's SVG opens with its <svg ...> element
    head = found.group(0)
    width = re.search(r'\bwidth="([\d.]+)pt"', head)
    new = re.sub(r'\s(xmlns(:xlink)?|width|height|version)="[^"]*"', "", head)
    style = f"width:{width.group(1)}pt;" if width else "width:100%;"
    new = new[:-1] + f" role='img' style='{style}max-width:100%;height:auto'" \
        " stroke-linejoin='round' stroke-linecap='butt'>"
    return new + svg[len(head):]


def figure_html(fig: Figure, number: int, lang: str) -> str:
    """One figure, numbered, on a light card (it keeps its colours in dark mode)."""
    caption = f"<b>{_e(_WORDS[lang]['figure'])} {number}.</b> {_e(fig.caption)}"
    svg = getattr(fig, "svg", "") or ""
    if svg:
        body = hover_titles(inline_svg(svg), f"{fig.name}-hover").replace(
            "role='img'", f"role='img' aria-label='{_e(fig.caption or fig.name)}'", 1)
    else:
        data = base64.b64encode(fig.png).decode("ascii")
        body = (f"<img alt='{_e(fig.caption or fig.name)}' "
                f"src='data:image/png;base64,{data}'>")
    return (f"<figure id='{_e(fig.name)}'><div class='card'>{body}</div>"
            f"<figcaption>{caption}</figcaption></figure>")


def _section(section: Section, lang: str, first_figure: int = 1) -> str:
    parts = [f"<section id='{_e(section.key)}'><h2>{_e(section.title)}</h2>"]
    if section.text:
        parts.append(f"<p>{_e(section.text)}</p>")
    findings = getattr(section, "findings", ()) or ()
    if findings:
        items = "".join(
            f"<li>{_e(f.text)}" + (f" <a href='#{_e(f.target)}'>{_e(f.link or f.target)}</a>"
                                    if f.target else "") + "</li>" for f in findings)
        parts.append(f"<ul class='findings'>{items}</ul>")
    if section.provenance or section.assumed or section.notes or not findings:
        prov = "".join(f"<span><b>{_e(k)}</b>: {_e(v)}</span>" for k, v in section.provenance)
        assumed = ", ".join(f"<code>{_e(a)}</code>" for a in section.assumed) \
            or _e(text("no_assumed", lang))
        notes = "".join(f"<div>{_e(n)}</div>" for n in section.notes)
        parts.append(f"<div class='prov'>{prov}<div><b>{_e(text('assumed', lang))}</b>: "
                     f"{assumed}</div>{notes}</div>")
    parts.extend(figure_html(fig, first_figure + i, lang)
                 for i, fig in enumerate(section.figures))
    parts.extend(table_html(t) for t in section.tables)
    parts.append(f"<a class='top' href='#top'>↑ {_e(_WORDS[lang]['top'])}</a></section>")
    return "\n".join(parts)


def render_html(sections: Sequence[Section], meta: Mapping[str, object],
                lang: str = "en") -> str:
    """The whole page.

    Parameters
    ----------
    sections : list of Section
    meta : mapping
        ``title`` plus label -> value rows shown at the top (e.g. the rules fingerprint);
        ``missing`` (list of str) names sections left out.
    lang : {"en", "fr"}

    Returns
    -------
    str
        One self-contained HTML document.

    Examples
    --------
    >>> page = render_html([Section(key="a", title="A")], {"title": "T"}, "en")
    >>> "href='#a'" in page and "id='contents'" in page
    True
    """
    lang = check_lang(lang)
    meta = dict(meta)
    title = str(meta.pop("title", text("report_title", lang)))
    missing = cast(Sequence[str], meta.pop("missing", ()) or ())
    rows = "".join(f"<tr><td><b>{_e(k)}</b></td><td>{_e(v)}</td></tr>" for k, v in meta.items())
    items = "".join(f"<li><a href='#{_e(s.key)}'>{_e(s.title)}</a></li>" for s in sections)
    heading = _e(text("contents", lang))
    # the contents twice: a sticky side column on wide screens, at the top of the text on
    # narrow ones (and in print); CSS shows one of them
    side = f"<nav class='toc' aria-label='{heading}'><b>{heading}</b><ol>{items}</ol></nav>"
    top = f"<nav class='toc' id='contents'><b>{heading}</b><ol>{items}</ol></nav>"
    gone = (f"<p class='missing'>{_e(text('missing_sections', lang))}: "
            f"{_e(', '.join(missing))}</p>") if missing else ""
    body, number = [], 1
    for s in sections:
        body.append(_section(s, lang, number))
        number += len(s.figures)
    return (f"<!DOCTYPE html>\n<html lang='{lang}'><head><meta charset='utf-8'>"
            f"<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<meta name='color-scheme' content='light dark'>"
            f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>"
            f"<div class='page'>{side}<main id='top'>"
            f"<h1>{_e(title)}</h1><table class='meta'>{rows}</table>{gone}"
            f"{top}\n" + "\n".join(body) + "</main></div></body></html>\n")
