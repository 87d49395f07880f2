"""Shared look of every plot: palette, figure size, labels in the chosen language."""
from __future__ import annotations

import re
from collections.abc import Sequence

import matplotlib

from ..names import label
from ..labels import check_lang, decimal, name_column, text
from ..text import plain_text

__all__ = ["PALETTE", "DEATH_COLOUR", "axes", "finish", "text", "check_lang",
           "band_colour", "band_line_colour", "ordinal_colours", "contrast", "colorbar",
           "band_note", "plain_log_ticks", "hover", "pct", "words", "pick_column", "as_table",
           "label", "name_column", "printable"]

#: one colour per curve family (colour-blind friendly, Okabe-Ito order; its yellow, #F0E442,
#: darkened to #A08C00 so that a seventh curve still shows on white: contrast 3.4:1, not 1.3:1)
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#A08C00",
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


def band_line_colour(index: int, count: int) -> str:
    """Colour of a *line* for severity band ``index`` of ``count`` (the last one is death):
    the darker end of the bands' scale, so the mildest band still stands out on white (a
    contrast of at least 3:1, where :func:`band_colour`'s pale yellow is meant for areas)."""
    if index == count - 1:
        return DEATH_COLOUR
    cmap = matplotlib.colormaps["YlOrRd"]
    return matplotlib.colors.to_hex(cmap(0.62 + 0.38 * index / max(1, count - 2)))


def ordinal_colours(count: int) -> list[str]:
    """``count`` colours for ordered curves (0, 1, 2... injuries): light to dark along the
    plasma scale, each with a contrast of at least 3:1 on white."""
    cmap = matplotlib.colormaps["plasma"]
    steps = [0.6] if count == 1 else [0.6 - 0.55 * i / (count - 1) for i in range(count)]
    return [matplotlib.colors.to_hex(cmap(t)) for t in steps]


def contrast(colour, background="#ffffff") -> float:
    """WCAG contrast ratio of two colours (1 to 21; 3 is the minimum for graphics)."""
    def luminance(c) -> float:
        channels = [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
                    for v in matplotlib.colors.to_rgb(c)]
        return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]

    a, b = sorted((luminance(colour), luminance(background)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def colorbar(ax, image, label: str):
    """A colour bar right beside ``ax`` (an inset of it: no gap opens between the map and its
    scale when the figure's other panels are wider)."""
    cax = ax.inset_axes((1.03, 0.0, 0.045, 1.0))
    bar = ax.figure.colorbar(image, cax=cax, label=label)
    return bar


#: a band thinner than this share of the y-axis does not show beside a line
THIN_BAND = 0.012


def band_note(ax, widths, lang: str, *, markers: bool = False) -> bool:
    """Say in ``ax``'s legend that its 95 % bands (or error bars, ``markers``) are narrower than
    the line where they do not show: when any of ``widths`` (``ci_high - ci_low``) is below
    :data:`THIN_BAND` of the y-range, a legend entry (a grey swatch) says so. Call it after
    the y-limits are set and before :func:`finish` draws the legend. Returns whether the
    entry was added."""
    import numpy as np
    from matplotlib.patches import Rectangle

    widths = np.asarray(widths, dtype=float)
    widths = widths[np.isfinite(widths)]
    low, high = ax.get_ylim()
    if widths.size == 0 or widths.min() >= THIN_BAND * abs(high - low):
        return False
    # a legend swatch only: a rectangle of no size changes no limit and draws nothing
    ax.add_patch(Rectangle((0, 0), 0, 0, facecolor="#777777", alpha=0.3, linewidth=0,
                           gid="band-note",
                           label=words("note_thin_bars" if markers else "note_thin_bands", lang)))
    return True


def plain_log_ticks(axis) -> None:
    """Tick labels of a log axis as plain numbers (0.1, 1, 10, 100), never matplotlib's
    mathtext ``$10^{1}$`` (which the report, drawing rule names as text, would print raw)."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    axis.set_major_formatter(FuncFormatter(lambda v, pos: f"{v:.0f}" if v >= 1 else f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def hover(artist, texts, lang: str = "en") -> None:
    """Values shown on hover in the report's SVG: ``texts[i]`` becomes the ``<title>`` of the
    artist's i-th marker (or of the artist, for one text). Carried in the artist's ``gid``
    (``hover_`` + base64url JSON), which :func:`balance.report.html.inline_svg` turns into
    ``<title>`` elements; a PNG or a notebook ignores it."""
    import base64
    import json

    texts = [plain_text(str(t)) for t in texts]
    if check_lang(lang) == "fr":  # French puts a space before a colon
        texts = [re.sub(r"(?<! ): ", " : ", t) for t in texts]
    data = base64.urlsafe_b64encode(json.dumps(texts, ensure_ascii=False).encode()).decode()
    artist.set_gid("hover_" + data.rstrip("="))


#: words only figures use, by language
_WORDS = {
    "note_thin_bands": {"en": "95 % band: narrower than\nthe line where not visible",
                        "fr": "bande à 95 % : plus étroite\nque le trait là où elle manque"},
    "note_thin_bars": {"en": "95 % interval: smaller than\nthe marker where not visible",
                       "fr": "intervalle à 95 % : plus petit\nque le point là où il manque"},
    "sp_at_least": {"en": "Chance of at least this many S.P.",
                    "fr": "Chance d'obtenir au moins ces P.R."},
    "sp_at_least_title": {"en": "S.P.: chance of at least y against the characteristic",
                          "fr": "P.R. : chance d'en obtenir au moins y selon la caractéristique"},
    "level_suffix": {"en": "level {level}", "fr": "niveau {level}"},
    "calibration_short": {"en": "calibration", "fr": "calibrage"},
}


def pct(p: float, digits: int, lang: str) -> str:
    """A probability as a percentage in ``lang`` (``0.1234`` -> ``12.3 %``, French ``12,3 %``)."""
    return f"{decimal(100 * float(p), digits, lang)} %"


def words(key: str, lang: str, **fields: object) -> str:
    """A figure's own words (notes, colour-bar labels) in ``lang``."""
    return _WORDS[key][check_lang(lang)].format(**fields)


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
