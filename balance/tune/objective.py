"""What a tuning aims at: a metric of the rules, as one number (with its interval when it is a
Monte Carlo estimate).

A metric is either a function ``metric(rules)`` returning a number (exact), a
:class:`~balance.regression.metrics.Measurement`, or an ``(estimate, ci_low, ci_high)``
triple (Monte Carlo); or the name of a catalogue metric (``"death.p@40s,6hp,1w"``,
:func:`balance.regression.registry.catalogue`), whose Monte Carlo ones run ``trials`` trials
from the *same* seed stream for every candidate (common random numbers).

``workers`` (an int, ``"dask"`` or a ``dask.distributed.Client``) goes to every Monte Carlo run
of a catalogue metric (:func:`balance.montecarlo.run`), and to a function that takes a
``workers`` keyword; exact metrics ignore it. A run's result depends on its seed alone, so
every candidate, curve and index is the same for any ``workers``. The engine splits one run
into blocks of :data:`balance.montecarlo.engine.BLOCK_SIZE` (262,144) trials, so extra workers
help only runs of several blocks (``trials`` of a million, say). :func:`sweep_workers` keeps one
Dask cluster for a whole sweep instead of one per run.

>>> m = objective("death.p@40s,6hp,1w")
>>> m.kind, m.label, m(m.rules_default()).estimate
('exact', 'death.p@40s,6hp,1w', 0.17)
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import math
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

from ..budgets import check_trials
from ..errors import check_integer
from ..montecarlo.blocks import _dask
from ..montecarlo.engine import _check_workers
from ..regression.metrics import Measurement, metric_seed
from ..regression.registry import metric as catalogue_metric
from ..rules import Rules, resolve

__all__ = ["Point", "Objective", "objective", "sweep_workers", "one_cluster"]

F = TypeVar("F", bound=Callable[..., Any])


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


def _named(label: str) -> str:
    """How errors name a metric: ``metric NAME``, or ``the metric function`` for a lambda."""
    return "the metric function" if label == "metric" else f"metric {label}"


def _point(value: Any, label: str) -> Point:
    if isinstance(value, Measurement):
        if not isinstance(value.value, (int, float)):
            raise ValueError(f"{_named(label)}: a distribution is not one number; pick one "
                             "of its probabilities in a function")
        low, high = value.interval if value.interval is not None else (math.nan, math.nan)
        return Point(float(value.value), float(low), float(high))
    if isinstance(value, tuple) and len(value) == 3:
        return Point(*(float(v) for v in value))
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{_named(label)} must return a number, a Measurement or "
                         f"(estimate, ci_low, ci_high), got {value!r}") from None
    if not math.isfinite(number):
        raise ValueError(f"{_named(label)} returned {number}, not a finite number")
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


def _takes_workers(func: Callable) -> bool:
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):  # a builtin without a signature
        return False
    p = params.get("workers")
    return p is not None and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)


def objective(metric: Any, *, trials: int = 20_000, seed: int = 0,
              workers: Any = 1) -> Objective:
    """The :class:`Objective` of ``metric`` (a function or a catalogue name).

    Parameters
    ----------
    metric : callable, str or Objective
        See the module text.
    trials, seed : Monte Carlo catalogue metrics: trials per run, the one master seed.
    workers : int, "dask" or dask.distributed.Client, default 1
        Passed to every Monte Carlo run of a catalogue metric, and to a function with a
        ``workers`` keyword; ignored by exact metrics. Results do not depend on it.

    Raises
    ------
    ValueError
        An unknown catalogue name (with the closest names), a distribution metric, bad
        ``workers``, or something that is neither a name nor a function.
    """
    workers = _check_workers(workers)
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
        return Objective(metric, "mc", lambda rules: m.compute(
            rules, n, metric_seed(master, m.name), workers=workers))
    if callable(metric):
        label = getattr(metric, "__name__", "metric")
        func = functools.partial(metric, workers=workers) if _takes_workers(metric) else metric
        return Objective("metric" if label == "<lambda>" else label, "function", func)
    raise ValueError(f"metric must be a catalogue name such as 'death.p@40s,6hp,1w' or a "
                     f"function of the rules, got {metric!r}")


@contextlib.contextmanager
def sweep_workers(workers: Any) -> Iterator[Any]:
    """``workers`` as :func:`balance.montecarlo.run` takes them, for every run of a sweep:
    ``"dask"`` becomes one LocalCluster's client for the whole sweep (``run`` alone would start
    and close a cluster per run), closed on leaving; anything else is checked and passed on.

    >>> with sweep_workers(2) as w:
    ...     w
    2
    """
    workers = _check_workers(workers)
    if not isinstance(workers, str):
        yield workers
        return
    distributed = _dask()
    with distributed.LocalCluster(n_workers=os.cpu_count() or 1, threads_per_worker=1,
                                  processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        yield client


def one_cluster(func: F) -> F:
    """Decorate a sweep taking ``workers=``: its runs share :func:`sweep_workers`' cluster."""
    @functools.wraps(func)
    def wrapper(*args: Any, workers: Any = 1, **kwargs: Any) -> Any:
        with sweep_workers(workers) as w:
            return func(*args, workers=w, **kwargs)
    return wrapper  # type: ignore[return-value]
