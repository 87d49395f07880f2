"""Section: Reactions under their cooldown, and a Complex Action on the timeline
(core rules, time and Reactions)."""
from __future__ import annotations

from typing import Any

import pandas as pd

from ... import plots
from ...core import timeline
from ...rules import Rules
from .. import data
from ..model import Table, figure_from_axes
from ._base import Context, fmt_prob, make_section

KEY = "timeline"
REQUIRES = ("balance.core.timeline",)
RULES_SECTIONS = ("time",)
COOLDOWNS = range(0, 11)
#: a trigger every second for a minute (the metric ``time.reactions@60s`` uses the same stream)
TRIGGERS = range(0, 60)
#: the Complex Action example: who charges what beside whom, and when the Reaction is offered
EXAMPLE: dict[str, Any] = {"caster": "Calliope", "action": "spell", "cost": 5, "foe": "Goblin", "trigger": 2}


def compute(rules: Rules, settings) -> dict:
    e = EXAMPLE
    log = timeline.simulate([
        timeline.start(0, e["caster"], e["action"], e["cost"], complex=True,
                       provokes=[e["foe"]]),
        timeline.trigger(e["trigger"], e["caster"], source="trigger")], rules=rules)
    return {"grid": data.reaction_grid(COOLDOWNS, TRIGGERS, rules=rules), "log": log}


def render(results: dict, ctx: Context):
    time = ctx.rules["time"]
    cooldown = time["opportunity_attack_cooldown"]
    grid = results["grid"]
    ax = plots.reaction_grid(grid, lang=ctx.lang, highlight=cooldown)
    figure = figure_from_axes(f"{KEY}_reactions", ax, ctx.t("reaction_title"), lang=ctx.lang)
    counts = grid.groupby("cooldown", sort=True)["answered"].agg(["sum", "size"])
    answered = pd.DataFrame({
        ctx.t("col_cooldown"): counts.index.to_numpy(),
        ctx.t("col_answered"): [f"{a} / {n}" for a, n in zip(counts["sum"], counts["size"])],
        ctx.t("col_share"): [fmt_prob(a / n, 0, lang=ctx.lang)
                             for a, n in zip(counts["sum"], counts["size"])]})
    log = results["log"]
    log = log[log["event"] != "charge"] if len(log) > 12 else log
    event = log["event"].map(lambda e: ctx.t(f"event_{e}"))
    charge = [f"{c} / {k}" if pd.notna(c) else "" for c, k in zip(log["charge"], log["cost"])]
    shown = pd.DataFrame({
        ctx.t("col_second"): log["second"].to_numpy(), ctx.t("col_creature"): log["creature"].replace(
            EXAMPLE["foe"], ctx.t("example_foe")),
        ctx.t("col_event"): event,
        ctx.t("col_action"): log["action"].map({EXAMPLE["action"]: ctx.t("example_action")}
                                               ).fillna(""),
        ctx.t("col_reaction"): log["reaction"].map({timeline.OPPORTUNITY_ATTACK:
                                                    ctx.t("rules_cooldown")}).fillna(""),
        ctx.t("col_charge"): charge,
        ctx.t("col_ready"): log["ready_at"].map(lambda r: "" if pd.isna(r) else str(r))})
    e = EXAMPLE
    return make_section(ctx, KEY, title="sec_timeline", text_key="sec_timeline_text",
                        text_fields={"rate": time["ap_per_second"]},
                        rules_sections=RULES_SECTIONS, figures=(figure,),
                        tables=(Table(f"{KEY}_answered", answered,
                                      ctx.t("reaction_table", seconds=len(TRIGGERS))),
                                Table(f"{KEY}_example", shown.reset_index(drop=True),
                                      ctx.t("timeline_example", cooldown=cooldown,
                                            **{**e, "action": ctx.t("example_action"),
                                               "foe": ctx.t("example_foe")}))))
