"""The side-by-side diff report: what moved between two rule sets, and their death-probability
curves overlaid, rendered by the balance report's HTML renderer (:func:`balance.report.render_html`).

Rendering never computes: the sections show a comparison table from
:func:`~balance.regression.compare` and the curves stored in the two snapshots.
"""
from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from .._atomic import write_file
from ..regression.snapshot import Snapshot
from .compare import death_curves_table

__all__ = ["plot_death_curves", "death_curves_table", "diff_sections", "bundled_comparisons",
           "bundled_sections", "render", "write_html", "METHOD_NOTES"]

METHOD_NOTES = (
    "Exact metrics are compared exactly: any difference counts (p-value: none).",
    "Monte Carlo metrics: two-proportion z test (Fisher's exact test for small counts), "
    "chi-square test of homogeneity for distributions, Welch z test for means; Holm's "
    "correction across the catalogue keeps the chance of any false alarm at most alpha.",
    "A metric moved when its change is significant and larger than its tolerance.",
    "Same seed on both sides (common random numbers): identical rules give identical counts, "
    "and the tests are conservative for changed rules; independent seeds meet the tests' "
    "assumption exactly.",
)


def plot_death_curves(base: Snapshot, variant: Snapshot, ax=None):
    """P(death) against seconds at negative HP, for 0-3 wounds: base solid, variant dashed
    (:func:`balance.plots.compare_death_curves` on the curves both snapshots store).

    Returns the axes.
    """
    from .. import plots

    if ax is None:  # a bare Figure: no pyplot state, no backend change in notebooks
        from matplotlib.figure import Figure
        ax = Figure(figsize=(9, 4.5), layout="constrained").add_subplot()
    first, second = death_curves_table(base), death_curves_table(variant)
    wall = int(max(first["seconds"].max(), second["seconds"].max()))
    return plots.compare_death_curves(first, second, names=(base.label, variant.label), ax=ax,
                                      wall=wall)


def _shown(frame: pd.DataFrame, lang: str = "en") -> pd.DataFrame:
    """The comparison as display strings: the report's renderer
    (:func:`balance.report.compare.metrics_shown`), with each metric's description."""
    from .compare import metrics_shown

    reasons = frame["unmeasured"] if "unmeasured" in frame else [""] * len(frame)
    return metrics_shown(frame, lang).assign(description=[
        d + (f" (not measured: {r})" if r else "") for d, r in zip(frame["description"], reasons)])


def diff_sections(frame: pd.DataFrame, base: Snapshot, variant: Snapshot, *,
                  base_rules=None, variant_rules=None) -> list:
    """The diff report's sections, built as the balance report's ``changes`` section is
    (:mod:`balance.report.compare`): the rules values changed, keyed as ``--set`` takes them
    (when both rule sets are given), what changed (significant metrics, Holm), the curves
    overlaid, every metric."""
    from .compare import change_rows, change_rows_shown, changed
    from .model import Section, Table, figure_from_axes
    a = frame.attrs
    prov = (("base", f"{base.label} ({base.fingerprint})"),
            ("variant", f"{variant.label} ({variant.fingerprint})"),
            ("alpha", f"{a.get('alpha', 0.05):g}"),
            ("trials", f"{base.trials:,} / {variant.trials:,}"),
            ("seeds", f"{base.seed} / {variant.seed}"))
    moved = frame[frame["moved"]]
    text = (f"{len(moved)} of {len(frame)} metrics moved beyond their tolerance "
            f"({int(frame['exact'].sum())} exact, {int((~frame['exact']).sum())} Monte Carlo)."
            if len(moved) else f"Nothing moved beyond its tolerance ({len(frame)} metrics).")
    tables = []
    if base_rules is not None and variant_rules is not None:
        rows = change_rows(variant_rules, base_rules)
        if len(rows):
            tables.append(Table("rules_table", change_rows_shown(rows, base_name=base.label),
                                "Rules values changed (as --set takes them)"))
    significant = changed(frame)
    if len(significant):
        tables.append(Table("moved_table", _shown(significant),
                            f"{len(significant)} metrics differ significantly"))
    fig = figure_from_axes("death_curves", plot_death_curves(base, variant),
                           "P(death) when stabilised: base solid, variant dashed")
    return [
        Section("moved", "What moved", text, tables=tuple(tables), provenance=prov,
                notes=METHOD_NOTES),
        Section("death", "Death probability, both rule sets",
                "The critical-injury roll's death probability against the seconds spent "
                "dying, for 0 to 3 unhealed wounds (exact, closed form).",
                figures=(fig,), provenance=prov[:2]),
        Section("all", "Every metric", "Each metric of the catalogue, side by side.",
                tables=(Table("all_table", _shown(frame)),), provenance=prov),
    ]


def bundled_comparisons(*, trials: int = 20_000, seed: int = 0,
                        only=None) -> dict[str, pd.DataFrame]:
    """Each bundled example variant compared with the bundled rules (independent seeds):
    ``{variant name: comparison table}``. This computes; :func:`bundled_sections` renders.
    ``only`` restricts the catalogue to some names or patterns (as in :func:`compare`)."""
    from ..rules import bundled_variants, load_rules
    from ..regression.diff import compare_snapshots, independent_seed
    from ..regression.snapshot import take
    base = take(None, trials=trials, seed=seed, only=only)
    other = independent_seed(seed)
    return {name: compare_snapshots(base, take(load_rules(name), trials=trials, seed=other,
                                               only=only))
            for name in bundled_variants()}


def bundled_sections(comparisons: dict[str, pd.DataFrame]) -> list:
    """One report section listing what each bundled variant moves (from
    :func:`bundled_comparisons`); usable in any report built on :mod:`balance.report`."""
    from .model import Section, Table
    tables, lines = [], []
    for name, frame in comparisons.items():
        moved = frame[frame["moved"]]
        lines.append(f"{name}: {len(moved)} of {len(frame)} metrics moved")
        if len(moved):
            tables.append(Table(f"variant_{name}", _shown(moved), f"{name} vs the bundled rules"))
    first = next(iter(comparisons.values()), None)
    prov = () if first is None else (
        ("base", f"bundled ({first.attrs.get('base_fingerprint')})"),
        ("trials", f"{first.attrs.get('base_trials', 0):,}"),
        ("seeds", f"{first.attrs.get('base_seed')} / {first.attrs.get('variant_seed')}"))
    return [Section("bundled_variants", "Bundled variants against the bundled rules",
                    "; ".join(lines) + ".", tables=tuple(tables), provenance=prov,
                    notes=METHOD_NOTES)]


def render(frame: pd.DataFrame, base: Snapshot, variant: Snapshot,
           extra_sections: list | None = None) -> str:
    """The whole diff report as one self-contained HTML page."""
    from .html import render_html
    meta = {"title": f"Balance diff: {base.label} vs {variant.label}",
            "base rules": f"{base.fingerprint} ({' + '.join(base.sources)})",
            "variant rules": f"{variant.fingerprint} ({' + '.join(variant.sources)})",
            "balance": base.version if base.version == variant.version
            else f"{base.version} / {variant.version}"}
    return render_html(diff_sections(frame, base, variant) + list(extra_sections or ()), meta)


def write_html(frame: pd.DataFrame, out: str | os.PathLike, *, base: Snapshot,
               variant: Snapshot, extra_sections: list | None = None) -> Path:
    """Write the diff report to ``out`` atomically (temporary file, then ``os.replace``)."""
    out = Path(out)
    if not out.parent.exists():
        raise ValueError(f"{out}: directory {out.parent} does not exist")
    write_file(out, render(frame, base, variant, extra_sections))
    return out
