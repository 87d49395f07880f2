"""Pytest helpers for designers' own balance assertions.

Exact quantities are compared exactly. Monte Carlo ones pass only when the data *show* the
claim at the given confidence: "below ``limit``" needs the one-sided upper Clopper-Pearson bound
(for a mean, the one-sided normal bound) below ``limit``. With a fixed seed the verdict is
reproducible, and a failure says whether the claim is refuted or merely not shown yet (and
roughly how many trials would settle it).

>>> import balance as bl
>>> from balance.regression.testing import assert_probability_below
>>> assert_probability_below(bl.injuries.death_probability(seconds=30, negative_hp=5), 0.10)
>>> assert_probability_below((480, 10_000), 0.06)          # 4.8 %, upper bound 5.2 %
"""
from __future__ import annotations

import math
import numbers
from typing import cast

from scipy import stats as _st

from ..errors import check_number
from ..montecarlo.intervals import mean_se
from ..rules import Rules
from .metrics import Measurement
from .stats import lower_bound, upper_bound

__all__ = ["assert_probability_below", "assert_probability_above", "assert_metric"]


def _counts(value) -> tuple[int, int] | None:
    """(successes, trials) of a Monte Carlo proportion, or None for an exact number."""
    if isinstance(value, Measurement):
        if value.counts is None or value.trials is None:
            return None
        if len(value.counts) != 1:
            raise ValueError("value is a distribution; use assert_metric(..., category=...)")
        return int(value.counts[0]), int(value.trials)
    if isinstance(value, tuple) and len(value) == 2:
        x, n = value
        if not all(isinstance(v, numbers.Integral) for v in value) or n < 1 or not 0 <= x <= n:
            raise ValueError(f"value as (successes, trials) needs whole numbers with "
                             f"0 <= successes <= trials, trials >= 1; got {value!r}")
        return int(x), int(n)
    return None


def _exact(value) -> float:
    if isinstance(value, Measurement):
        value = value.value
    return check_number("value", value)


def _more_trials(p: float, limit: float, confidence: float) -> int:
    z = _st.norm.isf(1 - confidence)
    gap = abs(limit - p)
    return int(math.ceil(z * z * max(p * (1 - p), 1e-9) / gap ** 2)) if gap > 0 else 0


def _check(value, limit: float, confidence: float, below: bool, what: str) -> None:
    check_number("limit", limit)
    check_number("confidence", confidence, min=0.5, max=1, strict_min=False)
    side = "below" if below else "above"
    counts = _counts(value)
    if counts is None:
        v = _exact(value)
        if (v < limit) if below else (v > limit):
            return
        raise AssertionError(f"{what} is {v:.6g} (exact), not {side} {limit:g}")
    x, n = counts
    p = x / n
    bound = upper_bound(x, n, confidence) if below else lower_bound(x, n, confidence)
    if (bound < limit) if below else (bound > limit):
        return
    level = f"{100 * confidence:g} %"
    name = "upper" if below else "lower"
    if (p >= limit) if below else (p <= limit):
        raise AssertionError(f"{what} is {p:.4g} ({x} of {n} trials; {level} {name} bound "
                             f"{bound:.4g}), not {side} {limit:g}")
    raise AssertionError(f"{what} {p:.4g} ({x} of {n} trials) is {side} {limit:g} but not "
                         f"shown at {level} ({name} bound {bound:.4g}); about "
                         f"{_more_trials(p, limit, confidence):,} trials would settle it")


def assert_probability_below(value, limit: float, *, confidence: float = 0.95,
                             what: str = "probability") -> None:
    """Assert a probability is below ``limit``.

    ``value`` is an exact number, a :class:`~balance.regression.Measurement`, or a Monte Carlo
    count ``(successes, trials)``; Monte Carlo values must have their one-sided upper bound at
    ``confidence`` below ``limit``.
    """
    _check(value, limit, confidence, True, what)


def assert_probability_above(value, limit: float, *, confidence: float = 0.95,
                             what: str = "probability") -> None:
    """Assert a probability is above ``limit`` (see :func:`assert_probability_below`)."""
    _check(value, limit, confidence, False, what)


def assert_metric(name: str, *, below: float | None = None, above: float | None = None,
                  category: str | None = None, rules: Rules | str | None = None,
                  trials: int = 100_000, seed: int = 0, confidence: float = 0.95) -> None:
    """Assert a catalogue metric lies below and/or above limits, for ``rules``.

    Exact metrics are compared exactly; Monte Carlo proportions (or one ``category`` of a
    distribution) with one-sided Clopper-Pearson bounds, means with one-sided normal bounds,
    all at ``confidence`` and a fixed ``seed``.

    >>> assert_metric("death.p@40s,6hp,1w", below=0.2, above=0.1)
    """
    from .registry import measure, metric
    from ..rules import resolve
    if below is None and above is None:
        raise ValueError("assert_metric needs below=, above= or both")
    m = metric(name)
    measured = measure(resolve(rules), metrics=[m], trials=trials, seed=seed)[name]
    what = name
    value: object = measured
    if m.shape == "distribution":
        labels = measured.labels or ()
        if category is None or category not in labels:
            raise ValueError(f"category must be one of {list(labels)} for {name}, "
                             f"got {category!r}")
        i = labels.index(category)
        what = f"{name} [{category}]"
        value = (cast(tuple, measured.value)[i] if measured.counts is None
                 else (int(measured.counts[i]), int(sum(measured.counts))))
    elif m.shape == "mean":
        _check_mean(measured, below, above, confidence, what)
        return
    for limit, is_below in ((below, True), (above, False)):
        if limit is not None:
            _check(value, limit, confidence, is_below, what)


def _check_mean(value: Measurement, below, above, confidence: float, what: str) -> None:
    assert value.sums is not None and value.trials is not None  # a Monte Carlo mean
    s, q = value.sums
    n = value.trials
    mean, se = mean_se(s, q, n)  # se NaN with one trial: nothing is shown
    z = _st.norm.isf(1 - confidence)
    if below is not None and not mean + z * se < below:
        raise AssertionError(f"{what} mean {mean:.4g} (upper bound {mean + z * se:.4g}, {n} "
                             f"trials) is not shown below {below:g}")
    if above is not None and not mean - z * se > above:
        raise AssertionError(f"{what} mean {mean:.4g} (lower bound {mean - z * se:.4g}, {n} "
                             f"trials) is not shown above {above:g}")
