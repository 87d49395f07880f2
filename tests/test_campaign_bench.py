"""The ``campaign`` kernel of ``balance bench``: registered, and its fair plain-Python twin
(:func:`balance.bench.campaign.fair_python_campaigns`, written from the rules) draws the same
distribution as :func:`balance.core.campaign.campaign_sampler` (fixed seeds, 5 standard errors)."""
import math
import random

import numpy as np
import pytest

import balance as bl
from balance import bench
from balance.bench import campaign as cb

N_PY, N_NP = 20_000, 200_000

PLANS = {
    "default": {},
    # more knockouts and deaths, injuries carried in, light treatment only, short intervals
    "light": {"fights": 4, "knockout_chance": 0.5, "arrival": "2d20", "negative_hp": "1d6",
              "start_wounds": 2, "policy": "light", "hours_between": 2, "cunning": 8},
    # full treatment only, a fixed rescue, a long campaign
    "full": {"fights": 15, "knockout_chance": 0.35, "arrival": 20, "negative_hp": 3,
             "policy": "full", "hours_between": 48, "cunning": 14},
    # rules variants: the levels swapped (light removes injuries, full soothes), both
    # removing; a death threshold above the last row's written high (totals up to it land there)
    "swapped levels": {"fights": 6, "knockout_chance": 0.4, "hours_between": 30},
    "both remove": {"fights": 6, "knockout_chance": 0.4, "hours_between": 6},
    "threshold 180": {"fights": 2, "knockout_chance": 0.8, "arrival": "140+1d20",
                      "negative_hp": 1},
}
VARIANTS = {
    "swapped levels": {"treatment": {"full": {"removes_injury": False},
                                     "light": {"removes_injury": True}}},
    "both remove": {"treatment": {"light": {"removes_injury": True}}},
}


def _rules(name):
    if name == "threshold 180":
        return bl.load_rules("death_threshold_180")
    return bl.load_rules().updated(VARIANTS[name]) if name in VARIANTS else bl.load_rules()


def close(p1, p2, se):
    return abs(p1 - p2) <= 5 * se + 1e-12


@pytest.mark.parametrize("name", list(PLANS))
def test_fair_python_twin_draws_the_samplers_distribution(name):
    rules = _rules(name)
    p = bl.campaign.plan(**PLANS[name], rules=rules)
    py = cb.fair_python_campaigns(N_PY, random.Random(5), p, rules)
    vec = bl.campaign.campaign_sampler(N_NP, np.random.default_rng(5), plan=p, rules=rules)
    assert np.array(py["carried"]).sum(axis=1).tolist() == [N_PY] * p.fights
    checked = 0
    # per fight: deaths, characters by injuries carried (or dead), by symptomatic injuries
    for key in ("deaths", "carried", "symptomatic"):
        a, b = np.array(py[key]) / N_PY, np.asarray(vec[key]) / N_NP
        assert a.shape == b.shape, key
        for x, y in zip(a.ravel(), b.ravel()):
            q = (x * N_PY + y * N_NP) / (N_PY + N_NP)
            assert close(x, y, math.sqrt(q * (1 - q) * (1 / N_PY + 1 / N_NP))), (key, x, y)
            checked += q > 0.01
    # knockouts (and deaths) by injuries carried: counts per character, at most `fights` each,
    # so their variance is at most fights x mean
    for x, y in zip(np.array(py["ko_by_wounds"]).ravel() / N_PY,
                    np.asarray(vec["ko_by_wounds"]).ravel() / N_NP):
        q = (x * N_PY + y * N_NP) / (N_PY + N_NP)
        assert close(x, y, math.sqrt(p.fights * q * (1 / N_PY + 1 / N_NP))), ("ko", x, y)
    assert checked >= 10  # the comparison is not empty


@pytest.mark.parametrize("expr", ["6+1d8", "2d20", "2d20kh1", "7"])
def test_python_roller_matches_the_exact_distribution(expr):
    d = bl.dice.parse(expr)
    roll, n = cb._roller(d, random.Random(2)), 40_000
    seen: dict[int, int] = {}
    for _ in range(n):
        v = roll()
        seen[v] = seen.get(v, 0) + 1
    exact = d.distribution()
    assert set(seen) <= set(int(t) for t in exact.totals)
    for t, prob in zip(exact.totals, exact.probabilities):
        assert close(seen.get(int(t), 0) / n, prob, math.sqrt(prob * (1 - prob) / n)), (t, prob)


def test_a_level_that_does_not_remove_injuries_only_soothes_them():
    # full treatment reading removes_injury = false: after one fight where everyone is knocked
    # out, every survivor still carries its one injury, whatever full treatment's successes
    rules = bl.load_rules().updated({"treatment": {"full": {"removes_injury": False}}})
    p = bl.campaign.plan(fights=1, knockout_chance=1.0, arrival=6, negative_hp=1,
                         policy="full", hours_between=72, rules=rules)
    out = bl.campaign.campaign_sampler(20_000, np.random.default_rng(3), plan=p, rules=rules)
    dead = int(out["deaths"][0])
    assert out["carried"][0].tolist() == [0, 20_000 - dead, dead]
    # the bundled rules: full treatment removes some
    bundled = bl.campaign.plan(fights=1, knockout_chance=1.0, arrival=6, negative_hp=1,
                               policy="full", hours_between=72)
    base = bl.campaign.campaign_sampler(20_000, np.random.default_rng(3), plan=bundled,
                                        rules=bl.load_rules())
    assert base["carried"][0][0] > 0


def test_keep_chances_by_hand():
    rules = bl.load_rules()
    # Cunning 12, row modifier 0: full needs 12 on a d20 (0.6), 1 attempt a day;
    # light +2 -> 14 (0.7), one an hour: 24 attempts in 24 hours
    full, light = cb._keep_chances(bl.campaign.plan(cunning=12, hours_between=24), rules)
    assert full[0] == pytest.approx(0.4) and light[0] == pytest.approx(0.3 ** 24)
    # a -15 row: full 12 - 15 < 0 never succeeds
    worst = [r["modifier"] for r in rules["injuries"]["table"]].index(-15)
    assert full[worst] == 1.0 and light[worst] == 1.0
    full, light = cb._keep_chances(bl.campaign.plan(policy="none"), rules)
    assert set(full) == set(light) == {1.0}


def test_campaign_kernel_is_registered():
    kernel = bench.load_kernels()["campaign"]
    assert kernel.unit == "campaign"
    out = kernel.python(50, random.Random(1))
    assert [sum(row) for row in out["carried"]] == [50] * 10
    draws = bench.count_draws(kernel.sampler(), 4096, seed=0)
    assert set(draws["integers"]) == {6, 8, 100} and draws["uniforms"] > 10 and not draws["other"]
