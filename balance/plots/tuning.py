"""Pictures of tuning results: the tornado chart of a sensitivity (``bl.tune.sensitivity``).

>>> import balance as bl
>>> metric = lambda r: bl.injuries.death_probability(seconds=40, negative_hp=6, wounds=1, rules=r)
>>> s = bl.tune.sensitivity(metric, ["injuries.death_threshold", "injuries.die"])
>>> ax = bl.plots.tornado(s)
>>> [t.get_text() for t in ax.get_yticklabels()]
['injuries.die', 'injuries.death_threshold']
"""
from __future__ import annotations

from typing import Any

from ._style import PALETTE, axes, finish

__all__ = ["tornado"]


def tornado(result: Any, *, ax: Any = None, title: str | None = None):
    """Tornado chart: one bar per key from the metric at its low end to the metric at its high
    end (one-at-a-time), widest swing on top, a line at the current metric; for a Sobol
    result, bars of the total index with their 95 % intervals. Returns the axes.

    ``result`` is a :class:`balance.tune.sensitivity.Sensitivity` or its ``table``.
    """
    table = getattr(result, "table", result)
    method = "sobol" if "ST" in table else "oat"
    ax = axes(ax)
    if method == "sobol":
        t = table.sort_values("ST")
        ax.barh(t["key"], t["ST"], xerr=t["ST_conf"], color=PALETTE[0], label="total (ST)")
        ax.barh(t["key"], t["S1"], color=PALETTE[1], height=0.4, label="first order (S1)")
        return finish(ax, title=title or "Sobol indices", xlabel="share of the metric's variance")
    t = table.sort_values("swing")
    lo = t[["metric_low", "metric_high"]].min(axis=1)
    hi = t[["metric_low", "metric_high"]].max(axis=1)
    ax.barh(t["key"], hi - lo, left=lo, color=PALETTE[0])
    base = float(t["metric"].iloc[0])
    for y, (_, row) in enumerate(t.iterrows()):  # each end labelled with the key's value there
        if row["swing"] == 0:
            ax.annotate(f"no change over {row['low']:g}..{row['high']:g}", (base, y),
                        ha="left", va="center", fontsize=8, xytext=(4, 0),
                        textcoords="offset points")
            continue
        for value, at in ((row["low"], row["metric_low"]), (row["high"], row["metric_high"])):
            side = -1 if at < base else 1
            ax.annotate(f"{value:g}", (at, y), ha="right" if side < 0 else "left",
                        va="center", fontsize=8, xytext=(4 * side, 0), textcoords="offset points")
    width = float(hi.max() - lo.min()) or max(abs(base), 1.0)
    ax.set_xlim(float(lo.min()) - 0.15 * width, float(hi.max()) + 0.15 * width)
    ax.axvline(float(t["metric"].iloc[0]), color="black", lw=1, ls="--", label="current rules")
    label = "metric" if result is table else str(getattr(result, "metric", "metric"))
    return finish(ax, title=title or f"What moves {label}", xlabel=label)
