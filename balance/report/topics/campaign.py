"""Section: campaign wound burden over fights (core rules, dying and critical injuries / treating injuries)."""
from __future__ import annotations

from typing import Any, cast

import pandas as pd
from matplotlib.figure import Figure

from ...core import campaign
from ... import plots
from ...rules import Rules
from ..model import Table, figure_from_axes
from ._base import Context, fmt_interval, fmt_prob, make_section

KEY = "campaign"
REQUIRES = ("balance.core.campaign", "balance.montecarlo")
RULES_SECTIONS = ("injuries", "treatment", "time")
SCENARIO: dict[str, Any] = {"fights": 10, "knockout_chance": 0.3, "negative_hp": "1d6", "arrival": "10+1d20",
            "cunning": 12, "hours_between": 24, "policy": "both"}


def compute(rules: Rules, settings) -> dict:
    return {"campaign": campaign.simulate(**SCENARIO, trials=settings.trials, seed=settings.seed,
                                          workers=settings.workers, progress=False, rules=rules)}


def render(results: dict, ctx: Context):
    sim = results["campaign"]
    fig = Figure(figsize=(10, 7.4), layout="constrained")
    top, bottom = cast(Any, fig.subfigures(2, 1))  # an array of two subfigures
    left, right = top.subplots(1, 2)
    plots.campaign_deaths(sim, ax=left, lang=ctx.lang)
    plots.knockout_risk(sim, ax=right, lang=ctx.lang)
    plots.wound_burden(sim, ax=bottom.subplots(), lang=ctx.lang)
    risk = sim.extra["knockout_risk"]
    shown = pd.DataFrame({
        ctx.t("wounds_carried"): risk["wounds_carried"], ctx.t("trials"): risk["trials"],
        ctx.t("col_estimate"): risk["probability"].map(lambda p: fmt_prob(p, 2, lang=ctx.lang)),
        ctx.t("col_ci"): [fmt_interval(a, b, lang=ctx.lang)
                          for a, b in zip(risk["ci_low"], risk["ci_high"])]})
    s = SCENARIO
    scenario = ctx.t("campaign_scenario", fights=s["fights"], knockout=s["knockout_chance"],
                     negative_hp=s["negative_hp"], arrival=s["arrival"], cunning=s["cunning"],
                     hours=s["hours_between"], policy=ctx.t(f"policy_{s['policy']}"))
    return make_section(ctx, KEY, title="sec_campaign", text_key="sec_campaign_text",
                        rules_sections=RULES_SECTIONS, simulated=[sim],
                        figures=(figure_from_axes(f"{KEY}_burden", left, scenario, lang=ctx.lang),),
                        tables=(Table(f"{KEY}_knockout_risk", shown,
                                      ctx.t("knockout_risk_title")),))
