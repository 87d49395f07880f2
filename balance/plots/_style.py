"""Shared look of every plot: palette, figure size, labels in the chosen language."""
from __future__ import annotations

from collections.abc import Sequence

import matplotlib

from ..names import label
from ..labels import check_lang, name_column, text
from ..text import plain_text

__all__ = ["PALETTE", "DEATH_COLOUR", "axes", "finish", "text", "check_lang",
           "band_colour", "pick_column", "as_table", "label", "name_column", "printable"]

#: one colour per curve family (colour-blind friendly, Okabe-Ito order)
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442",
           "#000000")
#: colour of death (severity bands run from yellow to red before it)
DEATH_COLOUR = "#252525"
LINESTYLES = ("-", "--", ":", "-.")
FIGSIZE = (7.0, 4.2)


def axes(ax=None, figsize: tuple[float, float] = FIGSIZE):
    """``ax`` itself, or the axes of a new pyplot figure (so a notebook shows it)."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=figsize, layout="constrained")
    return fig.add_subplot()


def finish(ax, *, title: str | None = None, xlabel: str | None = None,
           ylabel: str | None = None, legend: bool = True, legend_title: str | None = None,
           legend_outside: bool = False, legend_loc: str = "best"):
    """Titles, labels, grid and legend in the house style; returns ``ax``."""
    if title:
        ax.set_title(title, fontsize=11, loc="left")
    if xlabel:
        ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3, linewidth=0.6)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    if legend and ax.get_legend_handles_labels()[0]:
        where = {"loc": "upper left", "bbox_to_anchor": (1.01, 1.0)} if legend_outside \
            else {"loc": legend_loc}
        ax.legend(fontsize=8, frameon=False, title=legend_title, title_fontsize=8, **where)
    return ax


def printable(fig) -> None:
    """Drop control characters from every text of ``fig`` before it is drawn to a file.

    Names come from rules files, which may hold a NUL or an ESC: drawn as they are, they
    become missing-glyph boxes (and a matplotlib warning). Called by :func:`balance.plots.save`
    and by the report for each figure.
    """
    from matplotlib.category import StrCategoryFormatter
    from matplotlib.text import Text
    from matplotlib.ticker import FixedFormatter, FuncFormatter

    for artist in fig.findobj(Text):
        raw = artist.get_text()
        clean = plain_text(raw)
        if clean != raw:
            artist.set_text(clean)
    for ax in fig.get_axes():  # tick labels are made at draw time, by the axis' formatter
        for axis in (ax.xaxis, ax.yaxis):
            for which in ("major", "minor"):
                formatter = getattr(axis, f"get_{which}_formatter")()
                if isinstance(formatter, (FixedFormatter, FuncFormatter, StrCategoryFormatter)):
                    getattr(axis, f"set_{which}_formatter")(  # text labels, not numbers
                        FuncFormatter(lambda x, pos, f=formatter: plain_text(str(f(x, pos)))))


def band_colour(index: int, count: int) -> str:
    """Colour of severity band ``index`` of ``count`` (the last one is death)."""
    if index == count - 1:
        return DEATH_COLOUR
    cmap = matplotlib.colormaps["YlOrRd"]
    return matplotlib.colors.to_hex(cmap(0.3 + 0.65 * index / max(1, count - 2)))


def as_table(result, name: str | None = None):
    """The tidy table of a result: a DataFrame as it is, else a Simulation's ``.table`` (or
    ``.extra[name]``)."""
    import pandas as pd

    if isinstance(result, pd.DataFrame):
        return result
    return result.table if name is None else result.extra[name]


def pick_column(frame, candidates: Sequence[str], what: str) -> str:
    """The first of ``candidates`` that is a column of ``frame``, else a one-line ValueError."""
    for name in candidates:
        if name in frame.columns:
            return name
    raise ValueError(f"{what} needs one of the columns {', '.join(candidates)}; "
                     f"got {', '.join(map(str, frame.columns))}")
