"""Two-sample tests for Monte Carlo metrics, Holm's correction, and one-sided bounds.

Each test answers "could both samples come from the same rules?" for one metric shape:

* proportion: the pooled two-proportion z test (two-sided), or Fisher's exact test when an
  expected count is below 5;
* distribution: the chi-square test of homogeneity on the 2 x K table of counts
  (``scipy.stats.chi2_contingency``, no continuity correction), with categories whose
  expected count is below 5 pooled into one;
* mean: Welch's z test from sums and sums of squares.

Both samples are assumed independent. Run from the *same* seed (common random numbers), the
estimates are positively correlated, the variance of their difference is smaller than the
tests assume, and the p-values are conservative (too large): no extra false alarms (a paired
test would be sharper). :func:`holm` then controls the family-wise error over the whole
catalogue.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats

from ..montecarlo.intervals import mean_se

__all__ = ["two_proportions", "homogeneity", "two_means", "holm", "upper_bound", "lower_bound",
           "trials_for_power"]

_MIN_EXPECTED = 5.0


def two_proportions(x1: int, n1: int, x2: int, n2: int) -> float:
    """Two-sided p-value of H0: p1 == p2, from ``x1`` of ``n1`` and ``x2`` of ``n2``."""
    if n1 <= 0 or n2 <= 0:
        raise ValueError("trials must be >= 1 on both sides")
    pooled = (x1 + x2) / (n1 + n2)
    if pooled in (0.0, 1.0):
        return 1.0
    expected = min(n1, n2) * min(pooled, 1 - pooled)
    if expected < _MIN_EXPECTED:
        return float(stats.fisher_exact([[x1, n1 - x1], [x2, n2 - x2]])[1])
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    z = (x1 / n1 - x2 / n2) / se
    return float(2 * stats.norm.sf(abs(z)))


def homogeneity(counts1: Sequence[int], counts2: Sequence[int]) -> float:
    """p-value of H0: both count vectors come from the same distribution (chi-square)."""
    table = np.array([counts1, counts2], dtype=np.float64)
    if table.ndim != 2 or table.shape[1] == 0:
        raise ValueError("counts must be two vectors of the same length")
    table = table[:, table.sum(axis=0) > 0]
    if table.shape[1] < 2 or (table.sum(axis=1) == 0).any():
        return 1.0
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / table.sum()
    sparse = expected.min(axis=0) < _MIN_EXPECTED
    if sparse.any():
        pooled = table[:, sparse].sum(axis=1, keepdims=True)
        table = np.concatenate([table[:, ~sparse], pooled], axis=1)
    if table.shape[1] < 2:
        return 1.0
    if table.shape[1] == 2:
        return two_proportions(int(table[0, 0]), int(table[0].sum()),
                               int(table[1, 0]), int(table[1].sum()))
    return float(stats.chi2_contingency(table, correction=False)[1])


def two_means(s1: float, q1: float, n1: int, s2: float, q2: float, n2: int) -> float:
    """Two-sided p-value of H0: equal means (Welch z), from sums ``s`` and sums of squares ``q``."""
    (m1, se1), (m2, se2) = mean_se(s1, q1, n1), mean_se(s2, q2, n2)
    se = math.hypot(se1, se2)
    if se == 0:
        return 1.0 if m1 == m2 else 0.0
    return float(2 * stats.norm.sf(abs(m1 - m2) / se))


def holm(p_values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (NaN entries stay NaN and are not counted).

    Sorted ascending, ``p_(i)`` becomes ``max_{j <= i} min(1, (m - j + 1) p_(j))``; a hypothesis
    is rejected at level alpha when its adjusted p-value is ``<= alpha``. This controls the
    probability of any false alarm across the family at alpha, with no assumption on how the
    tests depend on each other.
    """
    p = np.asarray(p_values, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    m = int(ok.sum())
    if m == 0:
        return out
    idx = np.flatnonzero(ok)[np.argsort(p[ok], kind="stable")]
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[idx])
    out[idx] = np.maximum.accumulate(scaled)
    return out


def upper_bound(successes: int, trials: int, confidence: float = 0.95) -> float:
    """One-sided Clopper-Pearson upper bound of a proportion (exact, conservative)."""
    if successes >= trials:
        return 1.0
    return float(stats.beta.ppf(confidence, successes + 1, trials - successes))


def lower_bound(successes: int, trials: int, confidence: float = 0.95) -> float:
    """One-sided Clopper-Pearson lower bound of a proportion."""
    if successes <= 0:
        return 0.0
    return float(stats.beta.ppf(1 - confidence, successes, trials - successes + 1))


def trials_for_power(p1: float, p2: float, *, alpha: float = 0.05, power: float = 0.9) -> int:
    """Trials per side for the two-sided two-proportion z test at level ``alpha`` to detect
    ``p1`` vs ``p2`` with probability ``power`` (independent samples, normal approximation)."""
    if p1 == p2:
        raise ValueError("p1 and p2 must differ")
    za = stats.norm.isf(alpha / 2)
    zb = stats.norm.isf(1 - power)
    pbar = (p1 + p2) / 2
    num = za * math.sqrt(2 * pbar * (1 - pbar)) + zb * math.sqrt(p1 * (1 - p1) + p2 * (1 - p2))
    return int(math.ceil((num / (p1 - p2)) ** 2))
