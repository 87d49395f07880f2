"""Plots of the GM guide's encounters (GM guide, adversity ratio and calibration): simulated difficulty
against calibration,
with the guide's named challenge levels in the background."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..rules import Rules, resolve
from ._style import PALETTE, as_table, axes, check_lang, finish, hover, label, pct, text, words

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["calibration_rates", "challenge_span", "spread_in_band"]

_METRICS = {"party_win_rate": ("win_ci_low", "win_ci_high"),
            "knockout_rate": ("ko_ci_low", "ko_ci_high")}


def challenge_span(calibration: float, rules: Rules | None = None) -> tuple[float, float]:
    """The shaded span ``[start, stop)`` of the challenge level a calibration belongs to (the
    row holding ``floor(calibration)``, GM guide, adversity ratio and calibration); infinite
    ends for the open levels."""
    c = np.floor(calibration)
    for row in resolve(rules)["encounters"]["challenges"]:
        start = row.get("low", -np.inf)
        stop = row["high"] + 1 if "high" in row else np.inf
        if start <= c < stop:
            return float(start), float(stop)
    return -np.inf, np.inf


def spread_in_band(calibration, index: int, count: int, rules: Rules | None = None
                   ) -> np.ndarray:
    """Where family ``index`` of ``count`` draws its points: moved right from the calibration
    (by up to 0.4) so that the families' error bars do not hide each other, but never out of
    the point's own challenge band (a point near the band's end moves less)."""
    x = np.asarray(calibration, dtype=float)
    step = 0.4 * index / max(1, count - 1) if count > 1 else 0.0
    stops = np.array([challenge_span(c, rules)[1] for c in x.ravel()]).reshape(x.shape)
    room = np.clip(stops - x - 0.05, 0.0, None)  # keep 0.05 away from the next band
    return x + np.minimum(step, room)


def _challenge_bands(ax, lo: float, hi: float, lang: str, rules: Rules | None) -> None:
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
    for i, fam in enumerate(families):
        part = frame[frame["family"] == fam].sort_values("calibration")
        c = part["calibration"].astype(float).to_numpy()
        x = spread_in_band(c, i, len(families), rules)
        y = part[metric].to_numpy()
        err = np.clip(np.vstack([y - part[lo_col], part[hi_col] - y]), 0, None)
        bars = ax.errorbar(x, y, yerr=err, fmt="o-", markersize=3, linewidth=1, capsize=2,
                           color=PALETTE[i % len(PALETTE)], label=fam)
        names = part["encounter"] if "encounter" in part else [fam] * len(part)
        hover(bars.lines[0], [
            f"{n} ({words('calibration_short', lang)} {cal:g}): {pct(v, 1, lang)} "
            f"({pct(lo, 1, lang)} – {pct(hi, 1, lang)})"
            for n, cal, v, lo, hi in zip(names, c, y, part[lo_col], part[hi_col])], lang=lang)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlim(np.floor(x_all.min()) - 0.5, np.ceil(x_all.max()) + 0.5)
    levels = sorted(frame["level"].unique())
    # each panel named by what it shows (the win rate, the knockouts), then the level
    title = (f"{text(metric, lang)} "
             f"({words('level_suffix', lang, level=', '.join(map(str, levels)))})")
    return finish(ax, title=title, xlabel=text("calibration", lang),
                  ylabel=text(metric, lang), legend_outside=True)
