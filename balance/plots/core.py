"""Plots of the core rules: dying, critical injuries, d20 Tests, treatment, negotiation.
Each takes results (tidy frames) plus an optional ``ax`` and returns the axes.

>>> import balance as bl
>>> ax = bl.plots.death_curves(bl.report.data.death_surface(negative_hp=[6], wounds=[0, 1]))
>>> len(ax.get_lines())          # two curves and the 175 s wall
3
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, cast

import matplotlib.colors
import matplotlib.ticker
import numpy as np
import pandas as pd

from ..rules import Rules, resolve
from ._style import (LINESTYLES, PALETTE, axes, band_colour, band_line_colour, band_note,
                     check_lang, colorbar, finish, hover, name_column, pct, pick_column,
                     plain_log_ticks, text, words)
from ..labels import decimal

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["Curve", "Bands", "death_curve_data", "injury_band_data", "death_curves",
           "injury_bands", "injury_heatmap", "d20_success", "sp_distribution", "treatment_curves",
           "negotiation_curves", "negotiation_rules", "mc_check", "compare_death_curves"]


def _death_rows(surface: pd.DataFrame) -> pd.DataFrame:
    """Rows of death (the row without a test modifier) when given a whole outcome surface."""
    if "modifier" in surface.columns:
        return surface[surface["modifier"].isna()]
    return surface


def _select(frame: pd.DataFrame, column: str, values) -> pd.DataFrame:
    if values is None or column not in frame:
        return frame
    values = np.atleast_1d(values)
    missing = sorted(set(values.tolist()) - set(frame[column].unique().tolist()))
    if missing:
        raise ValueError(f"{column} {missing} not in the results (have "
                         f"{sorted(frame[column].unique().tolist())})")
    return frame[frame[column].isin(values)]


class Curve(NamedTuple):
    """One curve as drawn: its points, legend label and style."""
    x: np.ndarray
    y: np.ndarray
    label: str
    colour: str
    linestyle: str


def death_curve_data(surface: pd.DataFrame, *, negative_hp=None, wounds=None, lang: str = "en",
                     linestyle: str | None = None, label: str = "") -> list[Curve]:
    """The curves :func:`death_curves` draws, one per wound count and negative-HP value (in
    that order): seconds, death probability, label and style. The live explorer updates its
    lines from the same data.

    Examples
    --------
    >>> import balance as bl
    >>> surface = bl.report.data.death_surface(negative_hp=[6], wounds=[0, 1])
    >>> first, second = death_curve_data(surface)
    >>> second.label, float(second.y[40]), first.colour != second.colour  # 1d100 + 92 >= 176
    ('1 wound, -6 HP', 0.17, True)
    """
    lang = check_lang(lang)
    frame = _select(_select(_death_rows(surface), "negative_hp", negative_hp), "wounds", wounds)
    pick_column(frame, ["probability"], "death_curves")
    hps = sorted(frame["negative_hp"].unique())
    curves = []
    for i, (n, by_n) in enumerate(frame.groupby("wounds", sort=True)):
        for hp, curve in by_n.groupby("negative_hp", sort=True):
            curve = curve.sort_values("seconds")
            curves.append(Curve(curve["seconds"].to_numpy(), curve["probability"].to_numpy(),
                                label + text("wounds_legend", lang, wounds=n, negative_hp=hp),
                                PALETTE[i % len(PALETTE)],
                                linestyle or LINESTYLES[hps.index(hp) % len(LINESTYLES)]))
    return curves


def death_curves(surface: pd.DataFrame, *, negative_hp=None, wounds=None, ax: Axes | None = None,
                 lang: str = "en", wall: int | None = None, rules: Rules | None = None,
                 linestyle: str | None = None, label: str = "", title: str | None = None):
    """Death probability against seconds at negative HP, one curve per wound count and
    negative-HP value, the automatic-death wall marked (core rules, dying and critical injuries).

    Parameters
    ----------
    surface : DataFrame
        ``balance.injuries.injury_surface(...)`` (or ``balance.report.data.death_surface()``),
        or any frame with seconds, negative_hp, wounds and the death probability.
    negative_hp, wounds : int or list, optional
        Curves to draw (default: all in ``surface``).
    wall : int, optional
        Seconds of automatic death; default from ``rules``.
    linestyle, label : str
        Force one line style and prefix the legend, to overlay two rule sets on one ``ax``.
    """
    lang = check_lang(lang)
    curves = death_curve_data(surface, negative_hp=negative_hp, wounds=wounds, lang=lang,
                              linestyle=linestyle, label=label)
    ax = axes(ax)
    for curve in curves:
        ax.plot(curve.x, curve.y, color=curve.colour, linestyle=curve.linestyle, linewidth=1.6,
                label=curve.label)
    wall = resolve(rules)["injuries"]["automatic_death_seconds"] if wall is None else wall
    if not any(line.get_gid() == "wall" for line in ax.get_lines()):
        ax.axvline(wall, color="black", linewidth=1.2, gid="wall")
        ax.annotate(text("wall", lang, seconds=wall), (wall, 0.3), rotation=90, ha="right",
                    va="center", fontsize=8, xytext=(-3, 0), textcoords="offset points")
    ax.set_ylim(-0.02, 1.02)
    return finish(ax, title=title or text("death_title", lang), xlabel=text("seconds", lang),
                  ylabel=text("death_probability", lang), legend_outside=True)


def _one_state(surface: pd.DataFrame, negative_hp, wounds) -> tuple[pd.DataFrame, int, int]:
    hp = surface["negative_hp"].iloc[0] if negative_hp is None else negative_hp
    n = surface["wounds"].iloc[0] if wounds is None else wounds
    frame = surface[(surface["negative_hp"] == hp) & (surface["wounds"] == n)]
    if frame.empty:
        raise ValueError(f"negative_hp={hp}, wounds={n} not in the results")
    return frame, int(hp), int(n)


class Bands(NamedTuple):
    """The severity bands as drawn: seconds, one row of heights per band (stacked from the
    mildest test modifier up to death), labels, colours and the title."""
    seconds: np.ndarray
    heights: np.ndarray
    labels: list[str]
    colours: list[str]
    title: str


def injury_band_data(surface: pd.DataFrame, *, negative_hp: int | None = None,
                     wounds: int | None = None, lang: str = "en") -> Bands:
    """What :func:`injury_bands` draws for one state (negative HP, wounds): the probability
    of each severity band (rows summed by test modifier; death last) at each second. The
    live explorer updates its bands from the same data.

    Examples
    --------
    >>> import balance as bl
    >>> surface = bl.report.data.death_surface(negative_hp=[6], wounds=[1])
    >>> bands = injury_band_data(surface, negative_hp=6, wounds=1)
    >>> bands.labels[0], bands.labels[-1], [round(float(h), 2) for h in bands.heights[:, 40]]
    ('test modifier 0', 'Death', [0.0, 0.08, 0.5, 0.25, 0.17])
    """
    lang = check_lang(lang)
    frame, hp, n = _one_state(surface, negative_hp, wounds)
    death = frame[frame["modifier"].isna()]
    death_name = death[name_column(death, "injury", lang)].iloc[0]
    seconds, column = np.unique(frame["seconds"].to_numpy(), return_inverse=True)
    modifiers, band = np.unique(frame["modifier"].to_numpy(), return_inverse=True)  # NaN last
    death_band = len(modifiers) - 1
    row = np.where(band == death_band, death_band, death_band - 1 - band)  # mildest first
    heights = np.bincount(row * seconds.size + column, weights=frame["probability"].to_numpy(),
                          minlength=modifiers.size * seconds.size)
    labels = [text("band", lang, modifier=int(m)) for m in modifiers[-2::-1]] + [death_name]
    colours = [band_colour(i, len(labels)) for i in range(len(labels))]
    return Bands(seconds, heights.reshape(modifiers.size, seconds.size), labels, colours,
                 text("severity_title", lang, negative_hp=hp, wounds=n))


def injury_bands(surface: pd.DataFrame, *, negative_hp: int | None = None,
                 wounds: int | None = None, ax: Axes | None = None, lang: str = "en"):
    """Outcome of the critical-injury roll by severity band (test modifier 0 / -5 / -10 / -15,
    then death) as stacked areas over seconds at negative HP (core rules, dying and critical injuries)."""
    bands = injury_band_data(surface, negative_hp=negative_hp, wounds=wounds, lang=lang)
    ax = axes(ax)
    ax.stackplot(bands.seconds, bands.heights, labels=bands.labels, colors=bands.colours,
                 alpha=0.9)
    ax.set_xlim(bands.seconds.min(), bands.seconds.max())
    ax.set_ylim(0, 1)
    return finish(ax, title=bands.title, xlabel=text("seconds", lang),
                  ylabel=text("probability", lang), legend_outside=True)


def injury_heatmap(surface: pd.DataFrame, *, negative_hp: int | None = None,
                   wounds: int | None = None, ax: Axes | None = None, lang: str = "en"):
    """The whole critical-injury table as a heatmap: one row per injury (and death), seconds
    across, colour = probability (core rules, dying and critical injuries). Injury names in ``lang`` from the rules."""
    lang = check_lang(lang)
    frame, hp, n = _one_state(surface, negative_hp, wounds)
    name = name_column(frame, "injury", lang)
    order = list(dict.fromkeys(frame[name]))
    wide = frame.pivot_table(index=name, columns="seconds", values="probability",
                             aggfunc="sum").reindex(order)
    ax = axes(ax, figsize=(7.0, 7.0))
    x = wide.columns.to_numpy()
    image = ax.imshow(wide.to_numpy(), aspect="auto", cmap="magma_r",
                      norm=matplotlib.colors.PowerNorm(0.5, vmin=0, vmax=1),
                      interpolation="nearest",
                      extent=(x.min() - 0.5, x.max() + 0.5, len(order) - 0.5, -0.5))
    ax.set_yticks(range(len(order)), order, fontsize=7)
    colorbar(ax, image, text("probability", lang))
    finish(ax, title=text("heatmap_title", lang, negative_hp=hp, wounds=n),
           xlabel=text("seconds", lang), legend=False)
    ax.grid(False)
    return ax


def d20_success(table: pd.DataFrame, *, ax: Axes | None = None, lang: str = "en", label: str | None = None):
    """Chance of success of a d20 Test against the characteristic C' (core rules, Tests).

    ``table``: ``balance.report.data.d20_table()`` (characteristic, success, ...).
    """
    lang = check_lang(lang)
    chance = table.groupby("characteristic", sort=True)["success"].first()
    ax = axes(ax)
    line, = ax.plot(chance.index, chance.to_numpy(), marker="o", markersize=3, color=PALETTE[0],
                    label=label)
    hover(line, [f"C' = {c}: {pct(p, 0, lang)}" for c, p in chance.items()], lang=lang)
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    ax.set_ylim(-0.02, 1.02)
    return finish(ax, title=text("d20_title", lang), xlabel=text("characteristic", lang),
                  ylabel=text("success_chance", lang), legend=label is not None)


def sp_distribution(table: pd.DataFrame, *, ax: Axes | None = None, lang: str = "en"):
    """Chance of at least ``y`` Success Points against the characteristic, as a heatmap: each
    column falls from the chance of success (at 0 S.P.) to nothing; failures are the rest of
    the column (core rules, Tests). (Each S.P. value of a success is equally likely, so the map of
    single values would be one flat colour: the cumulative chance is what varies.)"""
    lang = check_lang(lang)
    sp = table[table["points"] >= 0]
    wide = sp.pivot_table(index="points", columns="characteristic", values="probability",
                          aggfunc="sum").reindex(columns=sorted(table["characteristic"].unique()))
    wide = wide.sort_index().fillna(0.0)
    at_least = wide.iloc[::-1].cumsum().iloc[::-1]  # P(S.P. >= y), column by column
    at_least = at_least.where(at_least > 0)          # blank above the largest S.P. there is
    ax = axes(ax)
    x, y = at_least.columns.to_numpy(), at_least.index.to_numpy()
    image = ax.imshow(at_least.to_numpy(), origin="lower", aspect="auto", cmap="Blues",
                      vmin=0, vmax=1, interpolation="nearest",
                      extent=(x.min() - 0.5, x.max() + 0.5, y.min() - 0.5, y.max() + 0.5))
    colorbar(ax, image, words("sp_at_least", lang))
    for axis in (ax.xaxis, ax.yaxis):  # characteristic and S.P. are whole numbers
        axis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    finish(ax, title=words("sp_at_least_title", lang), xlabel=text("characteristic", lang),
           ylabel=text("success_points", lang), legend=False)
    ax.grid(False)
    return ax


def _level_name(level: str, lang: str, rules: Rules | None) -> str:
    from ..core.treatment import levels

    rows = levels(rules=rules)
    row = rows[rows["level"] == level]
    return row["level_fr"].iloc[0] if lang == "fr" and len(row) else level


def treatment_curves(cure_table: pd.DataFrame, *, level: str = "light", value: str = "chance",
                     ax: Axes | None = None, lang: str = "en", rules: Rules | None = None):
    """Treatment cure chance (``value="chance"``) or expected time in hours
    (``value="expected_hours"``, log scale, never-cured points left out) against Cunning, one
    curve per injury band (core rules, treating injuries). ``cure_table``: ``balance.treatment.cure_table()``."""
    lang = check_lang(lang)
    if value not in ("chance", "expected_hours"):
        raise ValueError(f"value must be 'chance' or 'expected_hours', got {value!r}")
    frame = cure_table[cure_table["level"] == level]
    if frame.empty:
        raise ValueError(f"level {level!r} not in the results (have "
                         f"{sorted(cure_table['level'].unique())})")
    ax = axes(ax)
    for i, (mod, curve) in enumerate(frame.groupby("modifier", sort=False)):
        curve = curve[np.isfinite(curve[value])].sort_values("cunning")
        line, = ax.plot(curve["cunning"], curve[value], marker="o", markersize=3,
                        color=band_line_colour(i, 5),
                        label=text("band", lang, modifier=int(cast(int, mod))))
        unit = value == "expected_hours"
        hover(line, [f"{text('cunning', lang)} {c}: " + (f"{decimal(v, 1, lang)} h" if unit
                     else pct(v, 0, lang)) for c, v in zip(curve["cunning"], curve[value])],
              lang=lang)
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))  # Cunning is whole
    if value == "expected_hours":
        ax.set_yscale("log")
        plain_log_ticks(ax.yaxis)
    else:
        ax.set_ylim(-0.02, 1.02)
    return finish(ax, title=text("treatment_title", lang, level=_level_name(level, lang, rules)),
                  xlabel=text("cunning", lang),
                  ylabel=text("cure_chance" if value == "chance" else "expected_hours", lang))


def negotiation_curves(table: pd.DataFrame, *, ax: Axes | None = None, lang: str = "en"):
    """Expected price change against the ask X, one curve per Psychology value, the best ask
    marked (core rules, negotiation). ``table``: ``balance.report.data.negotiation_table()``."""
    lang = check_lang(lang)
    ax = axes(ax)
    for i, (psy, curve) in enumerate(table.groupby("psychology", sort=True)):
        curve = curve.sort_values("ask")
        colour = PALETTE[i % len(PALETTE)]
        ax.plot(curve["ask"], curve["expected_change"], color=colour,
                label=text("psychology", lang, value=psy))
        best = curve[curve["best"]]
        ax.plot(best["ask"], best["expected_change"], marker="*", markersize=12, color=colour,
                linestyle="none")
        for _, row in best.iterrows():
            ax.annotate(f"{text('best_ask', lang)} X={row['ask']:g}",
                        (row["ask"], row["expected_change"]), xytext=(4, 6),
                        textcoords="offset points", fontsize=8, color=colour)
    ax.set_ylim(bottom=0)
    return finish(ax, title=text("negotiation_title", lang), xlabel=text("ask", lang),
                  ylabel=text("expected_change", lang))


def negotiation_rules(table: pd.DataFrame, *, ax: Axes | None = None, lang: str = "en"):
    """The Psychology rule (core rules, best ask) against the GM guide's Charisma rule:
    expected price reduction against the chance that the check succeeds, each point labelled
    with its characteristic or modifier (core rules, negotiation; GM guide, economy).
    ``table``: ``balance.report.data.negotiation_rules_table()``."""
    lang = check_lang(lang)
    ax = axes(ax)
    for i, rule in enumerate(("psychology", "charisma")):
        part = table[table["rule"] == rule].sort_values("check_chance")
        if part.empty:
            continue
        colour = PALETTE[i]
        ax.plot(part["check_chance"], part["expected_change"], marker="o", markersize=3,
                color=colour, label=text(f"{rule}_rule", lang))
        step = max(1, len(part) // 6)
        for _, row in part.iloc[::step].iterrows():
            tag = f"{row['value']:+d}" if rule == "charisma" else f"{row['value']}"
            ax.annotate(tag, (row["check_chance"], row["expected_change"]), fontsize=7,
                        color=colour, xytext=(3, -9 if rule == "charisma" else 4),
                        textcoords="offset points")
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(bottom=0)
    return finish(ax, title=text("compare_title", lang), xlabel=text("check_chance", lang),
                  ylabel=text("expected_change", lang), legend_loc="lower right")


def mc_check(simulated: pd.DataFrame, exact: pd.DataFrame, *, ax: Axes | None = None, lang: str = "en"):
    """A Monte Carlo twin against its exact answer: simulated estimates with their 95 %
    intervals (error bars) and the exact values (crosses), one point per outcome row.

    ``simulated``: a ``Simulation.table`` (probability, ci_low, ci_high, and a name column);
    ``exact``: the exact table with the same rows (probability).
    """
    lang = check_lang(lang)
    name = pick_column(simulated, [name_column(simulated, "injury", lang), "outcome", "points"],
                       "mc_check")
    est = pick_column(simulated, ["probability", "estimate"], "mc_check")
    x = np.arange(len(simulated))
    ax = axes(ax, figsize=(7.0, 4.6))
    yerr = np.vstack([simulated[est] - simulated["ci_low"], simulated["ci_high"] - simulated[est]])
    bars = ax.errorbar(x, simulated[est], yerr=np.clip(yerr, 0, None), fmt="o", markersize=3,
                       color=PALETTE[0], capsize=2, label=f"{text('simulated', lang)} "
                       f"({text('interval', lang)})")
    hover(bars.lines[0], [f"{n}: {pct(p, 2, lang)} ({pct(lo, 2, lang)} – {pct(hi, 2, lang)})"
                          for n, p, lo, hi in zip(simulated[name].astype(str), simulated[est],
                                                  simulated["ci_low"], simulated["ci_high"])],
          lang=lang)
    ax.plot(x, exact["probability"].to_numpy(), "x", color=PALETTE[1], label=text("exact", lang))
    ax.set_xticks(x, simulated[name].astype(str), rotation=90, fontsize=6)
    band_note(ax, simulated["ci_high"] - simulated["ci_low"], lang, markers=True)
    return finish(ax, title=text("mc_check_title", lang), ylabel=text("probability", lang))


def compare_death_curves(first: pd.DataFrame, second: pd.DataFrame, *,
                         names: tuple[str, str] = ("A", "B"), ax: Axes | None = None, lang: str = "en",
                         rules: Rules | None = None, **select):
    """Two rule sets' death curves on one axes: ``first`` solid, ``second`` dashed, the same
    colour per wound count (e.g. the bundled rules and a variant; core rules,
    dying and critical injuries). ``select``
    (``negative_hp=``, ``wounds=``) picks the curves; ``rules`` places the wall."""
    ax = death_curves(first, ax=ax, lang=lang, rules=rules, linestyle="-",
                      label=f"{names[0]}: ", **select)
    return death_curves(second, ax=ax, lang=lang, rules=rules, linestyle="--",
                        label=f"{names[1]}: ", **select)
