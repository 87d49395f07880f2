"""Section: the Psychology rule against the GM guide's Charisma rule (core rules, negotiation; GM guide, economy)."""
from __future__ import annotations

import pandas as pd

from ... import plots
from ...rules import Rules
from .. import data
from ...labels import decimal
from ..model import Table, figure_from_axes
from ._base import Context, fmt_percent, fmt_prob, make_section

KEY = "negotiation_rules"
REQUIRES = ("balance.guide.economy", "balance.core.negotiation")
RULES_SECTIONS = ("negotiation", "economy", "guide")
PRICE = 200
DIFFICULTY = 14


def compute(rules: Rules, settings) -> dict:
    return {"table": data.negotiation_rules_table(price=PRICE, difficulty=DIFFICULTY,
                                                  rules=rules)}


def render(results: dict, ctx: Context):
    table = results["table"]
    ax = plots.negotiation_rules(table, lang=ctx.lang)
    names = {"psychology": ctx.t("psychology_rule"), "charisma": ctx.t("charisma_rule")}
    lang = ctx.lang
    shown = pd.DataFrame({
        ctx.t("col_rule"): table["rule"].map(names),
        ctx.t("col_value_rule"): table["value"],
        ctx.t("check_chance"): table["check_chance"].map(lambda p: fmt_prob(p, 0, lang=lang)),
        ctx.t("expected_change"): table["expected_change"].map(lambda x: fmt_percent(x, lang=lang)),
        ctx.t("col_best_ask"): table["best_ask"].map(
            lambda a: "" if pd.isna(a) else decimal(a, lang=lang))})
    buying = ctx.rules["economy"]["negotiation"]
    return make_section(ctx, KEY, title="sec_negotiation_rules",
                        text_key="sec_negotiation_rules_text",
                        text_fields={"difficulty": DIFFICULTY, "price": PRICE,
                                     "currency": ctx.rules["economy"]["currency"],
                                     "success": buying["buy_success_percent"],
                                     "critical": buying["buy_critical_percent"],
                                     "critical_face": ctx.rules["guide"]["checks"][
                                         "critical_success"]},
                        rules_sections=RULES_SECTIONS,
                        figures=(figure_from_axes(f"{KEY}_compare", ax, ctx.t("compare_title"), lang=ctx.lang),),
                        tables=(Table(f"{KEY}_table", shown),))
