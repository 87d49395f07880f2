"""``balance check``: measure the current rules and compare them with a baseline snapshot.

Exit status: 0 when nothing significant moved beyond its tolerance, 1 when something did,
2 when the input is unusable (handled by the CLI).
"""
from __future__ import annotations

import math
from typing import Any

import pandas as pd

from ..rules import Rules
from .diff import check_alpha, compare_snapshots, independent_seed
from .snapshot import Snapshot, read, take

__all__ = ["check", "format_table", "value_text", "change_text", "p_text"]


def check(baseline: Snapshot | str, rules: Rules | str | None = None, *,
          trials: int | None = None, seed: int | None = None, independent: bool = False,
          alpha: float = 0.05, tolerances=None) -> pd.DataFrame:
    """Compare ``rules`` (default: the bundled rules) with a ``baseline`` snapshot.

    Monte Carlo metrics run the baseline's trials and seed unless told otherwise: unchanged
    rules then reproduce the baseline exactly, and changed ones are compared with common random
    numbers (conservative tests, see :mod:`balance.regression.compare`). ``independent=True``
    draws the current side from an independent seed instead.

    Returns the :func:`~balance.regression.compare` table; ``frame["moved"].any()`` is the
    verdict. A baseline metric these rules cannot measure (they lack the table row it reads,
    or their values rule it out) is one row saying why, and counts as moved.
    """
    check_alpha(alpha)
    base = read(baseline) if not isinstance(baseline, Snapshot) else baseline
    trials = base.trials if trials is None else trials
    seed = base.seed if seed is None else seed
    if independent:
        seed = independent_seed(seed)
    gone: dict[str, dict] = {"variant": {}}
    current = take(rules, trials=trials, seed=seed, only=base.only, removed=gone["variant"])
    return compare_snapshots(base, current, alpha=alpha, tolerances=tolerances, gone=gone)


def value_text(value: float, unit: str) -> str:
    """A metric's value for a table: probabilities to 4 decimals, others to 4 digits."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if unit == "probability":
        return f"{value:.4f}"
    return f"{value:.4g}"


def change_text(value: float, unit: str, shown_unit: str | None = None) -> str:
    """A metric's change: probabilities in percentage points, others in their unit (written
    ``shown_unit``, e.g. translated, when given); ``-`` for none (a side not measured)."""
    if isinstance(value, float) and math.isnan(value):
        return "-"
    if unit == "probability":
        return f"{100 * value:+.2f} pp"
    return f"{value:+.3g} {unit if shown_unit is None else shown_unit}"


def p_text(p: float, digits: int = 3) -> str:
    """A p-value; one that underflows double precision is shown as a bound, not as 0."""
    return f"{p:.{digits}g}" if p > 0 else "< 1e-300"


def format_table(frame: pd.DataFrame, *, only_moved: bool = True, width: int = 50) -> str:
    """A plain-text table of the comparison: what moved and what a side could not measure
    (or every metric), by how much."""
    unmeasured = frame["unmeasured"] != "" if "unmeasured" in frame else frame["moved"] & False
    rows = frame[frame["moved"] | unmeasured] if only_moved else frame
    a = frame.attrs
    head = (f"base {a.get('base', '?')} ({a.get('base_fingerprint', '?')}) vs variant "
            f"{a.get('variant', '?')} ({a.get('variant_fingerprint', '?')}); "
            f"alpha {a.get('alpha', 0.05):g}, Holm over {int(frame['p_value'].notna().sum())} "
            f"Monte Carlo metrics")
    if a.get("base_version") != a.get("variant_version"):
        head += (f"\nnote: made by balance {a.get('base_version')} and {a.get('variant_version')}:"
                 " changes may come from the package, not only from the rules")
    if rows.empty:
        return head + "\nnothing moved beyond its tolerance " \
            f"({len(frame)} metrics: {int(frame['exact'].sum())} exact, " \
            f"{int((~frame['exact']).sum())} Monte Carlo)"
    lines = [head, f"{'metric':<{width}} {'base':>9} {'variant':>9} {'change':>13}  "
                   f"{'test':<12} {'status'}"]
    r: Any  # a row of the comparison table (pandas types its cells as any scalar)
    for r in rows.itertuples(index=False):
        name = r.metric + (f" [{r.category}]" if r.category else "")
        if len(name) > width:
            name = name[:width - 1] + "…"
        if r.unmeasured:    # one side (or both) cannot measure it: the reason
            test, change = "not measured", "-"
            status = ("GONE: " if r.moved else "") + r.unmeasured
        else:
            test = "exact" if r.exact else f"p={p_text(r.p_adjusted, 2)}"
            change = change_text(r.change, r.unit)
            status = "MOVED" if r.moved else ("within tol." if r.significant else "")
        lines.append(f"{name:<{width}} {value_text(r.base, r.unit):>9} "
                     f"{value_text(r.variant, r.unit):>9} {change:>13}  {test:<12} {status}")
    moved, missing = int(frame["moved"].sum()), int(unmeasured.sum())
    lines.append(f"{moved} of {len(frame)} metrics moved beyond their tolerance" + (
        f" ({missing} not measured on a side whose rules cannot: see their status)"
        if missing else ""))
    return "\n".join(lines)
