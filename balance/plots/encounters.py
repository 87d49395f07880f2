"""Plots of the GM guide's encounters (RULES.md 2.4): simulated difficulty against calibration,
with the guide's named challenge levels in the background."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..rules import Rules, resolve
from ._style import PALETTE, as_table, axes, check_lang, finish, label, text

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["calibration_rates"]

_METRICS = {"party_win_rate": ("win_ci_low", "win_ci_high"),
            "knockout_rate": ("ko_ci_low", "ko_ci_high")}


def _challenge_bands(ax, lo: float, hi: float, lang: str, rules: Rules) -> None:
    rows = resolve(rules)["encounters"]["challenges"]
    shades = ("#f7fbff", "#deebf7")
    centres, names = [], []
    for i, row in enumerate(rows):
        # challenge = row holding floor(calibration): [low, high + 1)
        start = max(row["low"], np.floor(lo) - 1)
        stop = min(row["high"] + 1 if "high" in row else np.inf, np.ceil(hi) + 1)
        if start >= stop:
            continue
        ax.axvspan(start, stop, color=shades[i % 2], zorder=0, linewidth=0, gid="challenge")
        centres.append((start + stop) / 2)
        names.append(label(row, lang))
    top = ax.secondary_xaxis("top")
    top.set_xticks(centres, names, fontsize=7)
    top.tick_params(length=0)


def calibration_rates(table, *, metric: str = "party_win_rate", ax: Axes | None = None, lang: str = "en",
                      rules: Rules | None = None, level: int | None = None):
    """Simulated win rate (or knockout rate) of each encounter against its calibration, one
    colour per encounter family, 95 % intervals as error bars, challenge levels shaded.

    ``table``: ``balance.fights.calibration_check(...)`` or its ``.table``.
    """
    lang = check_lang(lang)
    if metric not in _METRICS:
        raise ValueError(f"metric must be one of {', '.join(_METRICS)}, got {metric!r}")
    frame = as_table(table)
    if level is not None:
        frame = frame[frame["level"] == level]
        if frame.empty:
            raise ValueError(f"level {level} not in the results")
    lo_col, hi_col = _METRICS[metric]
    x_all = frame["calibration"].astype(float)
    ax = axes(ax)
    _challenge_bands(ax, x_all.min(), x_all.max(), lang, rules)
    families = list(dict.fromkeys(frame["family"]))
    width = 0.5 / max(1, len(families))
    for i, fam in enumerate(families):
        part = frame[frame["family"] == fam].sort_values("calibration")
        x = part["calibration"].astype(float).to_numpy() + (i - (len(families) - 1) / 2) * width
        y = part[metric].to_numpy()
        err = np.clip(np.vstack([y - part[lo_col], part[hi_col] - y]), 0, None)
        ax.errorbar(x, y, yerr=err, fmt="o-", markersize=3, linewidth=1, capsize=2,
                    color=PALETTE[i % len(PALETTE)], label=fam)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlim(np.floor(x_all.min()) - 0.5, np.ceil(x_all.max()) + 0.5)
    levels = sorted(frame["level"].unique())
    title = text("calibration_title", lang, level=", ".join(map(str, levels)))
    return finish(ax, title=title, xlabel=text("calibration", lang),
                  ylabel=text(metric, lang), legend_outside=True)
