"""Section: treating injuries, cure chance and expected time by Cunning and band (core rules, treating injuries)."""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ... import plots
from ...rules import Rules
from ...core.treatment import cure_table, levels
from ...labels import decimal
from ..model import Table, figure_from_axes
from ._base import Context, fmt_prob, make_section

KEY = "treatment"
REQUIRES = ("balance.core.treatment",)
RULES_SECTIONS = ("treatment",)
TABLE_CUNNING = (8, 10, 12, 14, 16)


def compute(rules: Rules, settings) -> dict:
    return {"cure": cure_table(rules=rules)}


def _hours(h: float, lang: str = "en") -> str:
    return "∞" if not np.isfinite(h) else f"{decimal(h, 1, lang)} h"


def _apart(minutes: int, lang: str = "en") -> str:
    """The time between two attempts: 60 -> "1 h", 90 -> "1.5 h", 30 -> "30 min"."""
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h" if minutes % 60 == 0 else f"{decimal(minutes / 60, 1, lang)} h"


def render(results: dict, ctx: Context):
    cure = results["cure"]
    fig = Figure(figsize=(10, 7), layout="constrained")
    axs = fig.subplots(2, 2)
    for col, level in enumerate(("light", "full")):
        plots.treatment_curves(cure, level=level, value="chance", ax=axs[0, col], lang=ctx.lang,
                               rules=ctx.rules)
        plots.treatment_curves(cure, level=level, value="expected_hours", ax=axs[1, col],
                               lang=ctx.lang, rules=ctx.rules)
    shown = cure[cure["cunning"].isin(TABLE_CUNNING)].copy()
    if ctx.lang == "fr":  # level names from the rules data
        names = levels(rules=ctx.rules).set_index("level")["level_fr"]
        shown["level"] = shown["level"].map(lambda v: names.get(v, v))
    shown["cell"] = [f"{fmt_prob(p, lang=ctx.lang)} / {_hours(h, ctx.lang)}"
                     for p, h in zip(shown["chance"], shown["expected_hours"])]
    wide = shown.pivot_table(index=["level", "modifier"], columns="cunning", values="cell",
                             aggfunc="first", sort=False)
    wide.index.names = [ctx.t("col_level"), ctx.t("col_modifier")]
    wide.columns.name = ctx.t("cunning")
    treat = ctx.rules["treatment"]
    fields = {f"{level}_{what}": value for level in ("light", "full") for what, value in (
        ("bonus", f"{treat[level]['bonus']:+d}"),
        ("every", _apart(treat[level]["retry_minutes"], ctx.lang)))}
    return make_section(ctx, KEY, title="sec_treatment", text_key="sec_treatment_text",
                        text_fields=fields, rules_sections=RULES_SECTIONS,
                        figures=(figure_from_axes(f"{KEY}_curves", axs, ctx.t("sec_treatment"), lang=ctx.lang),),
                        tables=(Table(f"{KEY}_table", wide, f"{ctx.t('cure_chance')} / "
                                      f"{ctx.t('expected_hours')}"),))
