"""Section: what the reported rules change against their baseline (the bundled rules, or
``--baseline`` rules or snapshot): the rules value by value, every metric of the regression
catalogue with its test, and the death curves of both overlaid (:mod:`balance.report.compare`,
the renderer ``balance diff --html`` shares)."""
from __future__ import annotations

import dataclasses

from ...rules import Rules
from ...labels import count, sources
from .. import compare
from ..model import Table, figure_from_axes
from ._base import Context, make_section

KEY = "changes"
REQUIRES = ()


def compute(rules: Rules, settings) -> dict:
    from ..bundle import resolve_baseline

    baseline = resolve_baseline(getattr(settings, "baseline", None))
    comparison = None
    if "balance.regression" not in _missing():
        comparison = compare.compare_rules(rules, baseline, trials=settings.trials,
                                           seed=settings.seed)
    base_rules = baseline if isinstance(baseline, Rules) else \
        (comparison or {}).get("base_rules")
    return {"changes": compare.change_rows(rules, base_rules), "comparison": comparison,
            "baseline": _base_label(baseline)}


def _missing() -> list[str]:
    import importlib.util

    return [] if importlib.util.find_spec("balance.regression") else ["balance.regression"]


def _base_label(baseline) -> dict:
    """How the report names the baseline: the bundled rules, a rules file, or a snapshot."""
    if isinstance(baseline, Rules):
        return {"kind": "rules", "sources": tuple(baseline.sources),
                "fingerprint": baseline.fingerprint}
    return {"kind": "snapshot", "sources": (baseline.label,), "fingerprint": baseline.fingerprint}


def base_name(label: dict, lang: str) -> str:
    """The baseline as the report's tables name it (``bundled``, a file, a snapshot)."""
    from ...labels import text

    if label["kind"] == "rules":
        return sources(label["sources"], lang)  # "bundled", "règles fournies", files
    return text("base_snapshot", lang, name=label["sources"][0])


def render(results: dict, ctx: Context):
    rows = results["changes"]
    label = results["baseline"]
    name = base_name(label, ctx.lang)
    comparison = results["comparison"]
    tables, figures, notes = [], [], []
    names = (ctx.rules,) + ((comparison["base_rules"],)
                            if comparison and comparison["base_rules"] is not None else ())
    if len(rows):
        tables.append(Table(f"{KEY}_table", compare.change_rows_shown(rows, ctx.lang,
                                                                     base_name=name),
                            ctx.t("changes_rules_table", base=name)))
    if comparison is not None:
        frame = comparison["frame"]
        moved = compare.changed(frame)
        if len(moved):
            tables.append(Table(f"{KEY}_metrics_changed",
                                compare.metrics_shown(frame, ctx.lang, rows="changed",
                                                      base_name=name, rules=names),
                                ctx.t("changes_metrics_table", count=len(moved),
                                      total=len(frame))))
        tables.append(Table(f"{KEY}_metrics", compare.metrics_shown(
            frame, ctx.lang, rows="report", base_name=name, rules=names),
            ctx.t("changes_all_table")))
        figures.append(_curves(comparison, name, ctx))
        a = frame.attrs
        notes.append(ctx.t("compare_note", trials=count(comparison["trials"], ctx.lang),
                           base_seed=a["base_seed"], variant_seed=a["variant_seed"],
                           alpha=a.get("alpha", compare.ALPHA)))
        if comparison["base_rules"] is None:
            notes.append(ctx.t("compare_snapshot_rules"))
        for u in comparison.get("unmatched", ()):
            side = name if u["side"] == "base" else ctx.t("col_variant")
            notes.append(ctx.t("compare_row_missing", metric=u["metric"], table=u["table"],
                               row=u["row"], side=side) if u.get("row") is not None else
                         ctx.t("compare_undefined", metric=u["metric"], table=u["table"],
                               what=compare.describe(u["what"], ctx.lang, (ctx.rules,)),
                               side=side))
    elif not len(rows):
        notes.append(ctx.t("no_changes"))
    same = comparison is None and not len(rows)
    shown = sources(ctx.rules.sources, ctx.lang)
    # the same rules: the baseline itself (bundled against bundled), or other files setting
    # every value as it does
    text_key = ("sec_changes_text" if not same else
                "sec_changes_none_text" if shown == name else "sec_changes_same_text")
    section = make_section(ctx, KEY, title="sec_changes", text_key=text_key,
                           text_fields={"sources": shown, "base": name},
                           figures=tuple(figures), tables=tuple(tables), notes=tuple(notes))
    if comparison is None:
        return section
    return dataclasses.replace(section, provenance=section.provenance + (
        (ctx.t("baseline"), f"{name} ({label['fingerprint']})"),))


def _curves(comparison: dict, name: str, ctx: Context):
    """Death when stabilised, both rule sets overlaid (the curves each snapshot stores)."""
    from ... import plots

    first, second = comparison["curves"]
    wall = int(max(first["seconds"].max(), second["seconds"].max()))
    ax = plots.compare_death_curves(first, second, names=(name, ctx.t("col_variant")),
                                    lang=ctx.lang, wall=wall)
    return figure_from_axes(f"{KEY}_death_curves", ax,
                            ctx.t("changes_curves", base=name, hp=5), lang=ctx.lang)
