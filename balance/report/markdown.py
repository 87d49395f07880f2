"""Render report sections to Markdown, with the figures as PNG files beside it.

Every string is shown as text (:func:`balance.text.md_escape`): a variant naming an injury
``<script>`` or ``[x](javascript:...)`` gets those characters in report.md, never a tag or a
link; control characters are dropped. The only links are the report's own figures."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import pandas as pd

from ..text import md_code, md_escape, plain_text
from ..labels import check_lang, text
from .model import Section, Table

__all__ = ["render_markdown", "table_markdown", "heading_slug"]


def heading_slug(title: str) -> str:
    """The anchor GitHub and most Markdown viewers give a heading: lower case, punctuation
    dropped, spaces as hyphens (``"Dying: death on stabilisation"`` ->
    ``"dying-death-on-stabilisation"``); the key findings link to sections with it."""
    import re

    return re.sub(r"[^\w\- ]", "", plain_text(title).strip().lower()).replace(" ", "-")


def _cell(value: object) -> str:
    if value is None or (not isinstance(value, str) and pd.isna(cast(Any, value))):
        return ""
    return md_escape(value)


def table_markdown(table: Table) -> str:
    """A GitHub-flavoured Markdown table (values shown as given, as text)."""
    from .html import flat

    frame = flat(table.frame)
    head = "| " + " | ".join(_cell(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    rows = ["| " + " | ".join(_cell(v) for v in row) + " |"
            for row in frame.itertuples(index=False)]
    caption = f"\n\n*{md_escape(table.caption)}*" if table.caption else ""
    return "\n".join([head, rule, *rows]) + caption


def render_markdown(sections: Sequence[Section], meta: Mapping[str, object], lang: str = "en",
                    figure_dir: str = "figures") -> tuple[str, dict[str, bytes]]:
    """The Markdown text and the figure files it links to (``{relative path: SVG or PNG
    bytes}``)."""
    lang = check_lang(lang)
    meta = dict(meta)
    title = str(meta.pop("title", text("report_title", lang)))
    missing = cast(Sequence[str], meta.pop("missing", ()) or ())
    e = md_escape
    lines = [f"# {e(title, block=True)}", ""]
    lines += [f"- **{e(k)}**: {e(v)}" for k, v in meta.items()]
    if missing:
        lines += ["", f"*{e(text('missing_sections', lang))}: {', '.join(map(e, missing))}*"]
    files: dict[str, bytes] = {}
    slugs = {s.key: heading_slug(s.title) for s in sections}
    for s in sections:
        lines += ["", f"## {e(s.title, block=True)}", ""]
        if s.text:
            lines += [e(s.text, block=True), ""]
        lines += [f"- **{e(k)}**: {e(v)}" for k, v in s.provenance]
        if s.provenance:  # a section of results (not the key findings)
            assumed = ", ".join(map(md_code, s.assumed)) or e(text("no_assumed", lang))
            lines += [f"- **{e(text('assumed', lang))}**: {assumed}"]
        lines += [f"- {e(n, block=True)}" for n in s.notes]
        if s.findings:
            lines += [""] + [f"- {e(f.text, block=True)} ([{e(f.link or f.target)}]"
                             f"(#{slugs.get(f.target, f.target)}))" for f in s.findings]
        for fig in s.figures:
            path = f"{figure_dir}/{fig.name}.{'svg' if fig.svg else 'png'}"
            files[path] = fig.svg.encode("utf-8") if fig.svg else fig.png
            lines += ["", f"![{e(fig.caption or fig.name)}]({path})"]
            if fig.caption:
                lines += ["", f"*{e(fig.caption)}*"]
        for table in s.tables:
            lines += ["", table_markdown(table)]
    return "\n".join(lines) + "\n", files
