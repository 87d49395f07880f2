"""Section: every assumed value in effect (RULES.md marks them assumed)."""
from __future__ import annotations

from ...rules import Rules
from ..model import Table
from ._base import Context, make_section, short_value

KEY = "assumptions"
REQUIRES = ()


def compute(rules: Rules, settings) -> dict:
    return {"assumptions": rules.assumptions}


def render(results: dict, ctx: Context):
    frame = results["assumptions"].copy()
    frame["value"] = frame["value"].map(short_value)
    frame.columns = [ctx.t("col_key"), ctx.t("col_value"), ctx.t("col_note")]
    return make_section(ctx, KEY, title="sec_assumptions", text_key="sec_assumptions_text",
                        tables=(Table(f"{KEY}_table", frame),), notes=())
