"""Several rule values for several targets, by weighted least squares: ``bl.tune.fit``.

The residual of a target is ``sqrt(weight) * (metric - target)``. Real keys are fitted by
``scipy.optimize.least_squares`` within their bounds; integer keys by the same fit on a
relaxation (the metric interpolated linearly between the neighbouring integers, which costs
the corners of the cell: at most :data:`MAX_RELAXED` integer keys), then rounding, then a
local search (each integer key +/- 1, repeated while the cost drops; ties keep the current
values). Candidates that break a rule are never evaluated: the fit treats them as a wall.

>>> import balance as bl
>>> res = bl.tune.fit({"death.p@40s,6hp,1w": 0.10, "death.p@90s,10hp,0w": 0.10},
...                   vary="injuries.death_threshold")
>>> res.values, res.residuals["achieved"].round(2).tolist()
({'injuries.death_threshold': 187}, [0.06, 0.14])
"""
from __future__ import annotations

import itertools
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import check_number
from ..rules import Rules, resolve
from ..rules.loader import merged
from .objective import objective, one_cluster
from .space import Knob, knob

__all__ = ["Fitted", "fit", "MAX_RELAXED", "apply_values"]

#: integer keys relaxed together (each costs a factor 2 in evaluations)
MAX_RELAXED = 4
_WALL = 1e3  # residual of an invalid candidate


@dataclass(frozen=True)
class Fitted:
    """The answer of :func:`fit`: ``values`` {key: value}, ``residuals`` (metric, target,
    weight, achieved, residual), ``cost`` (sum of squared weighted residuals), ``rules``."""

    values: dict
    residuals: pd.DataFrame
    cost: float
    rules: Rules
    evaluations: int

    def save(self, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
        """Write the variant file of :attr:`rules` (only what changed)."""
        return self.rules.save(path, overwrite=overwrite)


def apply_values(knobs: Sequence[Knob], values: Sequence[float], rules: Rules) -> Rules | None:
    """The rules with every knob at its value, or None when they break a rule."""
    from ..errors import RulesError

    if len(knobs) == 1:
        return knobs[0].apply(values[0])
    overrides: dict = {}
    for k, v in zip(knobs, values):
        overrides = merged(overrides, k.overrides(v))
    try:
        return rules.updated(overrides, source="<fit>")
    except RulesError:
        return None


def _targets(targets: Any, weights: Any, trials: int, seed: Any, workers: Any):
    if isinstance(targets, Mapping):
        pairs = list(targets.items())
    elif isinstance(targets, Sequence) and not isinstance(targets, str):
        pairs = [tuple(t) for t in targets]
    else:
        pairs = []
    if not pairs or any(len(p) != 2 for p in pairs):
        raise ValueError(f"targets must be {{metric: target}} or a list of (metric, target), "
                         f"got {targets!r}")
    if weights is None:
        weights = [1.0] * len(pairs)
    elif isinstance(weights, Mapping):
        weights = [weights.get(m, 1.0) for m, _ in pairs]
    if len(weights) != len(pairs):
        raise ValueError(f"weights must give one weight per target ({len(pairs)}), "
                         f"got {len(weights)}")
    objs = [objective(m, trials=trials, seed=seed, workers=workers) for m, _ in pairs]
    goals = [check_number("target", t) for _, t in pairs]
    ws = [check_number("weight", w, min=0) for w in weights]
    return objs, goals, ws


@one_cluster
def fit(targets: Any, vary: str | Sequence[str], *, bounds: Mapping | None = None,
        weights: Any = None, rules: Rules | str | None = None, trials: int = 20_000,
        seed: int = 0, workers: Any = 1) -> Fitted:
    """Rule values whose metrics come closest to several targets (weighted least squares).

    Parameters
    ----------
    targets : {metric: target} or list of (metric, target)
        Metrics as :func:`balance.tune.solve` takes them (functions or catalogue names).
    vary : str or list of str
        Numeric rules keys or transforms (:mod:`balance.tune.space`).
    bounds : {key: (low, high)}, optional
        Per key; default its ``[limits]``.
    weights : list or {metric: weight}, optional
        Default 1 for every target.
    rules : Rules, path or None
        The rules to start from (default: bundled).
    trials, seed : Monte Carlo catalogue metrics: trials per evaluation, the one master seed
        (every evaluation from the same stream: common random numbers).
    workers : int, "dask" or dask.distributed.Client, default 1
        Every Monte Carlo run goes through :func:`balance.montecarlo.run` with these workers
        (``"dask"``: one LocalCluster for the whole fit); exact metrics ignore it. The fit is
        the same for any value (:mod:`balance.tune.objective`).

    Returns
    -------
    Fitted

    Raises
    ------
    ValueError
        Bad targets, weights, keys or bounds; no valid starting point.
    """
    from scipy.optimize import least_squares

    rules = resolve(rules)
    keys = [vary] if isinstance(vary, str) else list(vary)
    if not keys or len(set(keys)) != len(keys):
        raise ValueError(f"vary must name one or more distinct keys, got {vary!r}")
    bounds = dict(bounds or {})
    unknown = set(bounds) - set(keys)
    if unknown:
        raise ValueError(f"bounds: {', '.join(sorted(unknown))} is not in vary")
    knobs = [knob(k, bounds=bounds.get(k), rules=rules) for k in keys]
    objs, goals, ws = _targets(targets, weights, trials, seed, workers)
    sw = np.sqrt(np.array(ws, dtype=float))
    cache: dict[tuple, np.ndarray | None] = {}

    def at(point: tuple) -> np.ndarray | None:
        if point not in cache:
            r = apply_values(knobs, point, rules)
            cache[point] = None if r is None else \
                np.array([o(r).estimate for o in objs]) - np.array(goals)
        return cache[point]

    ints = [i for i, k in enumerate(knobs) if k.integer]

    def relaxed(x: np.ndarray) -> np.ndarray:
        if not ints or len(ints) > MAX_RELAXED:
            point = tuple(int(round(v)) if k.integer else float(v) for k, v in zip(knobs, x))
            r = at(point)
            return sw * r if r is not None else np.full(len(objs), _WALL)
        floors = {i: math.floor(x[i]) for i in ints}
        total = np.zeros(len(objs))
        for corner in itertools.product((0, 1), repeat=len(ints)):
            weight, cell = 1.0, [float(v) for v in x]
            for bit, i in zip(corner, ints):
                frac = x[i] - floors[i]
                weight *= frac if bit else 1 - frac
                cell[i] = floors[i] + bit
            if weight == 0:
                continue
            r = at(tuple(int(p) if knobs[j].integer else float(p) for j, p in enumerate(cell)))
            if r is None:
                return np.full(len(objs), _WALL)
            total += weight * r
        return sw * total

    lo = np.array([k.bounds[0] for k in knobs], dtype=float)
    hi = np.array([k.bounds[1] for k in knobs], dtype=float)
    x0 = np.clip(np.array([k.current for k in knobs], dtype=float), lo, hi)
    if np.all(relaxed(x0) == _WALL):
        raise ValueError("fit: the starting rules break a rule; start from valid rules")
    res = least_squares(relaxed, x0, bounds=(lo, hi + 1e-9 * (hi == lo)),
                        x_scale=np.maximum(hi - lo, 1.0) / 100)
    best = tuple(int(round(v)) if k.integer else float(v) for k, v in zip(knobs, res.x))

    def cost(point: tuple) -> float:
        r = at(point)
        return math.inf if r is None else float(np.sum((sw * r) ** 2))

    if not math.isfinite(cost(best)):
        best = tuple(int(round(v)) if k.integer else float(v) for k, v in zip(knobs, x0))
    improved = True
    while improved and ints:
        improved = False
        for i in ints:
            for step in (-1, 1):
                cand = list(best)
                cand[i] += step
                if not knobs[i].bounds[0] <= cand[i] <= knobs[i].bounds[1]:
                    continue
                if cost(tuple(cand)) < cost(best):
                    best, improved = tuple(cand), True
    r = at(best)
    frame = pd.DataFrame({"metric": [o.label for o in objs], "target": goals, "weight": ws,
                          "achieved": np.array(goals) + r, "residual": sw * r})
    fitted = apply_values(knobs, best, rules)
    assert fitted is not None  # best has a finite cost, so it is valid
    return Fitted(values=dict(zip(keys, best)), residuals=frame, cost=cost(best),
                  rules=fitted, evaluations=len(cache))
