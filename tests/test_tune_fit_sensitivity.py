"""bl.tune.fit against brute force, bl.tune.sensitivity against finite differences computed
here, and the Sobol path against the Ishigami function's analytic indices (SALib's own
test function)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import balance as bl
from balance.errors import RulesError

BASE = bl.load_rules()
TARGETS = {"death.p@40s,6hp,1w": 0.10, "death.p@90s,10hp,0w": 0.30}


def p_death(threshold: int, die: int, seconds: int, hp: int, wounds: int) -> float:
    """RULES.md 1.2: P(death) = clip((D - (T - k) + 1) / D, 0, 1), k = (n + 1)(d + npv)."""
    k = (wounds + 1) * (seconds + hp)
    return min(max((die - (threshold - k) + 1) / die, 0.0), 1.0)


def cost(threshold: int, die: int, weights=(1.0, 1.0)) -> float:
    r1 = p_death(threshold, die, 40, 6, 1) - 0.10
    r2 = p_death(threshold, die, 90, 10, 0) - 0.30
    return weights[0] * r1 ** 2 + weights[1] * r2 ** 2


def valid(threshold: int, die: int) -> bool:
    try:
        BASE.updated({"injuries": {"death_threshold": threshold, "die": die}})
        return True
    except RulesError:
        return False


def test_two_keys_two_targets_is_the_brute_force_optimum():
    res = bl.tune.fit(TARGETS, vary=["injuries.death_threshold", "injuries.die"])
    box = [(t, d) for t in range(172, 182) for d in range(92, 105)]
    best = min((cost(t, d), t, d) for t, d in box if valid(t, d))
    assert (res.values["injuries.death_threshold"], res.values["injuries.die"]) == best[1:]
    assert res.cost == pytest.approx(best[0], abs=1e-15)
    achieved = [p_death(best[1], best[2], 40, 6, 1), p_death(best[1], best[2], 90, 10, 0)]
    assert res.residuals["achieved"].tolist() == pytest.approx(achieved, abs=1e-12)
    assert res.residuals["residual"].tolist() == pytest.approx(
        [a - t for a, t in zip(achieved, TARGETS.values())], abs=1e-12)


def test_one_key_least_squares_is_the_mean_of_the_two_solutions():
    res = bl.tune.fit({"death.p@40s,6hp,1w": 0.10, "death.p@90s,10hp,0w": 0.10},
                      vary="injuries.death_threshold")
    # 0.10 at T = 183 and at T = 191: the squared residuals sum is least at their mean
    best = min(range(176, 200), key=lambda t: (p_death(t, 100, 40, 6, 1) - 0.1) ** 2 +
               (p_death(t, 100, 90, 10, 0) - 0.1) ** 2)
    assert res.values == {"injuries.death_threshold": best} and best == 187


def test_a_zero_weight_target_is_ignored():
    res = bl.tune.fit(TARGETS, vary="injuries.death_threshold", weights=[1.0, 0.0])
    assert res.values["injuries.death_threshold"] == 183
    assert res.residuals["residual"].tolist() == pytest.approx([0.0, 0.0], abs=1e-12)
    assert res.residuals["achieved"].iloc[1] == pytest.approx(p_death(183, 100, 90, 10, 0))


def test_fit_save_round_trip(tmp_path):
    res = bl.tune.fit(TARGETS, vary=["injuries.death_threshold", "injuries.die"])
    res.save(tmp_path / "fit.toml")
    assert bl.load_rules(tmp_path / "fit.toml") == res.rules


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(targets={}), "targets must be"),
    (dict(targets=TARGETS, weights=[1.0]), "one weight per target"),
    (dict(targets=TARGETS, vary=["injuries.die", "injuries.die"]), "distinct keys"),
    (dict(targets=TARGETS, bounds={"injuries.nope": (1, 2)}), "not in vary"),
])
def test_fit_bad_input_is_one_line(kwargs, fragment):
    args = dict(vary="injuries.death_threshold") | kwargs
    with pytest.raises(ValueError, match=fragment):
        bl.tune.fit(**args)


def test_one_at_a_time_slopes_are_finite_differences():
    metric = lambda r: bl.injuries.death_probability(seconds=40, negative_hp=6, wounds=1,
                                                     rules=r)
    t = bl.tune.sensitivity(metric, ["injuries.death_threshold", "injuries.die"]).table
    t = t.set_index("key")
    # die 100 +/- 5 (5 %): a central difference
    lo, hi = p_death(176, 95, 40, 6, 1), p_death(176, 105, 40, 6, 1)
    die = t.loc["injuries.die"]
    assert (die["low"], die["high"]) == (95, 105)
    assert die["slope"] == pytest.approx((hi - lo) / 10, abs=1e-12)
    assert die["elasticity"] == pytest.approx((hi - lo) / 10 * 100 / p_death(176, 100, 40, 6, 1))
    # threshold 176 - 9 lies inside the injury table: one-sided difference 176 -> 185
    thr = t.loc["injuries.death_threshold"]
    assert (thr["low"], thr["high"]) == (176, 185)
    assert thr["slope"] == pytest.approx((p_death(185, 100, 40, 6, 1) -
                                          p_death(176, 100, 40, 6, 1)) / 9, abs=1e-12)
    assert thr["swing"] == pytest.approx(0.09)


def test_the_tornado_puts_the_widest_swing_on_top():
    metric = lambda r: bl.injuries.death_probability(seconds=40, negative_hp=6, wounds=1,
                                                     rules=r)
    s = bl.tune.sensitivity(metric, ["injuries.die", "injuries.death_threshold",
                                     "injuries.automatic_death_seconds"])
    ax = bl.plots.tornado(s)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[-1] == "injuries.death_threshold"  # swing 0.09 > 0.083 > 0
    assert labels[0] == "injuries.automatic_death_seconds"
    import matplotlib.pyplot as plt
    plt.close(ax.figure)


def ishigami_indices(a: float = 7.0, b: float = 0.1):
    """Analytic first-order and total indices of the Ishigami function."""
    v1 = 0.5 * (1 + b * math.pi ** 4 / 5) ** 2
    v2 = a ** 2 / 8
    v13 = b ** 2 * math.pi ** 8 * (1 / 18 - 1 / 50)
    v = v1 + v2 + v13
    return [v1 / v, v2 / v, 0.0], [(v1 + v13) / v, v2 / v, v13 / v]


def test_sobol_indices_of_ishigami_within_their_intervals():
    from SALib.test_functions import Ishigami

    bounds = [(-math.pi, math.pi)] * 3
    t = bl.tune.sobol_indices(Ishigami.evaluate, ["x1", "x2", "x3"], bounds, n=2048, seed=1)
    s1, st = ishigami_indices()
    assert s1[0] == pytest.approx(0.3139, abs=1e-4) and st[2] == pytest.approx(0.2437, abs=1e-4)
    for i in range(3):
        assert abs(t["S1"][i] - s1[i]) <= 2 * t["S1_conf"][i]
        assert abs(t["ST"][i] - st[i]) <= 2 * t["ST_conf"][i]


def test_sobol_of_a_rules_metric_ranks_the_key_that_matters():
    metric = lambda r: bl.injuries.death_probability(seconds=40, negative_hp=6, wounds=1,
                                                     rules=r)
    s = bl.tune.sensitivity(metric, ["injuries.death_threshold", "injuries.automatic_death_seconds"],
                            method="sobol", n=16, bounds={"injuries.death_threshold": (176, 200),
                                                          "injuries.automatic_death_seconds":
                                                          (100, 175)})
    t = s.table.set_index("key")
    # the automatic-death time (above 40 s) changes nothing: its total index is 0 exactly
    assert t.loc["injuries.automatic_death_seconds", "ST"] == 0.0
    assert t.loc["injuries.death_threshold", "ST"] > 0.5


def test_sobol_n_must_be_a_power_of_two():
    with pytest.raises(ValueError, match="power of two"):
        bl.tune.sobol_indices(lambda x: x.sum(axis=1), ["a"], [(0, 1)], n=100)
    assert np.isfinite(bl.tune.sobol_indices(lambda x: x[:, 0], ["a"], [(0, 1)], n=8)["ST"]).all()
