"""Section: the bundled example variants against the bundled rules, what moved and the death
curves of the threshold variant (:mod:`balance.regression`)."""
from __future__ import annotations

import dataclasses
import fnmatch
from types import SimpleNamespace

import pandas as pd

from ... import plots
from ...rules import Rules, default_rules, load_rules
from .. import compare, data
from ...labels import count
from ..model import Table, figure_from_axes
from ._base import Context, make_section

KEY = "variants"
REQUIRES = ("balance.regression", "balance.montecarlo")
#: the variant whose death curves are overlaid on the bundled ones, and at which negative HP
CURVE_VARIANT = "death_threshold_180"
CURVE_HP = 5
ALPHA = compare.ALPHA


def compute(rules: Rules, settings) -> dict | None:
    """Compare every bundled variant with the bundled rules, in the report of the bundled
    rules only (a variant's report compares the variant itself: section ``changes``); Monte
    Carlo metrics run the report's trials (times each metric's own scale) from the report's
    seed, the variants from an independent seed."""
    from ..diff import bundled_comparisons

    if rules.fingerprint != default_rules().fingerprint:
        return None
    metrics = compare.compared_metrics()
    comparisons = bundled_comparisons(trials=settings.trials, seed=settings.seed,
                                      only=[m.name for m in metrics])
    base, variant = default_rules(), load_rules(CURVE_VARIANT)
    curves = {name: data.death_surface(negative_hp=[CURVE_HP], rules=r)
              for name, r in (("base", base), ("variant", variant))}
    sections = sorted({s.strip().split(".")[0] for m in metrics
                       for s in m.section.split(",") if s.strip()})
    return {"comparisons": comparisons, "curves": curves, "sections": tuple(sections),
            "fingerprints": {name: load_rules(name).fingerprint for name in comparisons},
            "left_out": len(_left_out())}


def _left_out() -> list:
    from ...regression import catalogue

    return [m for m in catalogue()
            if any(fnmatch.fnmatchcase(m.name, p) for p in compare.LEFT_OUT)]


def _shown(frame: pd.DataFrame, name: str, ctx: Context) -> pd.DataFrame:
    """Every Monte Carlo metric and every exact metric that changed, as display strings."""
    shown = compare.metrics_shown(frame, ctx.lang, rows="report",
                                  rules=(default_rules(), load_rules(name)))
    return shown.rename(columns={ctx.t("col_metric_plain"): ctx.t("col_metric", variant=name)})


def render(results: dict, ctx: Context):
    comparisons = results["comparisons"]
    base_ctx = Context(rules=default_rules(), settings=ctx.settings, lang=ctx.lang)
    tables, lines = [], []
    for name, frame in comparisons.items():
        moved = int(frame["moved"].sum())
        about = ctx.t(f"about_{name}")
        lines.append(ctx.t("variant_moved" if moved else "variant_nothing", variant=name,
                           moved=moved, total=len(frame), about=about))
        tables.append(Table(f"{KEY}_{name}", _shown(frame, name, ctx), lines[-1]))
    curves = results["curves"]
    ax = plots.compare_death_curves(curves["base"], curves["variant"],
                                    names=(ctx.t("bundled_name"), CURVE_VARIANT),
                                    lang=ctx.lang, rules=base_ctx.rules)
    figure = figure_from_axes(f"{KEY}_death_curves", ax,
                              ctx.t("variant_curves", variant=CURVE_VARIANT), lang=ctx.lang)
    first = next(iter(comparisons.values()))
    a = first.attrs
    mc = pd.concat([f[~f["exact"]] for f in comparisons.values()])
    runs = [SimpleNamespace(trials=int(t), seed=s) for t in
            sorted(set(mc["trials_base"].dropna().astype(int)) |
                   set(mc["trials_variant"].dropna().astype(int)))
            for s in (a["base_seed"], a["variant_seed"])]
    left_out = ctx.t("variants_left_out", count=results["left_out"]) if results["left_out"] \
        else ""
    trials = ", ".join(count(n, ctx.lang) for n in sorted({r.trials for r in runs}, reverse=True))
    section = make_section(base_ctx, KEY, title="sec_variants", text_key="sec_variants_text",
                           text_fields={"alpha": a.get("alpha", ALPHA), "left_out": left_out},
                           rules_sections=results["sections"], simulated=runs,
                           figures=(figure,), tables=tuple(tables),
                           notes=(ctx.t("variants_note", trials=trials,
                                        base_seed=a["base_seed"],
                                        variant_seed=a["variant_seed"]),))
    fingerprints = ", ".join(f"{n} {f}" for n, f in results["fingerprints"].items())
    return dataclasses.replace(section, provenance=section.provenance + (
        (ctx.t("variant_fingerprints"), fingerprints),))
