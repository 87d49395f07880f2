"""Section: simulated percentile duels, win probability against the skill gap (percentile rules, combat)."""
from __future__ import annotations

from types import SimpleNamespace


from ... import percentile, plots
from ...rules import Rules
from ...labels import decimal
from ..model import Table, figure_from_axes
from ._base import Context, fmt_prob, make_section

KEY = "duels"
REQUIRES = ("balance.percentile", "balance.montecarlo")
RULES_SECTIONS = ("percentile",)
SKILLS = range(40, 91, 10)


def duel_trials(settings) -> int:
    """Duels per skill pair: a hundredth of the report's trials (at least 500)."""
    return max(500, settings.trials // 100)


def compute(rules: Rules, settings) -> dict:
    table = percentile.duel_table(SKILLS, trials=duel_trials(settings), seed=settings.seed,
                                  rules=rules, run_options={"workers": settings.workers})
    return {"duels": table}


def _readings(ctx: Context) -> dict:
    """The two readings of percentile rules, skill roll / combat the duel figures rest on, as the rules set them
    (``contest.winner_must_succeed``, ``combat.wound_every_hit``)."""
    sec = ctx.rules["percentile"]
    succeed = sec["contest"]["winner_must_succeed"]
    every_hit = sec["combat"]["wound_every_hit"]
    return {"effects": ctx.t("duel_effects_succeed" if succeed else "duel_effects_margin"),
            "wounds": ctx.t("duel_wounds_every_hit" if every_hit else "duel_wounds_first")}


def render(results: dict, ctx: Context):
    table = results["duels"]
    ax = plots.duel_gap(table, lang=ctx.lang)
    wide = table.assign(cell=[f"{fmt_prob(p, lang=ctx.lang)} ({decimal(100 * a, 1, ctx.lang)}–"
                              f"{decimal(100 * b, 1, ctx.lang)})" for p, a, b in
                              zip(table["first_wins"], table["ci_low"], table["ci_high"])])
    wide = wide.pivot_table(index="first_skill", columns="second_skill", values="cell",
                            aggfunc="first")
    wide.index.name = ctx.t("first_skill")
    wide.columns.name = ctx.t("second_skill")
    run = SimpleNamespace(trials=int(table["trials"].iloc[0]), seed=table["seed"].iloc[0])
    return make_section(ctx, KEY, title="sec_duels", text_key="sec_duels_text",
                        text_fields=_readings(ctx), rules_sections=RULES_SECTIONS,
                        simulated=[run],
                        figures=(figure_from_axes(f"{KEY}_gap", ax, ctx.t("duel_title"), lang=ctx.lang),),
                        tables=(Table(f"{KEY}_table", wide, ctx.t("duel_caption")),))
