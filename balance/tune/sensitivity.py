"""Which rule values move a metric most: ``bl.tune.sensitivity``.

``method="oat"`` (one at a time): each key moves down and up by one step from its current
value (integer keys by ``max(1, round(step * |value|))``, real keys by ``step * |value|``, or
``step`` itself when the value is 0), the others fixed. The table gives the metric at both ends,
the slope ``(high - low) / (x_high - x_low)`` and the elasticity ``slope * value / metric``
(% change of the metric per % change of the key; NaN where the metric or the value is 0). An
end that breaks a rule is replaced by the current value (a one-sided difference). Exact where
the metric is exact. :func:`balance.plots.tornado` draws it.

``method="sobol"``: global first-order and total Sobol indices with 95 % confidence intervals
(SALib: Saltelli sampling, ``n * (keys + 2)`` evaluations, bootstrap intervals), every key
drawn uniformly over ``value +/- span * |value|`` within its limits (or ``bounds=``), integer
keys rounded. For Monte Carlo metrics and many keys, where one-at-a-time misses interactions.

>>> import balance as bl
>>> metric = lambda r: bl.injuries.death_probability(seconds=40, negative_hp=6, wounds=1, rules=r)
>>> t = bl.tune.sensitivity(metric, ["injuries.death_threshold", "injuries.die"]).table
>>> t[["key", "low", "high", "metric_low", "metric_high"]].round(4).values.tolist()
[['injuries.death_threshold', 176, 185, 0.17, 0.08], ['injuries.die', 95, 105, 0.1263, 0.2095]]
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..budgets import check_length
from ..errors import check_choice, check_integer, check_number
from ..rng import RNGLike, as_seed_sequence
from ..rules import Rules, resolve
from .fit import apply_values
from .objective import objective, one_cluster
from .space import knob

__all__ = ["Sensitivity", "sensitivity", "sobol_indices", "STEP_RANGE"]

#: the relative steps ``step=`` of the one-at-a-time method accepts (``balance sensitivity --step``)
STEP_RANGE = (1e-9, 10.0)


@dataclass(frozen=True)
class Sensitivity:
    """``table``: one row per key (see the module text); ``method``; ``metric`` label."""

    table: pd.DataFrame
    method: str
    metric: str

    def to_df(self) -> pd.DataFrame:
        return self.table.copy()

    def plot(self, ax: Any = None):
        """The tornado chart (:func:`balance.plots.tornado`); returns the axes."""
        from ..plots.tuning import tornado
        return tornado(self, ax=ax)


def _step(value: float, integer: bool, step: float) -> float:
    if integer:
        return max(1, int(round(step * abs(value))))
    return step * abs(value) if value else step


def _valid_end(k: Any, end: float) -> float:
    """``end``, or the valid value nearest to it towards the current value (bisection on
    validity alone: no metric evaluation), so the default Sobol range holds valid rules."""
    if k.apply(end) is not None:
        return end
    bad, good = end, k.current
    for _ in range(60):
        if (k.integer and abs(good - bad) <= 1) or abs(good - bad) <= 1e-9 * max(1, abs(good)):
            break
        mid = (bad + good) // 2 if k.integer else (bad + good) / 2
        if k.apply(mid) is None:
            bad = mid
        else:
            good = mid
    return good


def sobol_indices(func: Callable[[np.ndarray], np.ndarray], names: Sequence[str],
                  bounds: Sequence[tuple[float, float]], *, n: int = 256,
                  seed: RNGLike = 0) -> pd.DataFrame:
    """First-order and total Sobol indices of ``func`` (rows of an (N, D) array -> N values)
    with 95 % bootstrap intervals, through SALib (Saltelli sampling, N * (D + 2) rows).

    Returns a DataFrame: key, S1, S1_conf, ST, ST_conf (``conf``: half-width of the 95 % CI).
    """
    from SALib.analyze import sobol as analyze
    from SALib.sample import sobol as sample

    n = check_integer("n", n, min=8, max=65_536)
    if n & (n - 1):
        raise ValueError(f"n must be a power of two (Sobol sequence), got {n}")
    problem = {"num_vars": len(names), "names": list(names), "bounds": [list(b) for b in bounds]}
    master = int(as_seed_sequence(seed).generate_state(1)[0])
    x = sample.sample(problem, n, calc_second_order=False, seed=master)
    check_length("Sobol samples", range(len(x)))
    y = np.asarray(func(x), dtype=float)
    if not np.all(np.isfinite(y)):
        raise ValueError("sensitivity: some sampled values break a rule or give no number; "
                         "narrow bounds= or span=")
    si = analyze.analyze(problem, y, calc_second_order=False, seed=master)
    return pd.DataFrame({"key": list(names), "S1": si["S1"], "S1_conf": si["S1_conf"],
                         "ST": si["ST"], "ST_conf": si["ST_conf"]})


@one_cluster
def sensitivity(metric: Any, vary: Sequence[str], *, method: str = "oat", step: float = 0.05,
                span: float = 0.2, bounds: Mapping | None = None, n: int = 256,
                rules: Rules | str | None = None, trials: int = 20_000,
                seed: int = 0, workers: Any = 1) -> Sensitivity:
    """How much each key of ``vary`` moves ``metric`` (see the module text).

    Parameters
    ----------
    metric : callable or str
        As :func:`balance.tune.solve` takes it.
    vary : list of str
        Numeric rules keys or transforms.
    method : "oat" or "sobol"
    step : float
        One-at-a-time relative step (default 5 %).
    span, bounds, n : Sobol sampling: relative half-width around the current values (or
        ``{key: (low, high)}``), base sample size (a power of two).
    trials, seed : Monte Carlo catalogue metrics (one seed: common random numbers); ``seed``
        also drives the Sobol sample.
    workers : int, "dask" or dask.distributed.Client, default 1
        Each evaluation (the two ends of every key, or every Sobol sample row) runs its Monte
        Carlo trials through :func:`balance.montecarlo.run` with these workers (``"dask"``:
        one LocalCluster for the whole analysis); exact metrics ignore it. The table is the
        same for any value.

    Returns
    -------
    Sensitivity

    Raises
    ------
    ValueError
        Unknown keys, a bad method/step/span, a Sobol sample breaking a rule.
    """
    rules = resolve(rules)
    method = check_choice("method", method, ["oat", "sobol"])
    keys = [vary] if isinstance(vary, str) else list(vary)
    if not keys or len(set(keys)) != len(keys):
        raise ValueError(f"vary must name one or more distinct keys, got {vary!r}")
    bounds = dict(bounds or {})
    knobs = [knob(k, bounds=bounds.get(k), rules=rules) for k in keys]
    obj = objective(metric, trials=trials, seed=seed, workers=workers)
    if method == "oat":
        step = check_number("step", step, min=STEP_RANGE[0], max=STEP_RANGE[1])
        base = obj(rules).estimate
        rows = []
        for k in knobs:
            v = k.current
            h = _step(v, k.integer, step)
            ends = []
            for x in (max(v - h, k.bounds[0]), min(v + h, k.bounds[1])):
                r = k.apply(x)
                ends.append((x, obj(r).estimate) if r is not None else (v, base))
            (xl, fl), (xh, fh) = ends
            slope = (fh - fl) / (xh - xl) if xh != xl else math.nan
            elast = slope * v / base if base and v and math.isfinite(slope) else math.nan
            rows.append({"key": k.name, "value": v, "low": xl, "high": xh, "metric_low": fl,
                         "metric": base, "metric_high": fh, "slope": slope,
                         "elasticity": elast, "swing": abs(fh - fl)})
        table = pd.DataFrame(rows)
        return Sensitivity(table, "oat", obj.label)
    span = check_number("span", span, min=1e-9, max=10)
    ranges: list[tuple[float, float]] = []
    for k in knobs:
        if k.name in bounds:
            ranges.append((float(k.bounds[0]), float(k.bounds[1])))
            continue
        h = max(span * abs(k.current), 1.0 if k.integer else span)
        ranges.append((_valid_end(k, max(k.current - h, k.bounds[0])),
                       _valid_end(k, min(k.current + h, k.bounds[1]))))

    def evaluate(x: np.ndarray) -> np.ndarray:
        out = np.empty(len(x))
        for i, row in enumerate(x):
            values = [int(round(v)) if k.integer else float(v) for k, v in zip(knobs, row)]
            r = apply_values(knobs, values, rules)
            out[i] = math.nan if r is None else obj(r).estimate
        return out

    table = sobol_indices(evaluate, keys, ranges, n=n, seed=seed)
    table.insert(1, "low", [r[0] for r in ranges])
    table.insert(2, "high", [r[1] for r in ranges])
    return Sensitivity(table, "sobol", obj.label)
