"""Section: negotiation by Psychology, expected change against the ask (core rules, negotiation)."""
from __future__ import annotations

from ... import plots
from ...names import label
from ...rules import Rules
from .. import data
from ...labels import decimal
from ..model import Table, figure_from_axes
from ._base import Context, fmt_percent, fmt_prob, make_section

KEY = "negotiation"
REQUIRES = ("balance.core.negotiation",)
RULES_SECTIONS = ("negotiation", "d20")
CURVES = (8, 12, 16)
TABLE = tuple(range(4, 21, 2))


def compute(rules: Rules, settings) -> dict:
    return {"curves": data.negotiation_table(CURVES, rules=rules),
            "best": data.negotiation_table(TABLE, asks=[1], rules=rules).query("best")}


def render(results: dict, ctx: Context):
    ax = plots.negotiation_curves(results["curves"], lang=ctx.lang)
    best = results["best"][["psychology", "ask", "unchanged", "partial", "full",
                            "expected_change"]].copy()
    for col in ("unchanged", "partial", "full"):
        best[col] = best[col].map(lambda p: fmt_prob(p, 0, lang=ctx.lang))
    best["expected_change"] = best["expected_change"].map(lambda x: fmt_percent(x, lang=ctx.lang))
    best["ask"] = best["ask"].map(lambda a: decimal(a, lang=ctx.lang))
    outcomes = {k: label(row, ctx.lang)
                for k, row in ctx.rules["negotiation"]["outcomes"].items()}
    best = best.rename(columns={"psychology": ctx.t("col_psychology"),
                                "ask": ctx.t("col_best_ask"), **outcomes,
                                "expected_change": ctx.t("expected_change")})
    neg = ctx.rules["negotiation"]
    return make_section(ctx, KEY, title="sec_negotiation", text_key="sec_negotiation_text",
                        text_fields={"partial": neg["partial_divisor"],
                                     "full": neg["full_divisor"]}, rules_sections=RULES_SECTIONS,
                        figures=(figure_from_axes(f"{KEY}_curves", ax, ctx.t("negotiation_title"), lang=ctx.lang),),
                        tables=(Table(f"{KEY}_best", best.reset_index(drop=True)),))
