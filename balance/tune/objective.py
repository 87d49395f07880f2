"""What a tuning aims at: a metric of the rules, as one number (with its interval when it is a
Monte Carlo estimate).

A metric is either a function ``metric(rules)`` returning a number (exact), a
:class:`~balance.regression.metrics.Measurement`, or an ``(estimate, ci_low, ci_high)``
triple (Monte Carlo); or the name of a catalogue metric (``"death.p@40s,6hp,1w"``,
:func:`balance.regression.registry.catalogue`), whose Monte Carlo ones run ``trials`` trials
from the *same* seed stream for every candidate (common random numbers).

>>> m = objective("death.p@40s,6hp,1w")
>>> m.kind, m.label, m(m.rules_default()).estimate
('exact', 'death.p@40s,6hp,1w', 0.17)
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..budgets import check_trials
from ..errors import check_integer
from ..regression.metrics import Measurement, metric_seed
from ..regression.registry import metric as catalogue_metric
from ..rules import Rules, resolve

__all__ = ["Point", "Objective", "objective"]


class Point(NamedTuple):
    """A metric's value: estimate and 95 % interval (NaN for an exact metric)."""

    estimate: float
    ci_low: float = math.nan
    ci_high: float = math.nan

    @property
    def exact(self) -> bool:
        return math.isnan(self.ci_low)

    def holds(self, target: float) -> bool:
        """The interval holds ``target`` (an exact value: equals it)."""
        if self.exact:
            return self.estimate == target
        return self.ci_low <= target <= self.ci_high


def _point(value: Any, label: str) -> Point:
    if isinstance(value, Measurement):
        if not isinstance(value.value, (int, float)):
            raise ValueError(f"metric {label}: a distribution is not one number; pick one "
                             "of its probabilities in a function")
        low, high = value.interval if value.interval is not None else (math.nan, math.nan)
        return Point(float(value.value), float(low), float(high))
    if isinstance(value, tuple) and len(value) == 3:
        return Point(*(float(v) for v in value))
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"metric {label} must return a number, a Measurement or "
                         f"(estimate, ci_low, ci_high), got {value!r}") from None
    if not math.isfinite(number):
        raise ValueError(f"metric {label} returned {number}, not a finite number")
    return Point(number)


@dataclass(frozen=True)
class Objective:
    """A metric made callable on rules: ``objective(rules) -> Point``."""

    label: str
    kind: str  # "exact" or "mc" (known after the first call for functions)
    compute: Callable[[Rules], Any]

    def __call__(self, rules: Rules) -> Point:
        return _point(self.compute(rules), self.label)

    @staticmethod
    def rules_default() -> Rules:
        return resolve(None)


def objective(metric: Any, *, trials: int = 20_000, seed: int = 0) -> Objective:
    """The :class:`Objective` of ``metric`` (a function or a catalogue name).

    Raises
    ------
    ValueError
        An unknown catalogue name (with the closest names), a distribution metric, or
        something that is neither a name nor a function.
    """
    if isinstance(metric, Objective):
        return metric
    if isinstance(metric, str):
        m = catalogue_metric(metric)
        if m.shape == "distribution":
            raise ValueError(f"metric {metric!r} is a distribution, not one number; tune one "
                             "of its probabilities with a function")
        if m.kind == "exact":
            return Objective(metric, "exact", m.compute)
        n = m.trials_for(check_trials(trials))
        master = check_integer("seed", 0 if seed is None else seed, min=0)
        # a fresh stream per call: SeedSequence.spawn counts its children, so reusing one
        # object would give every candidate different numbers
        return Objective(metric, "mc",
                         lambda rules: m.compute(rules, n, metric_seed(master, m.name)))
    if callable(metric):
        label = getattr(metric, "__name__", "metric")
        return Objective("metric" if label == "<lambda>" else label, "function", metric)
    raise ValueError(f"metric must be a catalogue name such as 'death.p@40s,6hp,1w' or a "
                     f"function of the rules, got {metric!r}")
