"""Comparing two rule sets (or snapshots) metric by metric.

Exact metrics are compared exactly: any difference is a change (``p_value`` NaN, ``exact``
True). Monte Carlo metrics get the two-sample test of their shape
(:mod:`balance.regression.stats`), and Holm's correction across the catalogue, so that the
chance of *any* false alarm in one comparison is at most ``alpha``. A metric has *moved* when
its change is significant (exact: nonzero) and larger than its tolerance.

Seeds. Measured from rules, the variant side uses an independent seed derived from ``seed``
(``SeedSequence(seed).spawn``), so the tests' independence assumption holds exactly. With
``common_random_numbers=True`` both sides use ``seed``: identical rules then give identical
counts (nothing can move), and different rules are compared on the same dice. The estimates
are then positively correlated, the tests over-estimate the variance of the difference, and
their p-values are conservative: no more false alarms than ``alpha`` (a paired test would be
sharper; the shared dice still make the difference itself less noisy). ``balance check`` uses the baseline's seed (common random numbers) by
default, so an unchanged rule set reproduces its baseline bit for bit.
"""
from __future__ import annotations

import math
from typing import cast
from pathlib import Path

import numpy as np
import pandas as pd

from ..rules import Rules
from . import stats
from .metrics import Measurement, Metric
from .snapshot import Snapshot, SnapshotError, read, take

__all__ = ["compare", "compare_snapshots", "as_snapshot", "independent_seed",
           "catalogue_mismatch", "check_alpha"]

_EXACT_EPS = 1e-12
COLUMNS = ["metric", "kind", "unit", "base", "variant", "change", "category", "p_value",
           "p_adjusted", "exact", "significant", "tolerance", "within_tolerance", "moved",
           "base_low", "base_high", "variant_low", "variant_high", "trials_base",
           "trials_variant", "description", "unmeasured"]


def check_alpha(alpha: object, name: str = "alpha") -> float:
    """``alpha`` if it is a family-wise level: a number strictly between 0 and 1 (0 would switch
    the Monte Carlo tests off, 1 or more would mark unchanged metrics as moved)."""
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.floating)) \
            or not 0 < alpha < 1:
        raise ValueError(f"{name} must be a number strictly between 0 and 1 (a family-wise "
                         f"level such as 0.05), got {alpha!r}")
    return float(alpha)


def independent_seed(seed: int) -> int:
    """A master seed independent of ``seed`` (drawn from its ``SeedSequence`` spawn child)."""
    child = np.random.SeedSequence(seed).spawn(1)[0]
    return int(child.generate_state(1, np.uint32)[0])


def as_snapshot(side, *, trials: int, seed: int, tolerances=None, only=None,
                removed: dict | None = None) -> Snapshot:
    """A snapshot from a :class:`Snapshot`, a snapshot JSON path, a rules file or Rules;
    measured from rules, a metric whose table row they lack is left out and recorded in
    ``removed`` when given (:func:`~balance.regression.snapshot.take`)."""
    if isinstance(side, Snapshot):
        return side
    if isinstance(side, (str, Path)) and str(side).endswith(".json"):
        return read(side)
    return take(side, trials=trials, seed=seed, tolerances=tolerances, only=only,
                removed=removed)


def compare(base: Rules | str | Path | Snapshot | None = None,
            variant: Rules | str | Path | Snapshot | None = None, *, trials: int = 100_000,
            seed: int = 0, variant_seed: int | None = None, common_random_numbers: bool = False,
            alpha: float = 0.05, tolerances=None, only=None) -> pd.DataFrame:
    """Compare two rule sets (Rules, rules files, snapshots or snapshot paths) metric by metric.

    Returns a tidy DataFrame, one row per metric: metric, kind, unit, base, variant, change
    (variant - base; for a distribution, the largest change of one category, named in
    ``category``), p_value (NaN for exact metrics), p_adjusted (Holm), exact, significant,
    tolerance, within_tolerance, moved, the 95 % intervals and trials of both sides, the
    description and ``unmeasured``: empty, or why a side could not measure the metric (its
    rules lack the table row it reads: removed, or renamed while the table changed length; or
    their values rule it out: :class:`~balance.regression.rows.Unmeasurable`). Such a metric
    is never measured on something else: its value there is NaN and it counts as moved (it
    is outside the Holm family), unless neither side can measure it. ``.attrs`` records
    alpha, fingerprints, seeds and trials. ``only`` restricts the comparison to metrics
    matching some names or patterns (``["mc.*", "death.*"]``).

    >>> import balance as bl
    >>> diff = bl.regression.compare(None, "death_threshold_180", trials=2000)
    >>> row = diff.set_index("metric").loc["death.p@40s,6hp,1w"]
    >>> float(row["base"]), float(row["variant"]), bool(row["moved"])
    (0.17, 0.13, True)
    """
    check_alpha(alpha)
    if variant_seed is None:
        variant_seed = seed if common_random_numbers else independent_seed(seed)
    gone: dict[str, dict] = {"base": {}, "variant": {}}
    a = as_snapshot(base, trials=trials, seed=seed, tolerances=tolerances, only=only,
                    removed=gone["base"])
    b = as_snapshot(variant, trials=trials, seed=variant_seed, tolerances=tolerances, only=only,
                    removed=gone["variant"])
    return compare_snapshots(a, b, alpha=alpha, tolerances=tolerances, gone=gone)


def catalogue_mismatch(a: Snapshot, b: Snapshot) -> str | None:
    """A one-line description of how two snapshots' catalogues differ, or None."""
    if a.catalogue_id == b.catalogue_id:
        return None
    na, nb = [m.name for m in a.metrics], [m.name for m in b.metrics]
    only_a = [n for n in na if n not in nb]
    only_b = [n for n in nb if n not in na]
    parts = []
    if only_a:
        parts.append(f"only in {a.label}: {_few(only_a)}")
    if only_b:
        parts.append(f"only in {b.label}: {_few(only_b)}")
    if not parts:
        parts.append("same names, different kinds, shapes, units or order")
    return "different metric catalogues (" + "; ".join(parts) + ")"


def _few(names: list[str], k: int = 3) -> str:
    return ", ".join(names[:k]) + (f" and {len(names) - k} more" if len(names) > k else "")


def shared(a: Snapshot, b: Snapshot) -> tuple[Snapshot, Snapshot]:
    """Two snapshots restricted to the metrics both measured (a metric one side could not
    measure, its row gone, is compared on neither)."""
    both = set(a.measurements) & set(b.measurements)
    return _kept(a, both), _kept(b, both)


def _kept(snap: Snapshot, names: set) -> Snapshot:
    """``snap`` with only the metrics (and measurements) ``names``; itself when it has no other."""
    import dataclasses

    if names >= set(snap.measurements) | {m.name for m in snap.metrics}:
        return snap
    return dataclasses.replace(
        snap, metrics=tuple(m for m in snap.metrics if m.name in names),
        measurements={k: v for k, v in snap.measurements.items() if k in names})


def compare_snapshots(a: Snapshot, b: Snapshot, *, alpha: float = 0.05,
                      tolerances=None, gone: dict[str, dict] | None = None) -> pd.DataFrame:
    """Compare two snapshots of the same catalogue (see :func:`compare`). ``gone``: the
    metrics each side (``"base"``, ``"variant"``) could not measure, by name, with their
    :class:`~balance.regression.rows.Unmeasurable` (:func:`~.snapshot.take`'s ``removed``):
    the only metrics one snapshot may lack; each is one row saying why."""
    alpha = check_alpha(alpha)
    gone = {side: dict((gone or {}).get(side) or {}) for side in ("base", "variant")}
    excused = set(gone["base"]) | set(gone["variant"])
    problem = catalogue_mismatch(*(_kept(s, {m.name for m in s.metrics} - excused)
                                   for s in (a, b)))
    if problem:
        raise SnapshotError(f"{b.label} vs {a.label}: {problem}; re-create the baseline with "
                            "`balance snapshot --force`")
    metrics = _union(a, b, excused)
    if tolerances:
        from .registry import apply_tolerances
        metrics = apply_tolerances(metrics, tolerances)
    rows = [_row(m, a.measurements[m.name], b.measurements[m.name])
            if m.name not in excused else _gone_row(m, a, b, gone) for m in metrics]
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame["p_adjusted"] = stats.holm(frame["p_value"].to_numpy(np.float64))
    mc = ~frame["exact"]
    differs = frame["change"].abs() > _EXACT_EPS
    frame["significant"] = np.where(mc, frame["p_adjusted"] <= alpha, differs)
    frame["within_tolerance"] = frame["change"].abs() <= frame["tolerance"] + _EXACT_EPS
    frame["moved"] = frame["significant"] & ~frame["within_tolerance"]
    # measured on one side only: a change no tolerance covers (neither side: nothing to say)
    one_side = frame["metric"].map(lambda name: (name in gone["base"]) != (name in gone["variant"]))
    frame.loc[one_side, ["significant", "moved"]] = True
    frame.loc[one_side, "within_tolerance"] = False
    frame.attrs.update(alpha=alpha, base=a.label, variant=b.label,
                       base_fingerprint=a.fingerprint, variant_fingerprint=b.fingerprint,
                       base_seed=a.seed, variant_seed=b.seed, base_trials=a.trials,
                       variant_trials=b.trials, base_version=a.version,
                       variant_version=b.version,
                       common_random_numbers=(a.seed == b.seed and a.trials == b.trials))
    return frame


def _union(a: Snapshot, b: Snapshot, excused: set) -> list[Metric]:
    """The metrics of ``a`` in its order, those only ``b`` measured after the metric before
    them in ``b``, then the ``excused`` ones neither measured (from the catalogue)."""
    out = list(a.metrics)
    for i, m in enumerate(b.metrics):
        if all(x.name != m.name for x in out):
            before = b.metrics[i - 1].name if i else None
            out.insert(next((j + 1 for j, x in enumerate(out) if x.name == before), 0), m)
    neither = excused - {m.name for m in out}
    if neither:
        from .registry import catalogue
        out += catalogue(only=sorted(neither))
    return out


def _gone_row(m: Metric, a: Snapshot, b: Snapshot, gone: dict[str, dict]) -> dict:
    """The row of a metric one side (or both) could not measure: the value of the side that
    did, NaN on the other, and why in ``unmeasured``."""
    x, y = a.measurements.get(m.name), b.measurements.get(m.name)
    row = _base_row(m, x, y)
    for side, meas in (("base", x), ("variant", y)):
        row[side] = (float(cast(float, meas.value))
                     if meas is not None and m.shape != "distribution" else math.nan)
    row["change"] = math.nan
    why = {side: gone[side][m.name].why for side in ("base", "variant") if m.name in gone[side]}
    row["unmeasured"] = (f"both sides: {why['base']}" if len(set(why.values())) == 1 < len(why)
                         else "; ".join(f"{side}: {text}" for side, text in why.items()))
    return row


def _base_row(m: Metric, x: Measurement | None, y: Measurement | None) -> dict:
    """What a row says before the comparison: the metric and both sides' intervals."""
    row = {"metric": m.name, "kind": m.kind, "unit": m.unit, "category": "",
           "exact": m.kind == "exact", "tolerance": m.tolerance, "description": m.description,
           "trials_base": None if x is None else x.trials,
           "trials_variant": None if y is None else y.trials, "p_value": math.nan,
           "p_adjusted": math.nan, "significant": False, "within_tolerance": True,
           "moved": False, "unmeasured": ""}
    for side, meas in (("base", x), ("variant", y)):
        interval = None if meas is None else meas.interval
        low, high = interval if interval is not None else (math.nan, math.nan)
        row[f"{side}_low"], row[f"{side}_high"] = low, high
    return row


def _row(m: Metric, x: Measurement, y: Measurement) -> dict:
    row = _base_row(m, x, y)
    if m.shape == "distribution":
        labels, px, py, cx, cy = _aligned(x, y)
        diff = np.where(py == px, 0.0, py - px)  # inf == inf: no change, not NaN
        i = int(np.argmax(np.abs(diff)))
        row.update(base=float(px[i]), variant=float(py[i]), change=float(diff[i]),
                   category=labels[i] if diff[i] != 0 else "")
        if m.kind == "mc":
            row["p_value"] = stats.homogeneity(cx, cy)
        return row
    xv, yv = cast(float, x.value), cast(float, y.value)  # not a distribution: one number
    row.update(base=float(xv), variant=float(yv), change=_difference(xv, yv))
    if m.kind == "mc":
        assert x.trials is not None and y.trials is not None  # Monte Carlo: with provenance
        if m.shape == "mean":
            assert x.sums is not None and y.sums is not None
            row["p_value"] = stats.two_means(*x.sums, x.trials, *y.sums, y.trials)
        else:
            assert x.counts is not None and y.counts is not None
            row["p_value"] = stats.two_proportions(x.counts[0], x.trials, y.counts[0], y.trials)
    return row


def _difference(a: float, b: float) -> float:
    """``b - a``, and 0 when both are equal (``inf`` days on both sides did not change)."""
    return 0.0 if a == b else float(b - a)


def _aligned(x: Measurement, y: Measurement):
    """Both distributions over the union of their categories (a category one side lacks has
    probability and count 0: e.g. an injury a variant's table removed).

    Categories are table rows in order, matched as the rules' rows are
    (:func:`balance.rules.tables.matched_rows`): by name, and a name gone from one side
    followed to the category at its place when both have as many and that one's name is
    new (a row renamed or translated in place), shown as ``"old/new"``.
    """
    from ..rules.tables import matched_rows

    xl, yl = x.labels, y.labels
    assert xl is not None and yl is not None  # distributions carry their labels
    pairs = matched_rows(list(xl), list(yl))
    taken = set(pairs.values())
    labels = [a if i not in pairs or yl[pairs[i]] == a else f"{a}/{yl[pairs[i]]}"
              for i, a in enumerate(xl)] + [b for j, b in enumerate(yl) if j not in taken]
    x_at: list[int | None] = list(range(len(xl)))
    y_at = [pairs.get(i) for i in range(len(xl))] + [j for j in range(len(yl)) if j not in taken]
    x_at += [None] * (len(labels) - len(xl))

    def spread(at: list, values) -> np.ndarray:
        return np.array([0 if k is None else values[k] for k in at], dtype=np.float64)

    px, py = spread(x_at, x.value), spread(y_at, y.value)
    cx = spread(x_at, x.counts) if x.counts is not None else None
    cy = spread(y_at, y.counts) if y.counts is not None else None
    return labels, px, py, cx, cy
