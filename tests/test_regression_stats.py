"""Statistics of the regression checks: Holm, two-sample tests, one-sided bounds (hand-computed)."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from scipy import stats as st

from balance.regression import stats


def test_holm_matches_hand_computed_example():
    # sorted: 0.005 (x4 = 0.02), 0.01 (x3 = 0.03), 0.03 (x2 = 0.06), 0.04 (x1 = 0.04 -> 0.06)
    adjusted = stats.holm([0.01, 0.04, 0.03, 0.005])
    np.testing.assert_allclose(adjusted, [0.03, 0.06, 0.06, 0.02])
    assert list(adjusted <= 0.05) == [True, False, False, True]


def test_holm_caps_at_one_and_ignores_nan():
    np.testing.assert_allclose(stats.holm([0.5, 0.6]), [1.0, 1.0])
    out = stats.holm([math.nan, 0.01, math.nan, 0.04])
    assert math.isnan(out[0]) and math.isnan(out[2])
    np.testing.assert_allclose(out[[1, 3]], [0.02, 0.04])  # m = 2, not 4
    assert np.isnan(stats.holm([math.nan])).all()


def test_two_proportions_is_the_pooled_z_test():
    # 60/100 vs 40/100: pooled 0.5, se = sqrt(0.25 * 0.02), z = 2 sqrt(2)
    z = 0.2 / math.sqrt(0.25 * 0.02)
    assert stats.two_proportions(60, 100, 40, 100) == pytest.approx(math.erfc(z / math.sqrt(2)))
    assert stats.two_proportions(0, 50, 0, 70) == 1.0
    assert stats.two_proportions(50, 50, 70, 70) == 1.0


def test_two_proportions_uses_fisher_when_counts_are_small():
    # 0/10 vs 3/10, margins (10, 10) x (3, 17): hypergeometric P(k) = C(3,k) C(17,10-k) / C(20,10)
    pk = [math.comb(3, k) * math.comb(17, 10 - k) / math.comb(20, 10) for k in range(4)]
    expected = sum(p for p in pk if p <= pk[0] * (1 + 1e-9))
    assert stats.two_proportions(0, 10, 3, 10) == pytest.approx(expected)


def test_homogeneity_is_the_chi_square_of_the_2xk_table():
    a, b = np.array([120, 300, 580]), np.array([150, 280, 570])
    table = np.array([a, b], dtype=float)
    expected = np.outer(table.sum(1), table.sum(0)) / table.sum()
    chi2 = ((table - expected) ** 2 / expected).sum()
    assert stats.homogeneity(a, b) == pytest.approx(st.chi2.sf(chi2, df=2))


def test_homogeneity_pools_sparse_categories_and_handles_degenerate_tables():
    a, b = [500, 490, 1, 0, 2], [480, 515, 0, 1, 1]
    pooled_a, pooled_b = [500, 490, 3], [480, 515, 2]
    assert stats.homogeneity(a, b) == pytest.approx(stats.homogeneity(pooled_a, pooled_b))
    assert stats.homogeneity([10, 0], [20, 0]) == 1.0     # one category only
    assert stats.homogeneity([0, 0, 5], [0, 0, 9]) == 1.0


def test_two_means_is_welch_z():
    x, y = np.array([1.0, 2, 3, 4, 5] * 20), np.array([2.0, 3, 4, 5, 6] * 20)
    se = math.sqrt(x.var(ddof=1) / x.size + y.var(ddof=1) / y.size)
    z = abs(x.mean() - y.mean()) / se
    got = stats.two_means(x.sum(), (x * x).sum(), x.size, y.sum(), (y * y).sum(), y.size)
    assert got == pytest.approx(math.erfc(z / math.sqrt(2)))
    assert stats.two_means(10.0, 10.0, 10, 10.0, 10.0, 10) == 1.0  # no variance, same mean


@pytest.mark.parametrize("x, n", [(0, 100), (7, 100), (480, 10_000), (99, 100)])
def test_one_sided_bounds_are_clopper_pearson(x, n):
    ub = stats.upper_bound(x, n, 0.95)
    assert st.binom.cdf(x, n, ub) == pytest.approx(0.05, abs=1e-9)
    lb = stats.lower_bound(x, n, 0.95)
    if x > 0:
        assert st.binom.sf(x - 1, n, lb) == pytest.approx(0.05, abs=1e-9)
    else:
        assert lb == 0.0


def test_trials_for_power_by_hand():
    p1, p2 = 0.65, 0.63
    za, zb = st.norm.isf(0.025), st.norm.isf(0.1)
    pbar = 0.64
    n = ((za * math.sqrt(2 * pbar * (1 - pbar)) + zb * math.sqrt(p1 * (1 - p1) + p2 * (1 - p2)))
         / 0.02) ** 2
    assert stats.trials_for_power(p1, p2) == math.ceil(n)
    with pytest.raises(ValueError, match="p1 and p2"):
        stats.trials_for_power(0.3, 0.3)



def _step_down(p, alpha):
    """Holm's procedure as the textbook states it: reject in increasing order of p while
    p_(i) <= alpha / (m - i), stop at the first failure (compared as (m - i) p_(i) <= alpha, the
    same rounding as the adjusted p-values)."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    rejected = set()
    for rank, i in enumerate(order):
        if (len(p) - rank) * p[i] > alpha:
            break
        rejected.add(i)
    return rejected


@settings(max_examples=200, deadline=None)
@given(hs.lists(hs.floats(0, 1), min_size=1, max_size=30), hs.sampled_from([0.01, 0.05, 0.1]))
def test_holm_adjusted_p_values_reject_what_the_step_down_procedure_rejects(p, alpha):
    adjusted = stats.holm(p)
    assert {i for i, q in enumerate(adjusted) if q <= alpha} == _step_down(p, alpha)
    assert np.all(adjusted >= np.asarray(p) - 1e-15) and np.all(adjusted <= 1)


def test_mc_mean_interval_from_sums():
    from types import SimpleNamespace

    from balance.regression.metrics import mc_mean
    x = np.random.default_rng(3).poisson(3.0, size=5000).astype(float)
    m = mc_mean(x.sum(), (x * x).sum(), SimpleNamespace(trials=x.size, seed=3))
    half = st.norm.isf(0.025) * x.std(ddof=1) / math.sqrt(x.size)
    assert m.value == pytest.approx(x.mean())
    assert m.interval == pytest.approx((x.mean() - half, x.mean() + half))
    assert m.sums == (x.sum(), (x * x).sum()) and m.trials == 5000
