"""Section: d20 Tests, success chance and S.P. distribution (core rules, Tests)."""
from __future__ import annotations

from matplotlib.figure import Figure

from ... import plots
from ...rules import Rules
from .. import data
from ..model import figure_from_axes
from ._base import Context, make_section

KEY = "d20"
REQUIRES = ("balance.core.d20",)
RULES_SECTIONS = ("d20",)


def compute(rules: Rules, settings) -> dict:
    return {"table": data.d20_table(rules=rules)}


def render(results: dict, ctx: Context):
    fig = Figure(figsize=(10, 3.8), layout="constrained")
    left, right = fig.subplots(1, 2)
    plots.d20_success(results["table"], ax=left, lang=ctx.lang)
    plots.sp_distribution(results["table"], ax=right, lang=ctx.lang)
    return make_section(ctx, KEY, title="sec_d20", text_key="sec_d20_text",
                        text_fields={"die": ctx.rules["d20"]["die"]}, rules_sections=RULES_SECTIONS,
                        figures=(figure_from_axes(f"{KEY}_tests", left, ctx.t("d20_title"), lang=ctx.lang),))
