"""Pieces the live explorers draw besides the usual plots: a marker of the state being looked
at, and Monte Carlo rates as points with their 95 % intervals.

>>> import pandas as pd
>>> from matplotlib.figure import Figure
>>> ax = Figure().add_subplot()
>>> table = pd.DataFrame({"metric": ["a", "b"], "estimate": [0.25, 0.5],
...                       "ci_low": [0.2, 0.45], "ci_high": [0.3, 0.55]})
>>> ax = interval_bars(table, ["b", "a"], ax=ax)
>>> [float(v) for v in ax.get_lines()[0].get_xdata()]
[0.5, 0.25]
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ._style import PALETTE, as_table, axes, finish

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["state_marker", "interval_bars"]


def state_marker(ax: Axes, x: float, *, label: str | None = None,
                 colour: str = "#555555") -> Axes:
    """A dotted vertical line at ``x`` (gid ``"state"``): the state the readout describes."""
    ax.axvline(x, color=colour, linestyle=":", linewidth=1.5, gid="state")
    if label:
        ax.annotate(label, (x, 1.0), xycoords=("data", "axes fraction"), xytext=(3, -10),
                    textcoords="offset points", fontsize=8, color="#555555")
    return ax


def interval_bars(table, metrics: Sequence[str], *, names: Mapping[str, str] | None = None,
                  ax: Axes | None = None, title: str | None = None, xlabel: str = "probability",
                  colour: str = PALETTE[0]) -> Axes:
    """Estimates of ``metrics`` (rows of a Monte Carlo table, by a ``metric`` column or the
    index) as points with their 95 % intervals, one row each, the first on top.

    The points are the axes' first line (x = estimates, in ``metrics`` order); the intervals
    are drawn as error bars.
    """
    frame = as_table(table)
    if "metric" in frame.columns:
        frame = frame.set_index("metric")
    missing = [m for m in metrics if m not in frame.index]
    if missing:
        raise ValueError(f"metrics {missing} not in the results (have {list(frame.index)})")
    rows = frame.loc[list(metrics)]
    est = rows["estimate"].to_numpy(float)
    low = rows["ci_low"].to_numpy(float)
    high = rows["ci_high"].to_numpy(float)
    y = np.arange(len(metrics))[::-1].astype(float)
    ax = axes(ax)
    ax.plot(est, y, marker="o", linestyle="none", color=colour)
    ax.errorbar(est, y, xerr=np.vstack([est - low, high - est]), fmt="none", ecolor=colour,
                capsize=4, linewidth=1.4)
    for xi, yi, lo, hi in zip(est, y, low, high):
        ax.annotate(f"{100 * xi:.1f} % [{100 * lo:.1f}, {100 * hi:.1f}]", (hi, yi),
                    xytext=(6, 0), textcoords="offset points", va="center", fontsize=8)
    labels = [(names or {}).get(m, m.replace("_", " ")) for m in metrics]
    ax.set_yticks(y, labels)
    ax.set_xlim(-0.02, 1.3)
    ax.set_xticks([0, 0.25, 0.5, 0.75, 1.0])
    ax.set_ylim(-0.7, len(metrics) - 0.3)
    return finish(ax, title=title, xlabel=xlabel, legend=False)
