"""Balance metrics: named numbers computed from a :class:`~balance.rules.Rules` object.

A :class:`Metric` is a definition (name, unit, kind, shape, tolerance, compute function);
a :class:`Measurement` is what computing it for one rule set gives. Shapes:

``scalar``
    one exact number (a probability, a price, a ratio...).
``proportion``
    a probability; Monte Carlo ones carry ``successes`` out of ``trials``.
``distribution``
    probabilities over named categories; Monte Carlo ones carry the count vector.
``mean``
    a Monte Carlo mean per trial, carrying the sum and sum of squares.

Exact metrics are compared exactly; Monte Carlo ones with the two-sample test of their
shape (:mod:`balance.regression.stats`), which is why they record counts, not only values.
"""
from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

from ..rules import Rules

__all__ = ["Metric", "Measurement", "KINDS", "SHAPES", "metric_seed", "distribution",
           "mc_proportion", "mc_counts", "mc_mean", "number"]

KINDS = ("exact", "mc")
SHAPES = ("scalar", "proportion", "distribution", "mean")


@dataclass(frozen=True)
class Measurement:
    """The value of one metric for one rule set, with what a two-sample test needs.

    Attributes
    ----------
    value : float or tuple of float
        The estimate (a tuple of probabilities for a distribution).
    labels : tuple of str, optional
        Category names of a distribution.
    interval : (low, high), optional
        95 % interval of a Monte Carlo scalar (Wilson for proportions, normal for means).
    trials, seed : Monte Carlo provenance (None for exact metrics).
    counts : tuple of int, optional
        ``(successes,)`` of a proportion or the count vector of a distribution.
    sums : (sum, sum of squares), optional
        Of a Monte Carlo mean.
    """

    value: float | tuple[float, ...]
    labels: tuple[str, ...] | None = None
    interval: tuple[float, float] | None = None
    trials: int | None = None
    seed: object = None
    counts: tuple[int, ...] | None = None
    sums: tuple[float, float] | None = None

    def to_json(self) -> dict:
        out: dict = {"value": _plain(self.value)}
        for key in ("labels", "interval", "trials", "seed", "counts", "sums"):
            value = getattr(self, key)
            if value is not None:
                out[key] = _plain(value)
        return out


def _plain(value: object) -> object:
    """JSON-ready: lists, Python numbers, and non-finite floats as "inf", "-inf", "nan"
    (an injury that can never be cured takes ``inf`` days; strict JSON has no infinity)."""
    if isinstance(value, (tuple, list, np.ndarray)):
        return [_plain(v) for v in value]
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else str(value)
    return value


def number(value: object) -> float:
    """Read back a number written by :meth:`Measurement.to_json` (``"inf"`` included)."""
    if isinstance(value, str) and value in ("inf", "-inf", "nan"):
        return float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"expected a number, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class Metric:
    """A named balance metric.

    Attributes
    ----------
    name : str
        Stable identifier, e.g. ``"death.p@30s,5hp,0w"``.
    description : str
        What a designer reads in tables and reports.
    unit : str
        ``"probability"``, ``"NX"``, ``"%"``, ``"ratio"``...
    kind : "exact" or "mc"
    shape : "scalar", "proportion", "distribution" or "mean"
    compute : callable
        ``compute(rules) -> Measurement`` for exact metrics,
        ``compute(rules, trials, seed, *, workers=1) -> Measurement`` for Monte Carlo ones
        (``workers``: as :func:`balance.montecarlo.run`, the same result for any value).
    tolerance : float
        Changes whose size is at most this are ignored (for distributions: the largest
        change of one category's probability). A designer overrides it per comparison.
    section : str
        The rules-data section(s) the metric reads (``"injuries"``, ``"d20"``; comma-separated),
        for reports.
    trials_scale : float
        Monte Carlo metrics run ``round(trials * trials_scale)`` trials (costly processes
        run fewer).
    """

    name: str
    description: str
    unit: str
    kind: Literal["exact", "mc"]
    shape: Literal["scalar", "proportion", "distribution", "mean"]
    compute: Callable[..., Measurement] = field(repr=False, compare=False)
    tolerance: float = 0.0
    section: str = ""
    trials_scale: float = 1.0

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        if self.shape not in SHAPES:
            raise ValueError(f"shape must be one of {SHAPES}, got {self.shape!r}")
        if self.kind == "exact" and self.shape == "mean":
            raise ValueError("an exact metric is a scalar, proportion or distribution")
        if not (self.tolerance >= 0 and math.isfinite(self.tolerance)):
            raise ValueError(f"tolerance of {self.name} must be a finite number >= 0")

    def trials_for(self, trials: int) -> int:
        """Trials this metric runs when the catalogue runs ``trials``."""
        return max(1, int(round(trials * self.trials_scale)))

    def measure(self, rules: Rules, *, trials: int, seed: int) -> Measurement:
        """Compute the metric for ``rules`` (Monte Carlo ones with their own seed stream)."""
        if self.kind == "exact":
            return self.compute(rules)
        return self.compute(rules, self.trials_for(trials), metric_seed(seed, self.name))

    def with_tolerance(self, tolerance: float) -> "Metric":
        return replace(self, tolerance=float(tolerance))


def metric_seed(seed: int, name: str) -> np.random.SeedSequence:
    """The seed stream of one Monte Carlo metric under master ``seed``.

    A child of ``SeedSequence(seed)`` keyed by a hash of the metric's name (not its position),
    so adding a metric to the catalogue does not change the others' streams, and no two
    metrics share a stream.
    """
    return np.random.SeedSequence(seed, spawn_key=(zlib.crc32(name.encode("utf-8")),))


def distribution(probabilities: Iterable[float], labels: Iterable[object]) -> Measurement:
    """An exact distribution measurement."""
    return Measurement(value=tuple(float(p) for p in probabilities),
                       labels=tuple(str(x) for x in labels))


def mc_proportion(successes: int, result) -> Measurement:
    """A Monte Carlo proportion from an engine result, with its Wilson 95 % interval."""
    from ..montecarlo.engine import wilson
    low, high = wilson(int(successes), result.trials)
    return Measurement(value=int(successes) / result.trials, interval=(float(low), float(high)),
                       trials=result.trials, seed=result.seed, counts=(int(successes),))


def mc_counts(vector, labels: Sequence[str], result) -> Measurement:
    """A Monte Carlo distribution from a count vector over ``labels``."""
    vector = [int(c) for c in np.asarray(vector)]
    total = sum(vector)
    return Measurement(value=tuple(c / total for c in vector), labels=tuple(map(str, labels)),
                       trials=result.trials, seed=result.seed, counts=tuple(vector))


def mc_mean(total: float, total_sq: float, result) -> Measurement:
    """A Monte Carlo mean per trial from a sum and a sum of squares, with its normal 95 %
    interval (``se = sqrt(sample variance / trials)``)."""
    from ..montecarlo.intervals import mean_se, normal_interval
    n = result.trials
    mean, se = mean_se(float(total), float(total_sq), n)
    low, high = normal_interval(mean, 0.0 if n < 2 else se)  # a snapshot holds finite numbers
    return Measurement(value=mean, interval=(float(low), float(high)), trials=n,
                       seed=result.seed, sums=(float(total), float(total_sq)))
