"""Plots of the percentile rules: tiers against skill for each grade, opposed
rolls, duels, derived attributes. Names of tiers and grades come from the rules in ``lang``."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..rules import Rules, resolve
from ._style import PALETTE, axes, band_note, check_lang, colorbar, finish, label, text
from .intervals import interval_curves

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["tier_curves", "grade_curves", "opposed_heatmap", "duel_gap",
           "attribute_distribution"]


def _names(rules: Rules | None, table: str, lang: str) -> dict[str, str]:
    rows = resolve(rules)["percentile"][table]
    rows = rows["table"] if hasattr(rows, "keys") and "table" in rows else rows
    return {r.get("key", r["en"]): label(r, lang) for r in rows}


def grade_curves(tier_table: pd.DataFrame, *, ax: Axes | None = None, lang: str = "en",
                 rules: Rules | None = None):
    """Chance of success or critical against skill, one curve per difficulty grade
    (percentile rules, skill roll and difficulty grades).
    ``tier_table``: ``balance.percentile.tier_table()``."""
    lang = check_lang(lang)
    grades = _grade_names(rules, lang)
    ok = tier_table[tier_table["tier"].isin(["success", "critical"])]
    wide = ok.pivot_table(index="skill", columns="grade", values="probability", aggfunc="sum",
                          sort=False)
    ax = axes(ax)
    for i, grade in enumerate(g for g in grades if g in wide.columns):
        ax.plot(wide.index, wide[grade], color=PALETTE[i % len(PALETTE)], label=grades[grade])
    ax.set_ylim(-0.02, 1.02)
    return finish(ax, title=text("grades_title", lang), xlabel=text("skill", lang),
                  ylabel=text("success_or_better", lang), legend_outside=True)


def _grade_names(rules, lang) -> dict[str, str]:
    rows = resolve(rules)["percentile"]["grades"]
    rows = rows["table"] if hasattr(rows, "keys") else rows
    return {r["en"]: label(r, lang) for r in rows}


def tier_curves(tier_table: pd.DataFrame, *, grade: str = "Standard", ax: Axes | None = None,
                lang: str = "en", rules: Rules | None = None):
    """Probabilities of the four tiers (fumble, failure, success, critical) against skill for
    one grade, as stacked areas (percentile rules, skill roll)."""
    lang = check_lang(lang)
    frame = tier_table[tier_table["grade"] == grade]
    if frame.empty:
        raise ValueError(f"grade {grade!r} not in the results (have "
                         f"{list(tier_table['grade'].unique())})")
    names = _names(rules, "tiers", lang)
    wide = frame.pivot_table(index="skill", columns="tier", values="probability",
                             aggfunc="sum")
    order = [k for k in names if k in wide.columns]
    colours = ["#252525", "#d7301f", "#74a9cf", "#0570b0"]
    ax = axes(ax)
    ax.stackplot(wide.index.to_numpy(), wide[order].to_numpy().T,
                 labels=[names[k] for k in order], colors=colours[:len(order)], alpha=0.9)
    ax.set_xlim(wide.index.min(), wide.index.max())
    ax.set_ylim(0, 1)
    return finish(ax, title=text("tiers_title", lang, grade=_grade_names(rules, lang)[grade]),
                  xlabel=text("skill", lang), ylabel=text("probability", lang),
                  legend_outside=True)


def opposed_heatmap(table: pd.DataFrame, *, ax: Axes | None = None, lang: str = "en"):
    """Chance that the first side wins an opposed roll, over both skills (percentile rules,
    opposed rolls).
    ``table``: ``balance.report.data.opposed_table()`` (first, second, first_wins...)."""
    lang = check_lang(lang)
    wide = table.pivot_table(index="first", columns="second", values="first_wins")
    ax = axes(ax, figsize=(6.0, 5.0))
    x, y = wide.columns.to_numpy(), wide.index.to_numpy()
    dx = (x[1] - x[0]) / 2 if x.size > 1 else 0.5
    dy = (y[1] - y[0]) / 2 if y.size > 1 else 0.5
    image = ax.imshow(wide.to_numpy(), origin="lower", aspect="auto", cmap="RdBu", vmin=0,
                      vmax=1, interpolation="nearest",
                      extent=(x.min() - dx, x.max() + dx, y.min() - dy, y.max() + dy))
    contour = ax.contour(x, y, wide.to_numpy(), levels=[0.25, 0.5, 0.75], colors="black",
                         linewidths=0.7)
    ax.clabel(contour, fontsize=7)
    colorbar(ax, image, text("first_wins", lang))
    finish(ax, title=text("opposed_title", lang), xlabel=text("second_skill", lang),
           ylabel=text("first_skill", lang), legend=False)
    ax.grid(False)
    return ax


def duel_gap(table: pd.DataFrame, *, ax: Axes | None = None, lang: str = "en"):
    """Duel win probability of the first fighter against the skill gap, one curve per
    opponent skill, with 95 % bands (percentile rules, combat). ``table``: ``balance.percentile.duel_table()``."""
    lang = check_lang(lang)
    frame = table.assign(gap=table["first_skill"] - table["second_skill"])
    ax = interval_curves(frame, "gap", y="first_wins", group="second_skill",
                         group_label="opponent", ax=ax, lang=lang)
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
    ax.axvline(0, color="grey", linewidth=0.8, linestyle=":")
    ax.set_ylim(-0.02, 1.02)
    band_note(ax, frame["ci_high"] - frame["ci_low"], lang)
    return finish(ax, title=text("duel_title", lang), xlabel=text("skill_gap", lang),
                  ylabel=text("first_wins", lang), legend_outside=True)


def attribute_distribution(distribution: pd.Series, *, ax: Axes | None = None, lang: str = "en",
                           attribute: str | None = None, title: str | None = None):
    """Bar chart of an exact distribution (value -> probability), e.g.
    ``balance.percentile.human_distribution("action_points")`` (percentile rules, derived attributes)."""
    lang = check_lang(lang)
    attribute = attribute or str(distribution.index.name or "")
    try:
        name = text(f"attr_{attribute}", lang)
    except KeyError:
        name = attribute
    ax = axes(ax, figsize=(4.5, 3.2))
    x = np.arange(len(distribution))
    ax.bar(x, distribution.to_numpy(), color=PALETTE[0], width=0.8)
    labels = [str(v) for v in distribution.index]
    step = max(1, len(labels) // 12)
    ax.set_xticks(x[::step], labels[::step], fontsize=7)
    return finish(ax, title=title or text("attribute_title", lang, attribute=name),
                  ylabel=text("probability", lang), legend=False)
