"""Section (opt-in): proposed adversity ratios, fitted to simulated fights and checked on
held-out families (GM guide, adversity ratio and calibration; ``bl.encounters.recalibrate``).

Not in the default report: it simulates about 94 encounters (a few seconds), so it runs only
when asked for (``balance report --sections recalibration``, or ``topics=[...]``); see
:data:`balance.report.topics.OPT_IN`.
"""
from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
from matplotlib.figure import Figure

from ...guide.recalibration import recalibrate
from ...rules import Rules
from ..model import Table, figure_from_axes
from ._base import Context, make_section

KEY = "recalibration"
REQUIRES = ("balance.guide.recalibration",)
RULES_SECTIONS = ("encounters", "fights", "bestiary", "party")
LEVEL = 5


def fight_trials(settings) -> int:
    """Fights per encounter: a two-thousand-five-hundredth of the report's trials (>= 400)."""
    return max(400, settings.trials // 2500)


def compute(rules: Rules, settings) -> dict:
    rec = recalibrate(levels=(LEVEL,), trials=fight_trials(settings), seed=settings.seed,
                      workers=settings.workers, rules=rules)
    return {"recalibration": rec}


def render(results: dict, ctx: Context):
    rec = results["recalibration"]
    ratios = pd.DataFrame({
        ctx.t("col_creature"): rec.ratios["creature"],
        ctx.t("col_guide_ratio"): rec.ratios["guide_ratio"].map(str),
        ctx.t("col_proposed_ratio"): rec.ratios["proposed_ratio"].map(str)})
    check = rec.check[rec.check["level"] == "all"]
    shown = pd.DataFrame({
        ctx.t("col_split"): check["split"],
        ctx.t("col_encounters"): check["encounters"],
        "RMSE": [f"{a:.3f} -> {b:.3f}" for a, b in zip(check["rmse_before"],
                                                         check["rmse_after"])],
        ctx.t("col_reversals"): [f"{a} -> {b}" for a, b in zip(check["reversals_before"],
                                                               check["reversals_after"])],
        ctx.t("col_spread"): [f"{a:.2f} -> {b:.2f}" for a, b in zip(
            check["widest_spread_before"], check["widest_spread_after"])]})
    fig = Figure(figsize=(7, 4.2), layout="constrained")
    ax = fig.subplots()
    held = rec.table[rec.table["split"] == "held-out"]
    ax.plot([0, 1], [0, 1], color="black", lw=1, ls="--")
    ax.scatter(held["predicted_before"], held["party_win_rate"], s=14, label=ctx.t("col_before"))
    ax.scatter(held["predicted_after"], held["party_win_rate"], s=14, label=ctx.t("col_after"))
    ax.set_xlabel(ctx.t("recalibration_predicted"))
    ax.set_ylabel(ctx.t("party_win_rate"))
    ax.legend()
    run = SimpleNamespace(trials=rec.trials, seed=rec.seed)
    row = rec.held_out()
    return make_section(ctx, KEY, title="sec_recalibration", text_key="sec_recalibration_text",
                        text_fields={"before": f"{row['rmse_before']:.2f}",
                                     "after": f"{row['rmse_after']:.2f}"},
                        rules_sections=RULES_SECTIONS, simulated=[run],
                        figures=(figure_from_axes(f"{KEY}_held_out", ax,
                                                  ctx.t("recalibration_title", level=LEVEL),
                                                  lang=ctx.lang),),
                        tables=(Table(f"{KEY}_ratios", ratios), Table(f"{KEY}_check", shown)))
