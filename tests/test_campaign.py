"""Campaign wound burden against an exact Markov-chain computation written in the test."""
from collections import defaultdict

import numpy as np
import pytest

import balance as bl

TRIALS = 300_000
BANDS = (0, -5, -10, -15)


def row_band(total):
    """Severity band index of a roll total in the document's table (None = death)."""
    if total >= 176:
        return None
    if total <= 50:
        return 0
    if total <= 100:
        return 1
    if total <= 150:
        return 2
    return 3


def exact_campaign(fights, p_ko, seconds, npv, cunning, policy="full"):
    """Exact DP over states (counts of unhealed injuries per severity band)."""
    def chance(c):
        return min(max(c, 0), 20) / 20
    keep = [1 - chance(cunning + b) if policy == "full" else 1.0 for b in BANDS]
    states = {(0, 0, 0, 0): 1.0}
    dead = 0.0
    cumulative, mean_wounds = [], []
    for _ in range(fights):
        after = defaultdict(float)
        for state, p in states.items():
            after[state] += p * (1 - p_ko)
            n = sum(state)
            for face in range(1, 101):
                band = row_band(face + (n + 1) * (seconds + npv))
                q = p * p_ko / 100
                if band is None:
                    dead += q
                else:
                    new = list(state)
                    new[band] += 1
                    after[tuple(new)] += q
        # treatment: each injury removed independently
        treated = defaultdict(float)
        for state, p in after.items():
            dist = {(): p}
            for band, count in enumerate(state):
                nxt = defaultdict(float)
                for prefix, q in dist.items():
                    for kept in range(count + 1):
                        from math import comb
                        w = comb(count, kept) * keep[band] ** kept * (1 - keep[band]) ** (count - kept)
                        nxt[prefix + (kept,)] += q * w
                dist = nxt
            for s, q in dist.items():
                treated[s] += q
        states = treated
        cumulative.append(dead)
        alive = sum(states.values())
        mean_wounds.append(sum(sum(s) * p for s, p in states.items()) / alive)
    return cumulative, mean_wounds


@pytest.mark.parametrize("policy", ["full", "none"])
def test_against_exact_markov_chain(policy):
    cumulative, mean_wounds = exact_campaign(3, 0.6, seconds=40, npv=20, cunning=10,
                                             policy=policy)
    sim = bl.campaign.simulate(fights=3, knockout_chance=0.6, arrival=39, action_ap=1,
                               negative_hp=20, cunning=10, policy=policy, trials=TRIALS, seed=2)
    for row, exact in zip(sim.table.itertuples(), cumulative):
        se = np.sqrt(exact * (1 - exact) / TRIALS)
        assert abs(row.probability - exact) <= 5 * se + 1e-12, (row, exact)
    got = sim.extra["mean_wounds"]["mean_wounds"].to_numpy()
    # the mean of a count bounded by 3: its standard error is below 3 / (2 sqrt(N))
    assert np.all(np.abs(got - mean_wounds) <= 5 * 1.5 / np.sqrt(TRIALS))


def test_wound_distribution_sums_to_one_and_reproduces():
    a = bl.campaign.simulate(fights=4, knockout_chance=0.5, trials=100_000, seed=3)
    sums = a.extra["wounds"].groupby("fight")["probability"].sum()
    assert np.allclose(sums, 1)
    b = bl.campaign.simulate(fights=4, knockout_chance=0.5, trials=100_000, seed=3, workers=2)
    assert a.extra["wounds"].equals(b.extra["wounds"])


def test_no_knockout_no_death():
    sim = bl.campaign.simulate(fights=3, knockout_chance=0, trials=10_000, seed=1)
    assert (sim.table["deaths"] == 0).all()


@pytest.mark.parametrize("kwargs, name", [(dict(fights=0), "fights"),
                                          (dict(knockout_chance=1.5), "knockout_chance"),
                                          (dict(policy="magic"), "policy"),
                                          (dict(cunning="high"), "cunning")])
def test_bad_input(kwargs, name):
    with pytest.raises(ValueError) as info:
        bl.campaign.simulate(trials=100, seed=1, **kwargs)
    assert str(info.value).startswith(name)
