"""Section: does the GM guide's calibration predict the fight? (GM guide, checks and attacks / adversity ratio and calibration)"""
from __future__ import annotations

import re
from types import SimpleNamespace

import pandas as pd
from matplotlib.figure import Figure

from ...guide import fights
from ... import plots
from ...names import label
from ...rules import Rules
from ..model import Table, figure_from_axes
from ._base import Context, fmt_estimate, make_section

KEY = "encounters"
REQUIRES = ("balance.guide.fights", "balance.guide.encounters", "balance.montecarlo")
RULES_SECTIONS = ("encounters", "fights", "creatures", "party", "bestiary", "guide")
LEVEL = 5


def fight_trials(settings) -> int:
    """Fights per encounter: a five-hundredth of the report's trials (at least 300)."""
    return max(300, settings.trials // 500)


def compute(rules: Rules, settings) -> dict:
    check = fights.calibration_check(levels=(LEVEL,), trials=fight_trials(settings),
                                     seed=settings.seed, workers=settings.workers, rules=rules)
    return {"check": check}


def render(results: dict, ctx: Context):
    table = _translated(results["check"].table, ctx)
    fig = Figure(figsize=(10, 8), layout="constrained")
    top, bottom = fig.subplots(2, 1)
    plots.calibration_rates(table, ax=top, lang=ctx.lang, rules=ctx.rules)
    plots.calibration_rates(table, metric="knockout_rate", ax=bottom, lang=ctx.lang,
                            rules=ctx.rules)
    shown = pd.DataFrame({
        ctx.t("col_encounter"): table["encounter"],
        ctx.t("calibration"): table["calibration"].map(str),
        ctx.t("col_challenge"): table["calibration"].map(lambda c: _challenge(c, ctx)),
        ctx.t("party_win_rate"): [fmt_estimate(*v, lang=ctx.lang) for v in zip(
            table["party_win_rate"], table["win_ci_low"], table["win_ci_high"])],
        ctx.t("knockout_rate"): [fmt_estimate(*v, lang=ctx.lang) for v in zip(
            table["knockout_rate"], table["ko_ci_low"], table["ko_ci_high"])]})
    run = SimpleNamespace(trials=int(table["trials"].iloc[0]), seed=table["seed"].iloc[0])
    return make_section(ctx, KEY, title="sec_encounters", text_key="sec_encounters_text",
                        rules_sections=RULES_SECTIONS, simulated=[run],
                        figures=(figure_from_axes(f"{KEY}_calibration", top,
                                                  ctx.t("calibration_title", level=LEVEL), lang=ctx.lang),),
                        tables=(Table(f"{KEY}_table", shown),))


def _challenge(calibration, ctx: Context) -> str:
    from ...guide.encounters import challenge

    return challenge(calibration, lang=ctx.lang, rules=ctx.rules)


def _translated(table: pd.DataFrame, ctx: Context) -> pd.DataFrame:
    """Creature names of the family and encounter columns in the report's language."""
    if ctx.lang == "en":
        return table
    names = {row["en"]: label(row, ctx.lang)
             for row in ctx.rules["bestiary"]["creatures"]}
    pattern = re.compile("|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)))

    def swap(text: str) -> str:
        return pattern.sub(lambda m: names[m.group(0)], text)

    return table.assign(family=table["family"].map(swap), encounter=table["encounter"].map(swap))
