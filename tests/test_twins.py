"""Every Monte Carlo twin of an exact core-rules quantity agrees with it within 5 standard
errors (fixed seeds: the tests can fail when the code is wrong, and never flake)."""
import numpy as np
import pytest

import balance as bl

TRIALS = 400_000


def assert_agrees(estimate, exact, trials, sigmas=5.0):
    estimate, exact = np.asarray(estimate, float), np.asarray(exact, float)
    se = np.sqrt(exact * (1 - exact) / trials)
    # a cell with exact probability 0 or 1 must be hit exactly
    assert np.all(np.abs(estimate - exact) <= sigmas * se + 1e-12), (estimate, exact)


@pytest.mark.parametrize("seconds, npv, wounds", [(40, 6, 1), (5, 3, 0), (120, 20, 0), (60, 2, 2),
                                                  (175, 1, 0)])
def test_injury_twin(seconds, npv, wounds):
    sim = bl.injuries.simulate(seconds, npv, wounds, trials=TRIALS, seed=11)
    exact = bl.injuries.injury_distribution(seconds, npv, wounds)
    assert list(sim.table["injury"]) == list(exact["injury"])
    assert_agrees(sim.table["probability"], exact["probability"], TRIALS)
    assert (sim.table["ci_low"] <= sim.table["probability"]).all()
    assert (sim.table["probability"] <= sim.table["ci_high"]).all()
    assert sim.trials == TRIALS and sim.seed == 11
    assert sim.fingerprint == bl.load_rules().fingerprint


def test_injury_twin_is_identical_across_chunks_and_workers():
    a = bl.injuries.simulate(seconds=40, negative_hp=6, wounds=1, trials=1_000_000, seed=1)
    b = bl.injuries.simulate(seconds=40, negative_hp=6, wounds=1, trials=1_000_000, seed=1,
                             workers=2, chunk_size=100_000)
    assert a.table.equals(b.table)
    c = bl.injuries.simulate(seconds=40, negative_hp=6, wounds=1, trials=1_000_000, seed=2)
    assert not a.table["probability"].equals(c.table["probability"])


@pytest.mark.parametrize("c, m", [(12, 2), (3, 0), (25, -3), (-1, 0)])
def test_d20_twin(c, m):
    sim = bl.d20.simulate(c, m, trials=TRIALS, seed=5)
    exact = bl.d20.test_points(c, modifier=m)
    assert list(sim.table.index) == list(exact.index)
    assert_agrees(sim.table["estimate"], exact.to_numpy(), TRIALS)


@pytest.mark.parametrize("psychology, ask", [(12, 20), (15, 12), (8, 15), (20, 7.5)])
def test_negotiation_twin(psychology, ask):
    sim = bl.negotiation.simulate(psychology, ask, trials=TRIALS, seed=9)
    exact = bl.negotiation.ask_outcomes(psychology=psychology, ask=ask)
    assert_agrees(sim.table["probability"], exact[["unchanged", "partial", "full"]], TRIALS)
    mean = sim.extra["expected_change"].iloc[0]
    assert abs(mean["estimate"] - exact["expected_change"]) <= 5 * mean["se"] + 1e-12


@pytest.mark.parametrize("call", [
    lambda: bl.injuries.simulate(40, 6, 1, trials=0, seed=1),
    lambda: bl.injuries.simulate(40, 6, 1, trials=-5, seed=1),
    lambda: bl.injuries.simulate(40, 6, 1, trials=10.5, seed=1),
    lambda: bl.injuries.simulate(40, 6, 1, trials=100, seed="x"),
    lambda: bl.injuries.simulate(40, 6, 1, trials=100, seed=1, workers=0),
])
def test_bad_run_arguments(call):
    with pytest.raises(ValueError) as info:
        call()
    assert "\n" not in str(info.value)
    assert str(info.value).split()[0] in {"trials", "seed", "workers"}
