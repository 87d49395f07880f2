"""One rule value for one target: ``bl.tune.solve(metric, target=, vary=)``.

How the value is found (``Tuned.method`` says which):

- **integer keys**, at most :data:`MAX_SCAN` candidates: every valid candidate is evaluated
  (``"scan"``);
- **integer keys**, a wider range: the metric is evaluated on a grid of :data:`GRID` values
  plus the edges of the valid region (found by bisection on validity, which costs no metric
  evaluation); if it is monotone there (checked: for Monte Carlo metrics a reversal counts
  when the two intervals do not overlap), integer bisection finds the two neighbours around
  the target (``"bisection"``); a metric that is not monotone there is refused with a
  one-line ``ValueError`` asking for ``bounds=`` narrow enough to scan;
- **real keys**: the grid, then ``scipy.optimize.brentq`` in the bracket where the metric
  crosses the target (``"brentq"``; Monte Carlo metrics stay on the grid, ``"grid"``).

The answer is the evaluated value whose metric is closest to the target. **Ties**: the value
closest to the key's current value wins (the smallest change), then the lower value. For a
Monte Carlo metric every candidate runs from the same seed (common random numbers) and
``Tuned.interval`` is the range of evaluated values whose 95 % interval holds the target.
Invalid candidates (``Rules.updated`` raises ``RulesError``) are skipped, never evaluated.
A target the metric cannot reach is not an error: ``reachable`` is False and ``value`` is the
closest value, with its metric.

>>> import balance as bl
>>> metric = lambda rules: bl.injuries.death_probability(seconds=40, negative_hp=6, wounds=1,
...                                                      rules=rules)
>>> res = bl.tune.solve(metric, target=0.10, vary="injuries.death_threshold")
>>> res.value, round(res.achieved, 6), res.method
(183, 0.1, 'bisection')
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import check_number
from ..rules import Rules, resolve
from .objective import Objective, Point, objective, one_cluster
from .space import Knob, knob

__all__ = ["Tuned", "solve", "MAX_SCAN", "GRID"]

#: integer ranges up to this many values are scanned value by value
MAX_SCAN = 2001
#: grid points of the monotonicity check and of real keys
GRID = 33


@dataclass(frozen=True)
class Tuned:
    """The answer of :func:`solve`.

    Attributes
    ----------
    key, target : what was varied, and the metric value aimed at.
    value : int or float
        The chosen value (closest metric to the target; ties: closest to ``current``, then lower).
    achieved : float
        The metric at ``value`` (``ci`` its 95 % interval for a Monte Carlo metric).
    curve : DataFrame
        value, metric (ci_low, ci_high, holds_target for Monte Carlo) over the values tried.
    rules : Rules
        The input rules with that one value changed (``rules.save(path)`` writes the variant).
    reachable : bool
        False when no valid value gets the metric to the target (``value`` is then the closest).
    interval : (low, high) or None
        Monte Carlo: the range of evaluated values whose interval holds the target.
    method, monotone, current, skipped, note : how it was found; ``skipped`` counts invalid
        candidates (never evaluated).
    seed : the master seed of a Monte Carlo metric's runs (None for an exact metric).
    """

    key: str
    target: float
    value: float
    achieved: float
    curve: pd.DataFrame
    rules: Rules
    reachable: bool
    method: str
    monotone: bool
    current: float
    skipped: int
    interval: tuple[float, float] | None = None
    ci: tuple[float, float] | None = None
    metric: str = "metric"
    note: str = ""
    seed: int | None = None

    def save(self, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
        """Write the variant file of :attr:`rules` (only what changed)."""
        return self.rules.save(path, overwrite=overwrite)

    def __repr__(self) -> str:
        extra = f", interval={self.interval}" if self.interval is not None else ""
        return (f"Tuned({self.key} = {self.value!r}: {self.metric} = {self.achieved:.6g} for "
                f"target {self.target:g}, reachable={self.reachable}{extra}, {self.method})")


class _Search:
    """Evaluations of one knob, cached; invalid values recorded without evaluation."""

    def __init__(self, k: Knob, obj: Objective):
        self.knob, self.obj = k, obj
        self.points: dict[float, Point] = {}
        self.invalid: set[float] = set()

    def valid(self, v: float) -> bool:
        if v in self.points:
            return True
        if v in self.invalid:
            return False
        ok = self.knob.apply(v) is not None
        if not ok:
            self.invalid.add(v)
        return ok

    def __call__(self, v: float) -> Point | None:
        if v not in self.points:
            rules = self.knob.apply(v) if self.valid(v) else None
            if rules is None:
                return None
            self.points[v] = self.obj(rules)
        return self.points[v]

    def monotone(self) -> bool:
        vals = sorted(self.points)
        pts = [self.points[v] for v in vals]
        up = down = True
        for a, b in zip(pts, pts[1:]):
            if a.exact or b.exact:
                up &= b.estimate >= a.estimate
                down &= b.estimate <= a.estimate
            else:  # a reversal counts when the intervals do not overlap
                up &= b.ci_high >= a.ci_low
                down &= b.ci_low <= a.ci_high
        return up or down


def _edges(s: _Search, grid: list[int]) -> None:
    """Bisect validity between grid neighbours that disagree, and evaluate the edge values."""
    flags = [s.valid(v) for v in grid]
    for (a, fa), (b, fb) in zip(zip(grid, flags), zip(grid[1:], flags[1:])):
        if fa == fb:
            continue
        lo, hi = a, b  # lo has flag fa, hi has flag fb
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if s.valid(mid) == fa:
                lo = mid
            else:
                hi = mid
        s(lo if fa else hi)


def _bisect(s: _Search, target: float) -> None:
    """Integer bisection between the evaluated neighbours that straddle the target."""
    vals = [int(v) for v in sorted(s.points)]
    for a, b in zip(vals, vals[1:]):
        fa, fb = s.points[a].estimate - target, s.points[b].estimate - target
        if fa == 0 or fb == 0 or (fa > 0) != (fb > 0):
            break
    else:
        return
    sign_a = s.points[a].estimate >= target
    while b - a > 1:
        mid = (a + b) // 2
        p = s(mid)
        if p is None:  # invalid inside the bracket: the nearest valid value, outward
            p, mid = _nearest_valid(s, a, b, mid)
            if p is None:
                return
        if (p.estimate >= target) == sign_a:
            a = mid
        else:
            b = mid


def _nearest_valid(s: _Search, a: int, b: int, mid: int):
    for d in range(1, MAX_SCAN):
        for v in (mid - d, mid + d):
            if a < v < b and s.valid(v):
                return s(v), v
        if mid - d <= a and mid + d >= b:
            break
    return None, mid


def _widen(s: _Search, target: float, around: float, lo: float, hi: float) -> None:
    """Monte Carlo: evaluate outward from ``around`` while the intervals hold the target."""
    for step in (-1, 1):
        v, spent = around + step, 0
        while lo <= v <= hi and spent < MAX_SCAN:
            p = s(v)
            spent += 1
            if p is not None and not p.holds(target):
                break
            v += step


def _choose(s: _Search, target: float, current: float) -> float:
    return min(s.points, key=lambda v: (abs(s.points[v].estimate - target),
                                        abs(v - current), v))


def _curve(s: _Search, mc: bool, target: float) -> pd.DataFrame:
    vals = sorted(s.points)
    frame = pd.DataFrame({"value": vals, "metric": [s.points[v].estimate for v in vals]})
    if mc:
        frame["ci_low"] = [s.points[v].ci_low for v in vals]
        frame["ci_high"] = [s.points[v].ci_high for v in vals]
        frame["holds_target"] = [s.points[v].holds(target) for v in vals]
    return frame


@one_cluster
def solve(metric: Any, target: float, vary: str, *, bounds: Any = None,
          rules: Rules | str | None = None, trials: int = 20_000, seed: int = 0,
          workers: Any = 1) -> Tuned:
    """The value of ``vary`` whose ``metric`` is closest to ``target`` (see the module text).

    Parameters
    ----------
    metric : callable or str
        ``metric(rules)`` -> number (exact), Measurement or (estimate, ci_low, ci_high); or a
        catalogue name (:func:`balance.regression.registry.catalogue`).
    target : float
        The metric value wanted.
    vary : str
        A numeric rules key (``"injuries.death_threshold"``) or a transform of
        :data:`balance.tune.space.TRANSFORMS`.
    bounds : (low, high), optional
        Default: the key's ``[limits]`` (a transform's own default).
    rules : Rules, path or None
        The rules to start from (default: bundled).
    trials, seed : Monte Carlo catalogue metrics: trials per candidate, the one master seed.
    workers : int, "dask" or dask.distributed.Client, default 1
        Every candidate's Monte Carlo run goes through :func:`balance.montecarlo.run` with
        these workers (``"dask"``: one LocalCluster for the whole search); exact metrics ignore
        it. The answer and the curve are the same for any value (:mod:`balance.tune.objective`).

    Returns
    -------
    Tuned

    Raises
    ------
    ValueError
        Bad ``vary``/``bounds``/``target``; no valid candidate; a non-monotone metric over an
        integer range too wide to scan.

    Examples
    --------
    >>> import balance as bl
    >>> bl.tune.solve("death.p@40s,6hp,1w", target=0.10, vary="injuries.death_threshold").value
    183
    """
    rules = resolve(rules)
    target = check_number("target", target)
    k = knob(vary, bounds=bounds, rules=rules)
    obj = objective(metric, trials=trials, seed=seed, workers=workers)
    s = _Search(k, obj)
    lo, hi = k.bounds
    if k.integer:
        lo, hi = int(lo), int(hi)
        if hi - lo + 1 <= MAX_SCAN:
            method = "scan"
            for v in range(lo, hi + 1):
                s(v)
        else:
            method = "bisection"
            grid = sorted({int(round(x)) for x in np.linspace(lo, hi, GRID)})
            for v in grid:
                s(v)
            _edges(s, grid)
            if s.points and not s.monotone():
                raise ValueError(f"metric {obj.label} is not monotone in {vary} over "
                                 f"{lo}..{hi}; give bounds= spanning at most {MAX_SCAN} values "
                                 "to scan them all")
            _bisect(s, target)
    else:
        method = "grid"
        for x in np.linspace(lo, hi, GRID):
            s(float(x))
    if not s.points:
        raise ValueError(f"vary: no valid value of {vary} in {lo}..{hi} (every candidate breaks "
                         "a rule); widen or move bounds=")
    mc = not next(iter(s.points.values())).exact
    if not k.integer and not mc:
        method = _brent(s, target) or method
    best = _choose(s, target, k.current)
    if mc and k.integer and method == "bisection":
        _widen(s, target, best, lo, hi)
        best = _choose(s, target, k.current)
    est = [p.estimate for p in s.points.values()]
    reachable = min(est) <= target <= max(est) or any(p.holds(target) for p in s.points.values())
    holding = [v for v, p in s.points.items() if not p.exact and p.holds(target)]
    point = s.points[best]
    note = "" if reachable else (f"target {target:g} is out of reach over {lo}..{hi}: the metric "
                                 f"spans {min(est):.6g} to {max(est):.6g}; closest at "
                                 f"{vary} = {best}")
    chosen = k.apply(best)
    assert chosen is not None  # best was evaluated, so it is valid
    return Tuned(key=vary, target=float(target), value=best, achieved=point.estimate,
                 curve=_curve(s, mc, target), rules=chosen, reachable=bool(reachable),
                 method=method, monotone=s.monotone(), current=k.current,
                 skipped=len(s.invalid), interval=(min(holding), max(holding)) if holding else None,
                 ci=None if point.exact else (point.ci_low, point.ci_high), metric=obj.label,
                 note=note, seed=seed if mc else None)


def _brent(s: _Search, target: float) -> str | None:
    """Exact metric of a real key: brentq in the first grid bracket around the target."""
    from scipy.optimize import brentq

    vals = sorted(s.points)
    for a, b in zip(vals, vals[1:]):
        fa, fb = s.points[a].estimate - target, s.points[b].estimate - target
        if fa == 0 or fb == 0:
            return None
        if (fa > 0) != (fb > 0):
            def f(x: float) -> float:
                p = s(float(x))
                return math.nan if p is None else p.estimate - target
            try:
                brentq(f, a, b, xtol=1e-9 * max(1.0, abs(b - a)))
            except ValueError:  # an invalid value inside the bracket
                return None
            return "brentq"
    return None
