"""Section: rest and regeneration, quick scores over a day and the document's examples
(core rules, rest)."""
from __future__ import annotations

import pandas as pd

from ... import plots
from ...rules import Rules
from .. import data
from ...labels import name_column
from ..model import Table, figure_from_axes
from ._base import Context, make_section

KEY = "rest"
REQUIRES = ("balance.core.rest",)
RULES_SECTIONS = ("rest",)
#: lengths of rest shown in the table (hours)
TABLE_HOURS = (4, 8, 12, 16, 24)
#: the document's two examples (core rules, rest): the forest, and the interrupted cave
EXAMPLES = {
    "example_forest": [dict(hours=8, thirst="enough", hunger="satiated", sleep_hours=6,
                            comfort=1)],
    "example_cave": [dict(hours=3, thirst="enough", hunger="fresh", sleep_hours=2, comfort=1),
                     dict(hours=5, thirst="enough", hunger="fresh", sleep_hours=3, comfort=0)],
}


def compute(rules: Rules, settings) -> dict:
    return {"day": data.rest_day(rules=rules), "examples": data.rest_breakdown(EXAMPLES,
                                                                                rules=rules)}


def render(results: dict, ctx: Context):
    rest = ctx.rules["rest"]
    day = results["day"]
    ax = plots.rest_regeneration(day, lang=ctx.lang, rules=ctx.rules)
    figure = figure_from_axes(f"{KEY}_day", ax, ctx.t("rest_title"), lang=ctx.lang)
    name = name_column(day, "quality", ctx.lang)
    shown = day[day["hours"].isin(TABLE_HOURS)].pivot_table(
        index=[name, "score"], columns="hours", values="regeneration", aggfunc="first",
        sort=False)
    shown.index.names = [ctx.t("col_quality"), ctx.t("col_score")]
    shown.columns = pd.Index([ctx.t("after_hours", hours=h) for h in shown.columns],
                             name=ctx.t("rest_hours"))
    ex = results["examples"]
    cols = {"example": "col_example", "segment": "col_segment", "hours": "col_hours",
            "thirst": "col_thirst", "hunger": "col_hunger", "sleep": "col_sleep",
            "comfort": "col_comfort", "modifiers": "col_modifiers", "score": "col_score",
            "counted_hours": "col_counted", "regeneration": "col_regeneration"}
    examples = ex.assign(example=ex["example"].map(ctx.t))[list(cols)].rename(
        columns={k: ctx.t(v) for k, v in cols.items()})
    return make_section(ctx, KEY, title="sec_rest", text_key="sec_rest_text",
                        text_fields={"hours": rest["max_hours_per_day"],
                                     "window": rest["window_hours"]},
                        rules_sections=RULES_SECTIONS, figures=(figure,),
                        tables=(Table(f"{KEY}_quick", shown, ctx.t("rest_quick_table")),
                                Table(f"{KEY}_examples", examples,
                                      ctx.t("rest_examples_table"))))
