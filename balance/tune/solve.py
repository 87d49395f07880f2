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

The answer is the evaluated value whose metric is closest to the target. **Ties** (distances
equal within :data:`TIE_TOL`, so float rounding decides nothing): the value closest to the
key's current value wins (the smallest change), then the lower value. On a plateau (many values
with the best metric, e.g. a probability 0 for every threshold past some point) the search
bisects for the plateau's edge nearest the current value, so the answer is that edge, not an
arbitrary plateau point (a real key: to within the bisection's tolerance). When no value gives
the target exactly (an integer key between two values, a step the metric jumps over),
``attained`` is False and ``note`` says so with the two values around the target. For a
Monte Carlo metric every candidate runs from the same seed (common random numbers) and
``Tuned.interval`` is the range of evaluated values whose 95 % interval holds the target
(integer bisection: its edges found by bisection outward from the answer).
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

__all__ = ["Tuned", "solve", "MAX_SCAN", "GRID", "TIE_TOL", "shown_values"]

#: integer ranges up to this many values are scanned value by value
MAX_SCAN = 2001
#: grid points of the monotonicity check and of real keys
GRID = 33
#: (relative, absolute) tolerance under which two distances to the target are a tie
TIE_TOL = (1e-9, 1e-12)


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
        False when the target lies outside the metric's span over the valid values (``value``
        is then the closest).
    attained : bool
        Some value gives the target (an exact metric: equal within :data:`TIE_TOL`; Monte
        Carlo: its interval holds it). False for a target between two integer values' metrics
        or inside a step the metric jumps over (``note`` names the values around it).
    interval : (low, high) or None
        Monte Carlo: the range of evaluated values whose interval holds the target.
    method, monotone, current, skipped, note : how it was found; ``skipped`` counts invalid
        candidates (never evaluated), and ``note`` then says which values they were and the
        rules' refusal of the one nearest the valid values.
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
    attained: bool = True

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


def _tie(a: float, b: float) -> bool:
    """Equal within :data:`TIE_TOL` (two distances to the target, a metric and the target)."""
    return math.isclose(a, b, rel_tol=TIE_TOL[0], abs_tol=TIE_TOL[1])


def _side(p: Point, target: float) -> int:
    """-1, 0 or 1: the metric below the target, at it (within :data:`TIE_TOL`), above it."""
    if _tie(p.estimate, target):
        return 0
    return 1 if p.estimate > target else -1


def _bisect(s: _Search, target: float) -> None:
    """Integer bisection between the first evaluated neighbours on different sides of the
    target (below / at / above it): ends on two adjacent values, one on each side."""
    vals = [int(v) for v in sorted(s.points)]
    for a, b in zip(vals, vals[1:]):
        if _side(s.points[a], target) != _side(s.points[b], target):
            break
    else:
        return
    side_a = _side(s.points[a], target)
    while b - a > 1:
        mid = (a + b) // 2
        p = s(mid)
        if p is None:  # invalid inside the bracket: the nearest valid value, outward
            p, mid = _nearest_valid(s, a, b, mid)
            if p is None:
                return
        if _side(p, target) == side_a:
            a = mid
        else:
            b = mid


def _edge(s: _Search, target: float, best: float, current: float, integer: bool,
          xtol: float) -> None:
    """Bisect from ``best`` toward ``current`` for the last value whose distance to the target
    ties ``best``'s: the edge of a plateau nearest the current value. An invalid value counts
    as the end of the plateau."""
    for _ in range(2):  # the current value, when it lies between, is evaluated first
        vals = sorted(s.points)
        i = vals.index(best)
        j = i + (1 if current > best else -1)
        if best == current or not 0 <= j < len(vals):
            return
        n = vals[j]
        if not min(best, n) < current < max(best, n):
            break
        if s(current) is None:
            n = current
            break
        best = _choose(s, target, current)
    ref = abs(s.points[best].estimate - target)
    while abs(n - best) > (1 if integer else xtol):
        mid = (best + n) // 2 if integer else (best + n) / 2
        p = s(mid)
        d = math.inf if p is None else abs(p.estimate - target)
        if d <= ref or _tie(d, ref):
            best = mid
        else:
            n = mid


def _nearest_valid(s: _Search, a: int, b: int, mid: int):
    for d in range(1, MAX_SCAN):
        for v in (mid - d, mid + d):
            if a < v < b and s.valid(v):
                return s(v), v
        if mid - d <= a and mid + d >= b:
            break
    return None, mid


def _widen(s: _Search, target: float, around: float, lo: float, hi: float) -> None:
    """Monte Carlo, a monotone metric: the edges of the run of values whose intervals hold the
    target, outward from ``around``, by bisection between the last evaluated value that holds
    it and the first that does not (a few runs, however wide the run: a probability 0 holds
    target 0 for every threshold past some point)."""
    for step in (-1, 1):
        beyond = sorted((v for v in s.points if (v - around) * step > 0),
                        key=lambda v: abs(v - around))
        held, out = around, None
        for v in beyond:
            if not s.points[v].holds(target):
                out = v
                break
            held = v
        if out is None:  # every evaluated value that way holds it: up to the bound
            edge = hi if step > 0 else lo
            p = s(edge) if held != edge else None
            if p is None or p.holds(target):
                continue
            out = edge
        while abs(out - held) > 1:
            mid = (held + out) // 2
            p = s(mid)
            if p is None:  # an invalid value: the run ends here
                break
            if p.holds(target):
                held = mid
            else:
                out = mid


def _choose(s: _Search, target: float, current: float) -> float:
    """The evaluated value closest to the target; ties (:func:`_tie`): nearest ``current``,
    then the lower value."""
    dist = {v: abs(p.estimate - target) for v, p in s.points.items()}
    least = min(dist.values())
    tied = [v for v, d in dist.items() if d <= least or _tie(d, least)]
    return min(tied, key=lambda v: (abs(v - current), v))


def _skipped_note(s: _Search, key: str) -> str:
    """Why tried values were skipped: how many, their range and the rules' refusal of the
    one nearest the valid ones (a designer sees where the rules stop, not just a count)."""
    bad = sorted(s.invalid)
    near = min(bad, key=lambda v: min((abs(v - p) for p in s.points), default=0))
    span = f"{bad[0]:g}" if len(bad) == 1 else f"{len(bad)} values in {bad[0]:g}..{bad[-1]:g}"
    return f"skipped {span} that the rules refuse, e.g. {key} = {near:g}: {s.knob.why(near)}"


def _gap_note(s: _Search, target: float, best: float, key: str, current: float) -> str:
    """What to say when no evaluated value gives the target: the two values around it."""
    vals = sorted(s.points)
    pairs = [(a, b) for a, b in zip(vals, vals[1:])
             if _side(s.points[a], target) * _side(s.points[b], target) < 0]
    shown = dict(zip(vals, shown_values(vals)))
    ref = abs(s.points[best].estimate - target)
    tied = any(v != best and _tie(abs(p.estimate - target), ref) for v, p in s.points.items())
    rule = (f" (a tie, decided by the rule: nearest the current value {current:g})"
            if tied else "")
    text = f"no value of {key} gives exactly {target:g}"
    if pairs:
        a, b = min(pairs, key=lambda ab: min(abs(ab[0] - best), abs(ab[1] - best)))
        text += (f": the metric goes from {s.points[a].estimate:.6g} at {shown[a]} to "
                 f"{s.points[b].estimate:.6g} at {shown[b]}")
    return f"{text}; {shown[best]} is the closest{rule}"


def shown_values(values: Any, digits: int = 4) -> list[str]:
    """``values`` as text, each with the fewest decimals (at least ``digits``) that tell it
    from its neighbours in sorted order; whole numbers as integers when all are whole.

    >>> shown_values([0.25, 0.6249999, 0.6250001, 0.7])
    ['0.2500', '0.6249999', '0.6250001', '0.7000']
    >>> shown_values([176, 183])
    ['176', '183']
    """
    vals = [float(v) for v in values]
    if all(v.is_integer() for v in vals):
        return [str(int(v)) for v in vals]
    order = sorted(range(len(vals)), key=vals.__getitem__)
    out = [""] * len(vals)
    for k, i in enumerate(order):
        near = [vals[order[j]] for j in (k - 1, k + 1) if 0 <= j < len(order)]
        text = repr(vals[i])
        for d in range(digits, 17):
            if all(f"{n:.{d}f}" != f"{vals[i]:.{d}f}" for n in near if n != vals[i]):
                text = f"{vals[i]:.{d}f}"
                break
        out[i] = text
    return out


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
        raise ValueError(f"bounds: no valid value of {vary} in {lo}..{hi} (every candidate "
                         "breaks a rule); widen or move bounds=")
    mc = not next(iter(s.points.values())).exact
    if not k.integer and not mc:
        method = _brent(s, target) or method
    best = _choose(s, target, k.current)
    if k.integer or not mc:  # a plateau of ties: its edge nearest the current value
        _edge(s, target, best, k.current, k.integer, 1e-9 * max(1.0, hi - lo))
        best = _choose(s, target, k.current)
    if mc and k.integer and method == "bisection":
        _widen(s, target, best, lo, hi)
        best = _choose(s, target, k.current)
    est = [p.estimate for p in s.points.values()]
    reachable = min(est) <= target <= max(est) or any(p.holds(target) for p in s.points.values())
    holding = [v for v, p in s.points.items() if not p.exact and p.holds(target)]
    point = s.points[best]
    attained = point.holds(target) if not point.exact else _tie(point.estimate, target)
    note = ""
    if not reachable:
        note = (f"target {target:g} is out of reach over {lo}..{hi}: the metric spans "
                f"{min(est):.6g} to {max(est):.6g}; closest at {vary} = {best}")
    elif not attained and not mc:
        note = _gap_note(s, target, best, vary, k.current)
    if s.invalid:
        note = "; ".join(filter(None, [note, _skipped_note(s, vary)]))
    chosen = k.apply(best)
    assert chosen is not None  # best was evaluated, so it is valid
    return Tuned(key=vary, target=float(target), value=best, achieved=point.estimate,
                 curve=_curve(s, mc, target), rules=chosen, reachable=bool(reachable),
                 method=method, monotone=s.monotone(), current=k.current,
                 skipped=len(s.invalid), interval=(min(holding), max(holding)) if holding else None,
                 ci=None if point.exact else (point.ci_low, point.ci_high), metric=obj.label,
                 note=note, seed=seed if mc else None, attained=bool(attained))


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
