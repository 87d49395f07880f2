"""Section: dying and rescue, death against rescue time with its band (core rules, dying and critical injuries / treating injuries / time and Reactions)."""
from __future__ import annotations

from typing import Any

import pandas as pd

from ... import plots
from ...core import rescue
from ...rules import Rules
from ..model import Table, figure_from_axes
from ._base import Context, fmt_interval, fmt_prob, make_section

KEY = "rescue"
REQUIRES = ("balance.core.rescue", "balance.montecarlo")
RULES_SECTIONS = ("injuries", "time")
#: rescue times of the curve: every TIME_STEP seconds up to the automatic-death time
TIME_STEP = 5
#: at most this many steps up to the automatic death (35 with the core rules' 175 s)
CURVE_POINTS = 35
CURVE: dict[str, Any] = {"negative_hp": "1d6", "wounds": (0, 1, 2, 3)}
SCENARIO: dict[str, Any] = {"arrival": "10+1d20", "negative_hp": "1d6", "wounds": (0, 1, 2, 3), "action_ap": 1}


def compute(rules: Rules, settings) -> dict:
    run: dict[str, Any] = {"trials": settings.trials, "seed": settings.seed, "workers": settings.workers,
           "progress": False, "rules": rules}
    wall = rules["injuries"]["automatic_death_seconds"]
    step = max(TIME_STEP, -(-wall // CURVE_POINTS))  # a late automatic death: coarser steps
    return {"curve": rescue.curve(times=range(0, wall + 1, step), **CURVE, **run),
            "scenario": rescue.simulate(**SCENARIO, **run)}


def render(results: dict, ctx: Context):
    wall = ctx.rules["injuries"]["automatic_death_seconds"]
    curve = results["curve"]
    ax = plots.rescue_curves(curve, lang=ctx.lang, wall=wall)
    cap = ctx.t("rescue_caption", title=ctx.t("rescue_title"), negative_hp=CURVE["negative_hp"])
    sim = results["scenario"]
    death = sim.extra["death"]
    kinds = {"roll": ctx.t("death_roll"), "automatic": ctx.t("death_automatic", seconds=wall),
             "total": ctx.t("death_total")}
    shown = pd.DataFrame({
        ctx.t("wounds"): death["wounds"], ctx.t("death_kind"): death["death"].map(kinds),
        ctx.t("exact"): death["exact"].map(lambda p: fmt_prob(p, 2, lang=ctx.lang)),
        ctx.t("col_estimate"): death["probability"].map(lambda p: fmt_prob(p, 2, lang=ctx.lang)),
        ctx.t("col_ci"): [fmt_interval(a, b, lang=ctx.lang)
                          for a, b in zip(death["ci_low"], death["ci_high"])]})
    scenario = ctx.t("rescue_scenario", arrival=SCENARIO["arrival"],
                     negative_hp=SCENARIO["negative_hp"], ap=SCENARIO["action_ap"])
    return make_section(ctx, KEY, title="sec_rescue", text_key="sec_rescue_text",
                        rules_sections=RULES_SECTIONS, simulated=[sim],
                        figures=(figure_from_axes(f"{KEY}_curve", ax, cap, lang=ctx.lang),),
                        tables=(Table(f"{KEY}_scenario", shown,
                                      ctx.t("scenario", scenario=scenario)),))
