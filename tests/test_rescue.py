"""Dying-and-rescue simulation (RULES.md §1.2-1.4) against the closed form and by enumeration."""
import itertools

import numpy as np
import pytest

import balance as bl

TRIALS = 300_000


def brute_death(arrival_values, npv_values, charge, wounds):
    """P(death) by enumerating arrival x negative HP x d100 faces (all equiprobable)."""
    dead = total = 0
    for t, npv, face in itertools.product(arrival_values, npv_values, range(1, 101)):
        total += 1
        seconds = t + charge
        if seconds >= 175 or face + (wounds + 1) * (seconds + npv) >= 176:
            dead += 1
    return dead / total


def test_fixed_times_reduce_to_death_probability():
    sim = bl.rescue.simulate(arrival=30, negative_hp=6, wounds=[0, 1, 2, 3], action_ap=3,
                             trials=TRIALS, seed=3)
    death = sim.extra["death"].query("death == 'total'").set_index("wounds")
    for w in range(4):
        exact = bl.injuries.death_probability(seconds=33, negative_hp=6, wounds=w)
        assert death.loc[w, "exact"] == pytest.approx(exact)
        se = np.sqrt(exact * (1 - exact) / TRIALS)
        assert abs(death.loc[w, "probability"] - exact) <= 5 * se + 1e-12


def test_dice_times_against_enumeration():
    sim = bl.rescue.simulate(arrival="6+1d8", negative_hp="1d6", wounds=[2, 3], action_ap=2,
                             trials=TRIALS, seed=4)
    death = sim.extra["death"].query("death == 'total'").set_index("wounds")
    for w in (2, 3):
        exact = brute_death(range(7, 15), range(1, 7), 2, w)
        assert death.loc[w, "exact"] == pytest.approx(exact)
        se = np.sqrt(exact * (1 - exact) / TRIALS)
        assert abs(death.loc[w, "probability"] - exact) <= 5 * se + 1e-12
    table = sim.table.query("wounds == 3")
    assert table["probability"].sum() == pytest.approx(1)
    assert table["exact"].sum() == pytest.approx(1)


def test_automatic_death_is_split_from_death_on_the_roll():
    sim = bl.rescue.simulate(arrival="160+1d20", negative_hp=1, wounds=[0], action_ap=1,
                             trials=TRIALS, seed=5)
    death = sim.extra["death"].set_index("death")
    # arrival + 1 s >= 175  <=>  d20 >= 14: 7 faces of 20
    assert death.loc["automatic", "exact"] == pytest.approx(7 / 20)
    assert abs(death.loc["automatic", "probability"] - 7 / 20) <= 5 * np.sqrt(
        0.35 * 0.65 / TRIALS)
    assert death.loc["roll", "exact"] == pytest.approx(
        brute_death(range(161, 181), [1], 1, 0) - 7 / 20)


def test_curve_against_closed_form():
    times = np.arange(0, 176, 25)
    curve = bl.rescue.curve(times=times, negative_hp=6, wounds=[0, 1, 2, 3], trials=TRIALS,
                            seed=6)
    assert set(curve["wounds"]) == {0, 1, 2, 3}
    assert set(curve["arrival"]) == set(times)
    for row in curve.itertuples():
        exact = bl.injuries.death_probability(row.arrival + 1, 6, row.wounds)
        assert row.exact == pytest.approx(exact)
        se = np.sqrt(exact * (1 - exact) / row.trials)
        assert abs(row.probability - exact) <= 5 * se + 1e-12
        assert row.ci_low <= row.probability <= row.ci_high


def test_heal_action_and_reproducibility():
    a = bl.rescue.simulate(arrival="1d20", negative_hp="1d6", action="heal", heal=10, action_ap=2,
                           trials=200_000, seed=8)
    b = bl.rescue.simulate(arrival="1d20", negative_hp="1d6", action="heal", heal=10, action_ap=2,
                           trials=200_000, seed=8, workers=2, chunk_size=70_000)
    assert a.table.equals(b.table)


@pytest.mark.parametrize("kwargs, name", [
    (dict(arrival="2d"), "arrival"), (dict(negative_hp="1d6-3"), "negative_hp"),
    (dict(arrival=-3), "arrival"), (dict(wounds=[-1]), "wounds"), (dict(action="pray"), "action"),
    (dict(action="heal"), "heal"), (dict(trials=0), "trials"),
])
def test_bad_input(kwargs, name):
    kwargs = {"trials": 1000, "seed": 1} | kwargs
    with pytest.raises(ValueError) as info:
        bl.rescue.simulate(**kwargs)
    assert str(info.value).startswith(name)


def test_a_wound_count_given_twice_is_answered_once():
    # the work grows with the counts: 20,000 repeats of one count are one count, in order
    assert bl.rescue.plan(wounds=[2, 2, 0, 2]).wounds == (2, 0)
    assert bl.rescue.plan(wounds=[50] * 20_000).wounds == (50,)
    sim = bl.rescue.simulate(arrival=30, negative_hp=6, wounds=[1, 1, 3], trials=2_000, seed=1)
    assert sim.extra["death"]["wounds"].unique().tolist() == [1, 3]
