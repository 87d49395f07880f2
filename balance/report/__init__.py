"""The balance report: compute a results bundle, render it to a self-contained HTML page and a
Markdown file with its figures, written atomically.

>>> import balance as bl                                    # doctest: +SKIP
>>> bl.report.build_report(out="reports/default", trials=200_000)   # doctest: +SKIP

Computing (:mod:`balance.report.bundle`) is separate from rendering (:mod:`.sections`,
:mod:`.html`, :mod:`.markdown`): templates render results and never compute. Another report
(e.g. a side-by-side diff) can reuse :func:`render_html` with its own list of
:class:`~balance.report.model.Section`.
"""
from __future__ import annotations

from typing import Any

__all__ = ["build_report", "compute_bundle", "render_sections", "render_html",
           "render_markdown", "write_report", "Section", "Figure", "Table"]


def __getattr__(name: str) -> Any:  # light package: submodules load on first use
    if name in ("Section", "Figure", "Table"):
        from . import model
        return getattr(model, name)
    if name in ("build_report", "write_report"):
        from . import build
        return getattr(build, name)
    if name == "compute_bundle":
        from .bundle import compute_bundle
        return compute_bundle
    if name == "render_sections":
        from .sections import render_sections
        return render_sections
    if name == "render_html":
        from .html import render_html
        return render_html
    if name == "render_markdown":
        from .markdown import render_markdown
        return render_markdown
    import importlib
    if name in ("model", "build", "bundle", "sections", "html", "markdown", "labels", "data"):
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'balance.report' has no attribute '{name}'")
