"""Confidence intervals for Monte Carlo estimates.

Proportions get the Wilson score interval, which stays inside [0, 1] and is exact at the
edges (0 successes -> low = 0; all successes -> high = 1). Means get the normal interval
``estimate +/- z * se``. Both are vectorised and take ``confidence`` (default 95 %).

>>> from balance.montecarlo.intervals import wilson
>>> low, high = wilson(0, 100)
>>> float(low), round(float(high), 4)
(0.0, 0.037)
"""
from __future__ import annotations

from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ..errors import check_integer_array, check_number

__all__ = ["z_value", "wilson", "normal_interval", "mean_se", "proportion_table"]


def z_value(confidence: float = 0.95) -> float:
    """Two-sided standard-normal quantile for ``confidence`` (0.95 -> 1.95996...)."""
    confidence = check_number("confidence", confidence, min=0.0, strict_min=True)
    if confidence >= 1:
        raise ValueError(f"confidence must be a number strictly between 0 and 1, got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def _counts(successes: object, trials: object) -> tuple[np.ndarray, np.ndarray]:
    k = check_integer_array("successes", successes, min=0)
    n = check_integer_array("trials", trials, min=1)
    try:
        k, n = np.broadcast_arrays(k, n)
    except ValueError:
        raise ValueError(f"successes (shape {k.shape}) and trials (shape {n.shape}) "
                         "must broadcast together") from None
    if np.any(k > n):
        raise ValueError("successes must be <= trials, got "
                         f"{int(k[k > n].flat[0])} > {int(n[k > n].flat[0])}")
    return k, n


def wilson(successes, trials, confidence: float = 0.95):
    """Wilson score interval of a binomial proportion.

    Parameters
    ----------
    successes, trials : int or array of int
        Counts (broadcast together); ``0 <= successes <= trials``, ``trials >= 1``.
    confidence : float
        Two-sided coverage, strictly between 0 and 1.

    Returns
    -------
    (low, high) : floats (scalar input) or arrays
        Exactly 0 when ``successes == 0`` and exactly 1 when ``successes == trials``.
    """
    z = z_value(confidence)
    low, high = _wilson(*_counts(successes, trials), z)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def _wilson(k: np.ndarray, n: np.ndarray, z: float) -> tuple[np.ndarray, np.ndarray]:
    """The Wilson bounds of validated counts (shared by :func:`wilson` and the tables)."""
    kf, nf = k.astype(np.float64), n.astype(np.float64)
    p = kf / nf
    z2 = z * z
    denom = 1.0 + z2 / nf
    center = (p + z2 / (2.0 * nf)) / denom
    half = z * np.sqrt(p * (1.0 - p) / nf + z2 / (4.0 * nf * nf)) / denom
    low = np.where(k == 0, 0.0, np.clip(center - half, 0.0, 1.0))
    high = np.where(k == n, 1.0, np.clip(center + half, 0.0, 1.0))
    return low, high


def normal_interval(estimate, se, confidence: float = 0.95):
    """``estimate -/+ z * se`` (the interval of a mean from its standard error)."""
    z = z_value(confidence)
    estimate, se = np.asarray(estimate, dtype=np.float64), np.asarray(se, dtype=np.float64)
    return estimate - z * se, estimate + z * se


def mean_se(total: ArrayLike, total_sq: ArrayLike, count: ArrayLike) -> tuple[Any, Any]:
    """Mean per case and its standard error from a sum, a sum of squares and a count.

    The one place the project turns additive accumulators into a mean: ``mean = S / N`` and
    ``se = sqrt(var / N)``, ``var = max((Q - S * mean) / (N - 1), 0)`` the sample variance
    (rounding can make ``Q - S * mean`` slightly negative). Pair it with
    :func:`normal_interval` for the interval.

    Parameters
    ----------
    total, total_sq : float or array
        Sum ``S`` and sum of squares ``Q`` of the values (broadcast together with ``count``).
    count : int, float or array
        Number of cases ``N`` (the trials, or the cases of a conditional mean).

    Returns
    -------
    (mean, se) : floats (scalar input) or arrays
        ``mean`` is NaN where ``N == 0``; ``se`` is NaN where ``N < 2`` (one case has no spread).

    Examples
    --------
    Values 1, 2, 3, 6 (S = 12, Q = 50): mean 3, sample variance 14 / 3.

    >>> from balance.montecarlo.intervals import mean_se
    >>> mean, se = mean_se(12, 50, 4)
    >>> mean, round(se ** 2 * 4, 12)
    (3.0, 4.666666666667)
    >>> mean_se(5, 25, 1)
    (5.0, nan)
    """
    s = np.asarray(total, dtype=np.float64)
    q = np.asarray(total_sq, dtype=np.float64)
    n = np.asarray(count, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = s / n
        var = np.clip((q - s * mean) / (n - 1), 0.0, None)
        se = np.where(n >= 2, np.sqrt(var / n), np.nan)
    if mean.ndim == 0 and se.ndim == 0:
        return float(mean), float(se)
    return mean, se


def proportion_table(counts, trials, index=None, *, confidence: float = 0.95) -> pd.DataFrame:
    """Tidy table of proportions ``counts / trials`` with Wilson intervals.

    Parameters
    ----------
    counts : int or array of int
        Successes per cell (any shape; more than one dimension gives a MultiIndex).
    trials : int or array of int
        Denominator, broadcast against ``counts`` (an array gives conditional proportions).
    index : sequence or pandas Index, optional
        Labels of the cells (default ``0..k-1``); its length must match ``counts``.

    Returns
    -------
    DataFrame
        Columns ``estimate, ci_low, ci_high, se, trials``; ``se = sqrt(p (1 - p) / trials)``.
    """
    z = z_value(confidence)
    k, n = _counts(counts, trials)
    low, high = _wilson(k, n, z)
    p = k / n
    frame = pd.DataFrame({
        "estimate": np.ravel(p),
        "ci_low": np.ravel(low),
        "ci_high": np.ravel(high),
        "se": np.ravel(np.sqrt(p * (1.0 - p) / n)),
        "trials": np.ravel(n),
    })
    if index is None:
        if k.ndim > 1:
            index = pd.MultiIndex.from_tuples(list(np.ndindex(k.shape)),
                                              names=[f"dim_{i}" for i in range(k.ndim)])
        else:
            index = pd.RangeIndex(len(frame))
    if len(index) != len(frame):
        raise ValueError(f"index has {len(index)} labels but counts has {len(frame)} cells")
    frame.index = index if isinstance(index, pd.Index) else pd.Index(index)
    return frame
