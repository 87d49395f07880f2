"""Section: the Monte Carlo engine checked on one roll (simulated vs exact, core rules, dying and critical injuries)."""
from __future__ import annotations

from ...core import injuries
from ... import plots
from ...rules import Rules
from ...labels import name_column
from ..model import Table, figure_from_axes
from ._base import Context, fmt_interval, fmt_prob, make_section

KEY = "montecarlo_check"
REQUIRES = ("balance.montecarlo", "balance.core.injuries")
RULES_SECTIONS = ("injuries",)
STATE = {"seconds": 40, "negative_hp": 6, "wounds": 1}


def compute(rules: Rules, settings) -> dict:
    sim = injuries.simulate(**STATE, trials=settings.trials, seed=settings.seed,
                            workers=settings.workers, progress=False, rules=rules)
    exact = injuries.injury_distribution(**STATE, rules=rules)
    return {"simulated": sim, "exact": exact}


def render(results: dict, ctx: Context):
    sim, exact = results["simulated"], results["exact"]
    table = sim.table
    ax = plots.mc_check(table, exact, lang=ctx.lang)
    ax.set_title(ctx.t("mc_check_state", title=ctx.t("mc_check_title"),
                       negative_hp=STATE["negative_hp"], seconds=STATE["seconds"],
                       wounds=ctx.t("wounds_n", value=STATE["wounds"])),
                 fontsize=10, loc="left")
    name = name_column(table, "injury", ctx.lang)
    shown = table.assign(exact=exact["probability"].to_numpy())
    shown = shown[(shown["exact"] > 0) | (shown["probability"] > 0)]
    shown = shown.assign(**{
        ctx.t("injury"): shown[name],
        ctx.t("exact"): shown["exact"].map(lambda p: fmt_prob(p, 2, lang=ctx.lang)),
        ctx.t("col_estimate"): shown["probability"].map(lambda p: fmt_prob(p, 2, lang=ctx.lang)),
        ctx.t("col_ci"): [fmt_interval(lo, hi, lang=ctx.lang)
                          for lo, hi in zip(shown["ci_low"], shown["ci_high"])]})
    cols = [ctx.t("injury"), ctx.t("exact"), ctx.t("col_estimate"), ctx.t("col_ci")]
    return make_section(ctx, KEY, title="sec_mc", text_key="sec_mc_text",
                        rules_sections=RULES_SECTIONS, simulated=[sim],
                        figures=(figure_from_axes(f"{KEY}_injuries", ax, ax.get_title("left"), lang=ctx.lang),),
                        tables=(Table(f"{KEY}_table", shown[cols].reset_index(drop=True)),))
