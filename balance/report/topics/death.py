"""Section: death on stabilisation or healing against seconds at negative HP (core rules, dying and critical injuries)."""
from __future__ import annotations

import pandas as pd

from ... import plots
from ...rules import Rules
from .. import data
from ..model import Table, figure_from_axes
from ._base import Context, fmt_prob, make_section

KEY = "death"
REQUIRES = ("balance.core.injuries",)
RULES_SECTIONS = ("injuries",)
NEGATIVE_HP = (1, 5, 10)
WOUNDS = (0, 1, 2, 3)
TABLE_SECONDS = (0, 10, 20, 30, 40, 60, 90, 120)


def compute(rules: Rules, settings) -> dict:
    wall = rules["injuries"]["automatic_death_seconds"]
    surface = data.death_surface(negative_hp=NEGATIVE_HP, wounds=WOUNDS, rules=rules)
    seconds = [s for s in TABLE_SECONDS if s < wall] + [wall - 1]
    grid = data.death_surface(seconds, NEGATIVE_HP, WOUNDS, rules=rules)
    return {"surface": surface[surface["modifier"].isna()], "grid": grid[grid["modifier"].isna()]}


def render(results: dict, ctx: Context):
    wall = ctx.rules["injuries"]["automatic_death_seconds"]
    ax = plots.death_curves(results["surface"], lang=ctx.lang, wall=wall)
    fig = figure_from_axes(f"{KEY}_curves", ax, ctx.t("death_title"), lang=ctx.lang)
    grid = results["grid"]
    wide = grid.pivot_table(index=["wounds", "negative_hp"], columns="seconds",
                            values="probability").map(lambda p: fmt_prob(p, lang=ctx.lang))
    wide.index.names = [ctx.t("wounds"), ctx.t("negative_hp")]
    wide.columns = pd.Index([f"{s} s" for s in wide.columns], name=ctx.t("seconds"))
    return make_section(ctx, KEY, title="sec_death", text_key="sec_death_text",
                        text_fields={"seconds": wall}, rules_sections=RULES_SECTIONS,
                        figures=(fig,), tables=(Table(f"{KEY}_table", wide),))
