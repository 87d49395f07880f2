"""Render report sections to Markdown, with the figures as PNG files beside it."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from .labels import check_lang, text
from .model import Section, Table

__all__ = ["render_markdown", "table_markdown"]


def _cell(value: object) -> str:
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return ""
    return str(value).replace("|", "\\|").replace("\n", " ")


def table_markdown(table: Table) -> str:
    """A GitHub-flavoured Markdown table (values shown as given)."""
    from .html import flat

    frame = flat(table.frame)
    head = "| " + " | ".join(_cell(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    rows = ["| " + " | ".join(_cell(v) for v in row) + " |"
            for row in frame.itertuples(index=False)]
    caption = f"\n\n*{table.caption}*" if table.caption else ""
    return "\n".join([head, rule, *rows]) + caption


def render_markdown(sections: Sequence[Section], meta: Mapping[str, object], lang: str = "en",
                    figure_dir: str = "figures") -> tuple[str, dict[str, bytes]]:
    """The Markdown text and the figure files it links to (``{relative path: PNG bytes}``)."""
    lang = check_lang(lang)
    meta = dict(meta)
    title = str(meta.pop("title", text("report_title", lang)))
    missing = meta.pop("missing", ()) or ()
    lines = [f"# {title}", ""]
    lines += [f"- **{k}**: {v}" for k, v in meta.items()]
    if missing:
        lines += ["", f"*{text('missing_sections', lang)}: {', '.join(missing)}*"]
    files: dict[str, bytes] = {}
    for s in sections:
        lines += ["", f"## {s.title}", ""]
        if s.text:
            lines += [s.text, ""]
        lines += [f"- **{k}**: {v}" for k, v in s.provenance]
        assumed = ", ".join(f"`{a}`" for a in s.assumed) or text("no_assumed", lang)
        lines += [f"- **{text('assumed', lang)}**: {assumed}"]
        lines += [f"- {n}" for n in s.notes]
        for fig in s.figures:
            path = f"{figure_dir}/{fig.name}.png"
            files[path] = fig.png
            lines += ["", f"![{fig.caption or fig.name}]({path})"]
            if fig.caption:
                lines += ["", f"*{fig.caption}*"]
        for table in s.tables:
            lines += ["", table_markdown(table)]
    return "\n".join(lines) + "\n", files
