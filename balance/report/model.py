"""A report as data: sections of text, figures and tables, rendered by :mod:`.html` and
:mod:`.markdown`. Another report (e.g. a side-by-side diff) builds its own list of
:class:`Section` and reuses the renderers."""
from __future__ import annotations

import io
import re
from dataclasses import dataclass

import pandas as pd
from matplotlib.ticker import Formatter

from ..labels import decimal_mark

__all__ = ["Figure", "Table", "Finding", "Section", "figure_from_axes"]


@dataclass(frozen=True)
class Figure:
    """A rendered figure: ``name`` (file stem, unique in the report), PNG bytes, caption, and
    the SVG text (a report's figures are drawn once, as SVG: ``png`` is then empty)."""

    name: str
    png: bytes
    caption: str = ""
    svg: str = ""


@dataclass(frozen=True)
class Table:
    """A table to show as it is (already formatted: rendering never computes)."""

    name: str
    frame: pd.DataFrame
    caption: str = ""


@dataclass(frozen=True)
class Finding:
    """One conclusion of a report's key findings: its ``text`` (already in the report's
    language, with its interval), and the anchor of the section it comes from (``target``),
    linked as ``link`` (the section's title)."""

    text: str
    target: str
    link: str = ""


@dataclass(frozen=True)
class Section:
    """One section of a report.

    Attributes
    ----------
    key : str
        Anchor and file-name prefix (``"death"``).
    title, text : str
        Heading and the paragraph under it, already in the report's language.
    figures, tables : tuple
        What the section shows, in order.
    provenance : tuple of (label, value)
        Rules fingerprint, trials, seed... shown under the heading.
    assumed : tuple of str
        ``"key = value"`` lines: the assumed values the section depends on.
    notes : tuple of str
        Further lines (e.g. "Exact (closed form)" or the Monte Carlo note).
    findings : tuple of Finding
        A list of conclusions, each linked to its section (the report's key findings).
    """

    key: str
    title: str
    text: str = ""
    figures: tuple[Figure, ...] = ()
    tables: tuple[Table, ...] = ()
    provenance: tuple[tuple[str, str], ...] = ()
    assumed: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()


def figure_from_axes(name: str, ax, caption: str = "", *, dpi: int = 100,
                     lang: str | None = None, format: str = "svg") -> Figure:
    """Render the figure holding ``ax`` (one axes or an array of them) once, as SVG (text as
    paths, ids salted by ``name`` so that figures inlined in one page never share one) or, with
    ``format="png"``, as a PNG of ``dpi``; then close it. ``lang="fr"`` writes the numbers of
    the tick labels with a decimal comma (:func:`decimal_ticks`)."""
    import matplotlib

    fig = (ax.flat[0] if hasattr(ax, "flat") else ax).figure
    fig = fig.figure  # the root figure when ``ax`` lives in a subfigure
    from ..plots._style import printable

    printable(fig)  # names from a rules file: no control character drawn as a box
    if lang is not None:
        decimal_ticks(fig, lang)
    import matplotlib.pyplot as plt

    if format == "png":
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
        plt.close(fig)  # a pyplot figure is released; a plain Figure is left to the collector
        return Figure(name=name, png=buffer.getvalue(), caption=caption)
    text = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": name}):
        fig.savefig(text, format="svg", metadata={"Date": None})
    plt.close(fig)
    return Figure(name=name, png=b"", caption=caption, svg=text.getvalue())


def decimal_ticks(fig, lang: str) -> None:
    """Write the numbers of ``fig``'s tick labels with the decimal mark of ``lang`` (a comma
    in French, ``0,25``): each formatter is wrapped so that a point between two digits of its
    text becomes the language's mark; words are left alone. English: nothing changes."""
    from matplotlib.ticker import NullFormatter

    if lang == "en":
        return
    for ax in fig.get_axes():
        for axis in (ax.xaxis, ax.yaxis):
            for which in ("major", "minor"):
                formatter = getattr(axis, f"get_{which}_formatter")()
                if not isinstance(formatter, (NullFormatter, _DecimalFormatter)):
                    getattr(axis, f"set_{which}_formatter")(_DecimalFormatter(formatter, lang))


_DIGIT_POINT = re.compile(r"(?<=\d)\.(?=\d)")


class _DecimalFormatter(Formatter):
    """A tick formatter showing another one's labels with a decimal comma."""

    def __init__(self, inner: Formatter, lang: str) -> None:
        self.inner, self.lang = inner, lang

    def set_axis(self, axis) -> None:
        super().set_axis(axis)
        self.inner.set_axis(axis)

    def set_locs(self, locs) -> None:
        super().set_locs(locs)
        self.inner.set_locs(locs)

    def _mark(self, shown: object) -> str:
        return _DIGIT_POINT.sub(decimal_mark(".", self.lang), str(shown))

    def __call__(self, x, pos=None) -> str:
        return self._mark(self.inner(x, pos))

    def format_data_short(self, value) -> str:
        return self._mark(self.inner.format_data_short(value))

    def get_offset(self) -> str:
        return self._mark(self.inner.get_offset())
