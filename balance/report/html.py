"""Render report sections to one self-contained HTML page (figures inlined as base64 PNG,
inline CSS, no script, no external URL): it opens offline and can be mailed as it is."""
from __future__ import annotations

import base64
import html
import re
from collections.abc import Mapping, Sequence

import pandas as pd

from ..text import plain_text
from ..labels import check_lang, text
from .model import Section, Table

__all__ = ["render_html", "table_html"]

_CSS = """
body{font-family:-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;margin:0;
 color:#1d1d1f;background:#fafafa;line-height:1.45}
main{max-width:1000px;margin:0 auto;padding:1.5rem 2rem 4rem;background:#fff}
h1{font-size:1.8rem;margin:.2rem 0 .6rem}h2{font-size:1.3rem;margin-top:2.2rem;
 border-bottom:2px solid #e5e5e5;padding-bottom:.2rem}
.meta,.prov{font-size:.85rem;color:#444}.meta td{padding:.1rem .8rem .1rem 0;vertical-align:top}
.prov{background:#f4f6f8;border-left:3px solid #0072B2;padding:.4rem .7rem;margin:.6rem 0}
.prov span{margin-right:1.2rem;display:inline-block}.note{font-size:.85rem;color:#555}
figure{margin:1rem 0}figure img{max-width:100%;height:auto;display:block}
figcaption{font-size:.85rem;color:#555}
.tbl{overflow-x:auto;margin:.8rem 0}table.data{border-collapse:collapse;font-size:.8rem}
table.data th,table.data td{border:1px solid #ddd;padding:.2rem .45rem;text-align:left;
 vertical-align:top}table.data th{background:#f0f0f0}table.data td.num{text-align:right;
 white-space:nowrap}
nav ol{columns:2;font-size:.9rem}code{font-size:.85em;background:#f0f0f0;padding:0 .2em}
.missing{font-size:.85rem;color:#8a4b00}
"""


def _e(value: object) -> str:
    """Text and attribute values: control characters dropped, then HTML-escaped."""
    return html.escape(plain_text(value), quote=True)


_NUMBER = re.compile(r"^[-+−]?[\d.,]+( ?(%|h|s))?( \(.*\))?$|^∞$|^[-+−]?[\d.,]+ %? ?– ?[-+−]?[\d.,]+ ?%?$")


def _cell(value: object) -> str:
    if value is None or (not isinstance(value, str) and pd.isna(value)):
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


def _section(section: Section, lang: str) -> str:
    parts = [f"<section id='{_e(section.key)}'><h2>{_e(section.title)}</h2>"]
    if section.text:
        parts.append(f"<p>{_e(section.text)}</p>")
    prov = "".join(f"<span><b>{_e(k)}</b>: {_e(v)}</span>" for k, v in section.provenance)
    assumed = ", ".join(f"<code>{_e(a)}</code>" for a in section.assumed) \
        or _e(text("no_assumed", lang))
    notes = "".join(f"<div>{_e(n)}</div>" for n in section.notes)
    parts.append(f"<div class='prov'>{prov}<div><b>{_e(text('assumed', lang))}</b>: "
                 f"{assumed}</div>{notes}</div>")
    for fig in section.figures:
        data = base64.b64encode(fig.png).decode("ascii")
        parts.append(f"<figure id='{_e(fig.name)}'><img alt='{_e(fig.caption or fig.name)}' "
                     f"src='data:image/png;base64,{data}'>"
                     f"<figcaption>{_e(fig.caption)}</figcaption></figure>")
    parts.extend(table_html(t) for t in section.tables)
    parts.append("</section>")
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
    """
    lang = check_lang(lang)
    meta = dict(meta)
    title = str(meta.pop("title", text("report_title", lang)))
    missing = meta.pop("missing", ()) or ()
    rows = "".join(f"<tr><td><b>{_e(k)}</b></td><td>{_e(v)}</td></tr>" for k, v in meta.items())
    toc = "".join(f"<li><a href='#{_e(s.key)}'>{_e(s.title)}</a></li>" for s in sections)
    gone = (f"<p class='missing'>{_e(text('missing_sections', lang))}: "
            f"{_e(', '.join(missing))}</p>") if missing else ""
    body = "\n".join(_section(s, lang) for s in sections)
    return (f"<!DOCTYPE html>\n<html lang='{lang}'><head><meta charset='utf-8'>"
            f"<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>{_e(title)}</title><style>{_CSS}</style></head><body><main>"
            f"<h1>{_e(title)}</h1><table class='meta'>{rows}</table>{gone}"
            f"<nav><b>{_e(text('contents', lang))}</b><ol>{toc}</ol></nav>\n{body}"
            f"</main></body></html>\n")
