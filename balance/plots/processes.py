"""Plots of the process simulations (core rules, dying and critical injuries; treating injuries):
death against rescue time, and the
campaign wound burden. They take :class:`~balance.results.Simulation` objects or their tables;
every estimate is drawn with its 95 % interval."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..rules import Rules, resolve
from ._style import (DEATH_COLOUR, PALETTE, as_table, axes, band_note, check_lang, finish,
                     hover, ordinal_colours, pct, text)
from .intervals import interval_curves

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["rescue_curves", "campaign_deaths", "wound_burden", "knockout_risk"]


def rescue_curves(curve: pd.DataFrame, *, ax: Axes | None = None, lang: str = "en", exact: bool = True,
                  wall: int | None = None, rules: Rules | None = None,
                  linestyle: str = "-", label: str = ""):
    """Death probability against rescue time, one curve per wound count with its 95 % band
    (and the exact curve dotted), the automatic-death wall marked.

    ``curve``: ``balance.rescue.curve(...)`` (wounds, arrival, probability, ci_low, ci_high,
    exact), or a ``balance.rescue.simulate(...)`` result (its ``.extra["by_time"]``).
    """
    lang = check_lang(lang)
    curve = as_table(curve, "by_time")
    ax = interval_curves(curve, "arrival", group="wounds", group_label="wounds_n", ax=ax,
                         lang=lang, linestyle=linestyle, label=label)
    if exact and "exact" in curve:
        for i, (_, part) in enumerate(curve.groupby("wounds", sort=True)):
            part = part.sort_values("arrival")
            ax.plot(part["arrival"], part["exact"], color="black", linestyle=":",
                    linewidth=0.9, label=text("exact", lang) if i == 0 else None)
    wall = resolve(rules)["injuries"]["automatic_death_seconds"] if wall is None else wall
    ax.axvline(wall, color="black", linewidth=1.2, gid="wall")
    ax.set_ylim(-0.02, 1.02)
    band_note(ax, curve["ci_high"] - curve["ci_low"], lang)
    return finish(ax, title=text("rescue_title", lang), xlabel=text("arrival", lang),
                  ylabel=text("death_probability", lang), legend_outside=True)


def campaign_deaths(result, *, ax: Axes | None = None, lang: str = "en", label: str = "",
                    linestyle: str = "-"):
    """Cumulative death probability over fights 1..N with its 95 % band
    (``balance.campaign.simulate(...)`` or its ``.table``)."""
    lang = check_lang(lang)
    ax = interval_curves(as_table(result), "fight", ax=ax, lang=lang, label=label,
                         linestyle=linestyle)
    table = as_table(result).sort_values("fight")
    lines = ax.get_lines()
    lines[-1].set_marker("o")
    lines[-1].set_markersize(3)
    hover(lines[-1], [f"{text('fight', lang)} {f}: {pct(p, 2, lang)} ({pct(lo, 2, lang)} – "
                      f"{pct(hi, 2, lang)})" for f, p, lo, hi in
                      zip(table["fight"], table["probability"], table["ci_low"],
                          table["ci_high"])], lang=lang)
    ax.set_ylim(bottom=0)
    band_note(ax, table["ci_high"] - table["ci_low"], lang)
    return finish(ax, title=text("campaign_title", lang), xlabel=text("fight", lang),
                  ylabel=text("cumulative_death", lang), legend_loc="upper left")


def wound_burden(result, *, ax: Axes | None = None, lang: str = "en"):
    """Share of characters carrying 0, 1, 2... unhealed injuries out of each fight (and dead),
    one curve each with its 95 % band (``balance.campaign.simulate(...)`` or its
    ``.extra["wounds"]``)."""
    lang = check_lang(lang)
    frame = as_table(result, "wounds")
    seen = frame.groupby("wounds", sort=False)["probability"].max()
    keys = sorted((k for k in seen.index if k != "dead" and seen[k] > 0), key=int)
    keys += ["dead"] if "dead" in seen.index else []
    ax = axes(ax)
    counts = [k for k in keys if k != "dead"]
    colours = dict(zip(counts, ordinal_colours(len(counts))), dead=DEATH_COLOUR)
    markers = "os^Dv<>ph"
    for i, key in enumerate(keys):
        part = frame[frame["wounds"] == key].sort_values("fight")
        name = text("dead", lang) if key == "dead" else text("wounds_n", lang, value=key)
        line, = ax.plot(part["fight"], part["probability"], color=colours[key],
                        marker="x" if key == "dead" else markers[i % len(markers)],
                        markersize=3.5, linestyle="--" if key == "dead" else "-", label=name)
        hover(line, [f"{name}, {text('fight', lang)} {f}: {pct(p, 2, lang)}"
                     for f, p in zip(part["fight"], part["probability"])], lang=lang)
        ax.fill_between(part["fight"], part["ci_low"], part["ci_high"], color=colours[key],
                        alpha=0.25, linewidth=0)
    ax.set_ylim(-0.02, 1.02)
    band_note(ax, frame["ci_high"] - frame["ci_low"], lang)
    return finish(ax, title=text("burden_title", lang), xlabel=text("fight", lang),
                  ylabel=text("probability", lang), legend_outside=True)


def knockout_risk(result, *, ax: Axes | None = None, lang: str = "en"):
    """P(death | knocked out carrying n unhealed injuries) with 95 % intervals
    (``balance.campaign.simulate(...)`` or its ``.extra["knockout_risk"]``)."""
    lang = check_lang(lang)
    frame = as_table(result, "knockout_risk")
    ax = axes(ax)
    x = frame["wounds_carried"].to_numpy()
    y = frame["probability"].to_numpy()
    err = np.clip(np.vstack([y - frame["ci_low"], frame["ci_high"] - y]), 0, None)
    bars = ax.errorbar(x, y, yerr=err, fmt="o", color=PALETTE[1], capsize=3,
                       label=text("interval", lang))
    hover(bars.lines[0], [f"{n}: {pct(p, 2, lang)} ({pct(lo, 2, lang)} – {pct(hi, 2, lang)}), "
                          f"{t:,}".replace(",", "\u202f") + f" {text('trials', lang)}"
                          for n, p, lo, hi, t in zip(x, y, frame["ci_low"], frame["ci_high"],
                                                     frame["trials"])], lang=lang)
    ax.set_xticks(x)
    ax.set_ylim(bottom=0)
    band_note(ax, frame["ci_high"] - frame["ci_low"], lang, markers=True)
    return finish(ax, title=text("knockout_risk_title", lang), xlabel=text("wounds_carried", lang),
                  ylabel=text("death_probability", lang), legend_loc="upper left")
