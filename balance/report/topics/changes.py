"""Section: what the reported rules change against the bundled ones (a variant's diff)."""
from __future__ import annotations

import pandas as pd

from ...rules import Rules
from .. import data
from ...labels import sources
from ..model import Table
from ._base import Context, make_section

KEY = "changes"
REQUIRES = ()


def compute(rules: Rules, settings) -> dict:
    return {"changes": data.rule_changes(rules)}


def render(results: dict, ctx: Context):
    frame = results["changes"]
    shown = pd.DataFrame({ctx.t("col_key"): frame["key"],
                          ctx.t("col_bundled"): frame["bundled"].map(data.rules_value_text),
                          ctx.t("col_variant"): frame["variant"].map(data.rules_value_text)})
    return make_section(ctx, KEY, title="sec_changes", text_key="sec_changes_text",
                        text_fields={"sources": sources(ctx.rules.sources, ctx.lang)},
                        tables=(Table(f"{KEY}_table", shown),) if len(shown) else (),
                        notes=() if len(shown) else (ctx.t("no_changes"),))
