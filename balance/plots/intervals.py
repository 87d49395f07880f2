"""Curves with 95 % confidence bands, for any tidy Monte Carlo table (estimate, ci_low,
ci_high), e.g. death against rescue time or the wound burden over fights."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ._style import PALETTE, as_table, axes, check_lang, finish, pick_column, text

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["interval_curves"]


def interval_curves(table, x: str, *, y: str | None = None, group: str | None = None,
                    group_label: str | None = None, ax: Axes | None = None, lang: str = "en",
                    title: str | None = None, xlabel: str | None = None,
                    ylabel: str | None = None, linestyle: str = "-", label: str = ""):
    """One curve per ``group`` value of ``y`` against ``x``, each with its shaded 95 % band.

    Parameters
    ----------
    table : DataFrame or Simulation
        Tidy rows with ``x``, ``y`` (default ``probability`` or ``estimate``), ``ci_low``,
        ``ci_high``.
    group_label : str, optional
        A ``labels.toml`` key formatted with ``value=`` for the legend (else ``group=value``).
    """
    lang = check_lang(lang)
    frame = as_table(table)
    y = y or pick_column(frame, ["probability", "estimate"], "interval_curves")
    for col in (x, "ci_low", "ci_high"):
        pick_column(frame, [col], "interval_curves")
    ax = axes(ax)
    groups = frame.groupby(group, sort=True) if group else [(None, frame)]
    for i, (value, curve) in enumerate(groups):
        curve = curve.sort_values(x)
        colour = PALETTE[i % len(PALETTE)]
        if value is None:
            name = label or None
        elif group_label:
            name = label + text(group_label, lang, value=value)
        else:
            name = f"{label}{group} = {value}"
        ax.plot(curve[x], curve[y], color=colour, linestyle=linestyle, label=name)
        ax.fill_between(curve[x], curve["ci_low"], curve["ci_high"], color=colour, alpha=0.2,
                        linewidth=0)
    return finish(ax, title=title, xlabel=xlabel, ylabel=ylabel)
