"""A report as data: sections of text, figures and tables, rendered by :mod:`.html` and
:mod:`.markdown`. Another report (e.g. a side-by-side diff) builds its own list of
:class:`Section` and reuses the renderers."""
from __future__ import annotations

import io
from dataclasses import dataclass

import pandas as pd

__all__ = ["Figure", "Table", "Section", "figure_from_axes"]


@dataclass(frozen=True)
class Figure:
    """A rendered figure: ``name`` (file stem, unique in the report), PNG bytes, caption."""

    name: str
    png: bytes
    caption: str = ""


@dataclass(frozen=True)
class Table:
    """A table to show as it is (already formatted: rendering never computes)."""

    name: str
    frame: pd.DataFrame
    caption: str = ""


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
    """

    key: str
    title: str
    text: str = ""
    figures: tuple[Figure, ...] = ()
    tables: tuple[Table, ...] = ()
    provenance: tuple[tuple[str, str], ...] = ()
    assumed: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def figure_from_axes(name: str, ax, caption: str = "", *, dpi: int = 100) -> Figure:
    """Render the figure holding ``ax`` (one axes or an array of them) to PNG and close it."""
    fig = (ax.flat[0] if hasattr(ax, "flat") else ax).figure
    fig = fig.figure  # the root figure when ``ax`` lives in a subfigure
    from ..plots._style import printable

    printable(fig)  # names from a rules file: no control character drawn as a box
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    import matplotlib.pyplot as plt

    plt.close(fig)  # a pyplot figure is released; a plain Figure is left to the collector
    return Figure(name=name, png=buffer.getvalue(), caption=caption)
