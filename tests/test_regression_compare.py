"""Comparisons: exact changes, tolerances, common random numbers, the false-alarm rate (a
statistical test of the statistical tests) and the power to see a small real change."""
import math

import numpy as np
import pytest
from scipy import stats as st

import balance as bl
from balance.regression import compare, compare_snapshots, measure, snapshot, stats
from balance.regression.registry import catalogue

D100 = np.arange(1, 101)
MC = ["mc.*"]                   # the cheap Monte Carlo metrics (proportion and distribution)


def test_threshold_180_moves_exact_metrics_by_hand_computed_amounts():
    diff = compare(None, "death_threshold_180", trials=2000, only=["death.*", "d20.*"])
    row = diff.set_index("metric")
    # k = 2 x (40 + 6) = 92: P = mean(face + 92 >= T) -> 0.17 at 176, 0.13 at 180
    for name, k in (("death.p@40s,6hp,1w", 92), ("death.p@90s,10hp,0w", 100)):
        base, var = (np.mean(D100 + k >= t) for t in (176, 180))
        assert (row.loc[name, "base"], row.loc[name, "variant"]) == pytest.approx((base, var))
        assert row.loc[name, "change"] == pytest.approx(var - base)
        assert row.loc[name, "moved"] and row.loc[name, "exact"] and math.isnan(row.loc[name, "p_value"])
    assert not row.loc["death.p@30s,5hp,0w", "moved"]           # k = 35: never dies either way
    assert not row.loc["d20.success@C8", "moved"]
    assert row.loc["death.coinflip_seconds@5hp,0w", "change"] == 4


def test_tolerances_hide_small_changes():
    diff = compare(None, "death_threshold_180", trials=2000, only=["death.p@*"],
                   tolerances={"death.p@*": 0.05})
    assert not diff["moved"].any() and diff["significant"].any()
    diff = compare(None, "death_threshold_180", trials=2000, only=["death.p@*"],
                   tolerances={"death.p@*": 0.01})
    assert diff["moved"].sum() == 5


def test_distribution_rows_name_the_category_that_moved_most():
    diff = compare(None, "death_threshold_180", trials=2000, only=["injuries.*"])
    row = diff.set_index("metric").loc["injuries.outcomes@30s,10hp,2w"]
    # k = 3 x 40 = 120: death needs face >= 56 (0.45) at 176, >= 60 (0.41) at 180
    assert row["category"] == "Death" and row["change"] == pytest.approx(-0.04)


def test_common_random_numbers_reproduce_identical_rules_exactly():
    diff = compare(None, None, trials=3000, seed=5, common_random_numbers=True, only=MC)
    assert (diff["change"] == 0).all() and (diff["p_value"] == 1).all()
    assert diff.attrs["common_random_numbers"]


def test_independent_seeds_by_default():
    diff = compare(None, None, trials=3000, seed=5, only=MC, alpha=0.001)
    assert diff.attrs["variant_seed"] == bl.regression.independent_seed(5) != 5
    assert (diff["change"] != 0).any() and not diff["moved"].any()


def _pairs(n, master=20261130):
    return np.random.default_rng(master).integers(0, 2**31, size=(n, 2)).tolist()


@pytest.fixture(scope="module")
def null_runs():
    """200 comparisons of the default rules with themselves, independent seeds each side."""
    metrics = catalogue(only=MC)
    runs = []
    for a, b in _pairs(200):
        runs.append((measure(None, metrics=metrics, trials=2000, seed=a),
                     measure(None, metrics=metrics, trials=2000, seed=b)))
    return runs


# At the nominal 5 % level, 200 comparisons flag Binomial(200, <= 0.05) times; a count above
# its 99.9 % quantile would show the tests cry wolf.
LIMIT = int(st.binom.ppf(0.999, 200, 0.05))


def test_false_alarm_rate_of_each_test_is_at_most_nominal(null_runs):
    for name in ("mc.death@60s,10hp,1w", "mc.rescue_death@2d20s,1d10hp,2w"):
        p = [stats.two_proportions(x[name].counts[0], x[name].trials, y[name].counts[0],
                                   y[name].trials) for x, y in null_runs]
        assert sum(q <= 0.05 for q in p) <= LIMIT, name
    name = "mc.rescue_severity@2d20s,1d10hp,2w"
    p = [stats.homogeneity(x[name].counts, y[name].counts) for x, y in null_runs]
    assert sum(q <= 0.05 for q in p) <= LIMIT


def test_false_alarm_rate_of_the_whole_comparison_is_at_most_alpha(null_runs):
    metrics = tuple(catalogue(only=MC))

    def snap(meas, seed):
        return snapshot.Snapshot(metrics, meas, "f", ("bundled",), 2000, seed, bl.__version__)
    flagged = sum(bool(compare_snapshots(snap(x, 1), snap(y, 2))["moved"].any())
                  for x, y in null_runs)
    assert flagged <= LIMIT


def test_the_false_alarm_check_has_teeth(null_runs):
    """An anti-conservative test (standard error halved) fails the same check."""
    name = "mc.death@60s,10hp,1w"
    flagged = 0
    for x, y in null_runs:
        a, b, n = x[name].counts[0], y[name].counts[0], 2000
        pooled = (a + b) / (2 * n)
        z = (a - b) / n / (0.5 * math.sqrt(pooled * (1 - pooled) * 2 / n))
        flagged += math.erfc(abs(z) / math.sqrt(2)) <= 0.05
    assert flagged > LIMIT


def test_power_threshold_176_to_178():
    """A 2-point threshold change moves mc.death@60s,10hp,1w from 0.65 to 0.63 (enumeration);
    the trials the z test needs at Holm's strictest level (alpha / m) for 90 % power, per side,
    detect it in at least 7 of 10 independent comparisons (about 94 % power each at 20,000
    trials, so fewer than 7 has probability ~0.2 %)."""
    p176, p178 = (float(np.mean(D100 + 2 * 70 >= t)) for t in (176, 178))
    assert (p176, p178) == (0.65, 0.63)
    only = ["mc.*", "rescue.*"]
    m = len(catalogue(only=only))
    trials = stats.trials_for_power(p176, p178, alpha=0.05 / m, power=0.9)
    assert 15_000 < trials < 20_000                   # README: 20,000 trials per side suffice
    variant = bl.load_rules().updated({"injuries": {"death_threshold": 178}})
    hits = 0
    for a, _ in _pairs(10, master=178):
        diff = compare(None, variant, trials=20_000, seed=a, only=only).set_index("metric")
        hits += bool(diff.loc["mc.death@60s,10hp,1w", "moved"])
    assert hits >= 7


def test_alpha_is_validated():
    with pytest.raises(ValueError, match="alpha"):
        compare(None, None, trials=10, alpha=0, only=MC)
