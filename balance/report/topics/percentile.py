"""Section: percentile skills, exact (percentile rules, skill roll / characteristics and derived attributes): tiers by grade, opposed rolls,
derived attributes of rolled humans."""
from __future__ import annotations

from matplotlib.figure import Figure

from ... import percentile, plots
from ...rules import Rules
from .. import data
from ..model import figure_from_axes
from ._base import Context, make_section

KEY = "percentile"
REQUIRES = ("balance.percentile",)
RULES_SECTIONS = ("percentile",)
ATTRIBUTES = ("action_points", "damage_modifier", "healing_rate", "initiative_bonus",
              "experience_modifier", "luck_points")


def compute(rules: Rules, settings) -> dict:
    return {"tiers": percentile.tier_table(range(1, 201), rules=rules),
            "opposed": data.opposed_table(range(5, 101, 5), rules=rules),
            "attributes": {a: percentile.human_distribution(a, rules=rules) for a in ATTRIBUTES}}


def render(results: dict, ctx: Context):
    fig = Figure(figsize=(10, 7.6), layout="constrained")
    axs = fig.subplots(2, 2)
    plots.grade_curves(results["tiers"], ax=axs[0, 0], lang=ctx.lang, rules=ctx.rules)
    plots.tier_curves(results["tiers"], ax=axs[0, 1], lang=ctx.lang, rules=ctx.rules)
    plots.opposed_heatmap(results["opposed"], ax=axs[1, 0], lang=ctx.lang)
    plots.tier_curves(results["tiers"], grade="Hard", ax=axs[1, 1], lang=ctx.lang,
                      rules=ctx.rules)
    skills = figure_from_axes(f"{KEY}_skills", axs[0, 0], ctx.t("sec_percentile"), lang=ctx.lang)
    fig = Figure(figsize=(10, 5.4), layout="constrained")
    for ax, (name, dist) in zip(fig.subplots(2, 3).flat, results["attributes"].items()):
        plots.attribute_distribution(dist, ax=ax, lang=ctx.lang, attribute=name,
                                     title=ctx.t(f"attr_{name}"))
    attrs = figure_from_axes(f"{KEY}_attributes", ax, ctx.t("rolled_humans"), lang=ctx.lang)
    return make_section(ctx, KEY, title="sec_percentile", text_key="sec_percentile_text",
                        rules_sections=RULES_SECTIONS, figures=(skills, attrs))
