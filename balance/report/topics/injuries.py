"""Section: what the critical-injury roll leaves, by severity band and the whole table
(core rules, dying and critical injuries)."""
from __future__ import annotations

from ... import plots
from ...core.injuries import injury_table
from ...rules import Rules
from .. import data
from ...labels import name_column
from ..model import Table, figure_from_axes
from ._base import Context, make_section

KEY = "injuries"
REQUIRES = ("balance.core.injuries",)
RULES_SECTIONS = ("injuries",)
NEGATIVE_HP = 5
WOUNDS = (0, 1)


def compute(rules: Rules, settings) -> dict:
    surface = data.death_surface(negative_hp=[NEGATIVE_HP], wounds=WOUNDS, rules=rules)
    return {"surface": surface, "table": injury_table(rules=rules)}


def render(results: dict, ctx: Context):
    surface = results["surface"]
    figures = []
    for n in WOUNDS:
        ax = plots.injury_bands(surface, negative_hp=NEGATIVE_HP, wounds=n, lang=ctx.lang)
        figures.append(figure_from_axes(f"{KEY}_bands_{n}", ax, ax.get_title("left"), lang=ctx.lang))
    ax = plots.injury_heatmap(surface, negative_hp=NEGATIVE_HP, wounds=WOUNDS[0], lang=ctx.lang)
    figures.append(figure_from_axes(f"{KEY}_heatmap", ax, ax.get_title("left"), lang=ctx.lang))
    table = results["table"]
    name = name_column(table, "injury", ctx.lang)
    shown = table[["low", "high", "modifier", name]].rename(
        columns={"low": ctx.t("col_roll_low"), "high": ctx.t("col_roll_high"),
                 "modifier": ctx.t("col_modifier"), name: ctx.t("injury")})
    return make_section(ctx, KEY, title="sec_injuries", text_key="sec_injuries_text",
                        rules_sections=RULES_SECTIONS, figures=tuple(figures),
                        tables=(Table(f"{KEY}_table", shown),))
