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
    """Exact DP over states (counts of unhealed injuries per severity band): cumulative
    deaths and mean injuries carried; 'full' is one full attempt a day, 'none' no treatment."""
    cumulative, mean_wounds, _ = exact_chain(fights, p_ko, seconds, npv, cunning,
                                             full_attempts=1 if policy == "full" else 0,
                                             light_attempts=0, light_bonus=0)
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


def exact_chain(fights, p_ko, seconds, npv, cunning, full_attempts, light_attempts,
                light_bonus):
    """Exact DP of the campaign: per severity band, (symptomatic, relieved) counts of the
    unhealed injuries; each injury survives the full attempts, and a symptomatic one stays so
    through the light attempts. Returns cumulative deaths and, among survivors, the mean
    injuries carried and the mean symptomatic ones after each fight."""
    from math import comb

    def chance(c):
        return min(max(c, 0), 20) / 20
    keep = [(1 - chance(cunning + b)) ** full_attempts for b in BANDS]
    sore = [(1 - chance(cunning + b + light_bonus)) ** light_attempts for b in BANDS]
    states = {(0,) * 8: 1.0}          # (symptomatic, relieved) for each of the 4 bands
    dead, cumulative, mean_wounds, mean_symptoms = 0.0, [], [], []
    for _ in range(fights):
        after = defaultdict(float)
        for state, p in states.items():
            after[state] += p * (1 - p_ko)
            for face in range(1, 101):
                band = row_band(face + (sum(state) + 1) * (seconds + npv))
                if band is None:
                    dead += p * p_ko / 100
                else:
                    new = list(state)
                    new[2 * band] += 1
                    after[tuple(new)] += p * p_ko / 100
        treated = defaultdict(float)
        for state, p in after.items():
            dist = {(): p}
            for band in range(4):
                s, r = state[2 * band], state[2 * band + 1]
                nxt = defaultdict(float)
                for prefix, q in dist.items():
                    for ks in range(s + 1):       # symptomatic injuries kept
                        w_s = comb(s, ks) * keep[band] ** ks * (1 - keep[band]) ** (s - ks)
                        for still in range(ks + 1):  # of which still symptomatic
                            w_l = comb(ks, still) * sore[band] ** still \
                                * (1 - sore[band]) ** (ks - still)
                            for kr in range(r + 1):
                                w_r = comb(r, kr) * keep[band] ** kr \
                                    * (1 - keep[band]) ** (r - kr)
                                nxt[prefix + (still, ks - still + kr)] += q * w_s * w_l * w_r
                dist = nxt
            for s, q in dist.items():
                treated[s] += q
        states = treated
        cumulative.append(dead)
        alive = sum(states.values())
        mean_wounds.append(sum(sum(s) * p for s, p in states.items()) / alive)
        mean_symptoms.append(sum(sum(s[0::2]) * p for s, p in states.items()) / alive)
    return cumulative, mean_wounds, mean_symptoms


def test_both_policy_symptoms_against_exact_markov_chain():
    """Full and light treatment together (the sampler draws only for injuries carried):
    deaths and the symptomatic injuries carried match the exact chain."""
    rules = bl.load_rules()
    light = rules["treatment"]["light"]
    hours = 2
    n_full = bl.treatment.attempts_within(hours * 60, "full")
    n_light = bl.treatment.attempts_within(hours * 60, "light")
    assert (n_full, n_light) == (1, 2)  # 2 h: one full attempt, two light ones
    cumulative, _, mean_symptoms = exact_chain(3, 0.6, seconds=40, npv=20, cunning=6,
                                               full_attempts=n_full, light_attempts=n_light,
                                               light_bonus=light["bonus"])
    sim = bl.campaign.simulate(fights=3, knockout_chance=0.6, arrival=39, action_ap=1,
                               negative_hp=20, cunning=6, policy="both", hours_between=hours,
                               trials=TRIALS, seed=5)
    for row, exact in zip(sim.table.itertuples(), cumulative):
        se = np.sqrt(exact * (1 - exact) / TRIALS)
        assert abs(row.probability - exact) <= 5 * se + 1e-12, (row, exact)
    hist = sim.result.totals["symptomatic"]
    got = (hist * np.arange(hist.shape[1])).sum(axis=1) / hist.sum(axis=1)
    # a count bounded by 3: its standard error is below 3 / (2 sqrt(N))
    assert np.all(np.abs(got - mean_symptoms) <= 5 * 1.5 / np.sqrt(TRIALS)), (got, mean_symptoms)
    assert min(mean_symptoms) > 0.05  # the light treatment leaves symptoms to count


@pytest.mark.parametrize("arrival, negative_hp", [
    ("30+4d20kh3", "1d10!"), ("60+2d20r2", "3d6kh2"),
    ("10d10", "1d6"), ("40+3d20", "1d6")])
def test_first_fight_deaths_with_dice_without_a_table_match_the_exact_rescue(arrival,
                                                                              negative_hp):
    # modified dice, and more outcomes than a table holds, reach the compiled injury rolls as
    # distances from their lowest total: every knocked-out character dies at the exact
    # rescue's chance (bl.rescue.exact_outcomes, a convolution: death on the roll, then
    # automatic death); 3d20 has a table of 8,000 outcomes, drawn as 32-bit indices
    rules = bl.load_rules()
    p = bl.campaign.plan(fights=1, knockout_chance=1.0, arrival=arrival, negative_hp=negative_hp,
                         rules=rules)
    exact = float(bl.rescue.exact_outcomes(p.rescue, rules=rules)[0, -2:].sum())
    n = 200_000
    out = bl.campaign.campaign_sampler(n, np.random.default_rng(17), plan=p, rules=rules)
    se = (exact * (1 - exact) / n) ** 0.5
    assert abs(out["deaths"][0] / n - exact) < 4.5 * se
