"""Appendix: the rules, readings and assumptions behind the report, generated from the data
(every reading of ``readings.toml`` with the value of the rules keys that set it, and every
``[assumed]`` value of the rules in effect with its note), in the report's language."""
from __future__ import annotations

import pandas as pd

from ...rules import Rules, default_rules
from ..model import Table
from ..readings import assumed_note, readings
from ._base import Context, make_section, short_value

KEY = "assumptions"
REQUIRES = ()


def compute(rules: Rules, settings) -> dict:
    return {"assumptions": rules.assumptions}


def _value(rules: Rules, key: str, ctx: Context) -> str:
    value = rules.get(key, None)
    if isinstance(value, bool):
        return ctx.t("yes" if value else "no")
    return short_value(value)


def render(results: dict, ctx: Context):
    rows = readings(ctx.lang, ctx.rules)
    shown = pd.DataFrame({
        ctx.t("col_rule"): [r["where"] for r in rows],
        ctx.t("col_reading"): [r["text"] for r in rows],
        ctx.t("col_set_by"): ["; ".join(f"{k} = {_value(ctx.rules, k, ctx)}" for k in r["rules"])
                              for r in rows]})
    frame = results["assumptions"]
    base = default_rules()
    bundled = dict(zip(*base.assumptions[["key", "note"]].T.to_numpy()))

    def changed_from(key: str) -> object:   # the bundled value, when the rules set another
        was = base.get(key, None)
        return None if was is None or ctx.rules.get(key, None) == was else _value(base, key, ctx)

    assumed = pd.DataFrame({
        ctx.t("col_key"): frame["key"],
        ctx.t("col_value"): [_value(ctx.rules, k, ctx) for k in frame["key"]],
        ctx.t("col_note"): [assumed_note(k, n, ctx.lang, bundled.get(k), changed_from(k))
                            for k, n in zip(frame["key"], frame["note"])]})
    return make_section(ctx, KEY, title="sec_assumptions", text_key="sec_assumptions_text",
                        tables=(Table(f"{KEY}_readings", shown, ctx.t("readings_table")),
                                Table(f"{KEY}_table", assumed, ctx.t("assumed_table"))),
                        notes=())
