"""Issue 13, "Scale": bl.tune.solve / fit / sensitivity on a Monte Carlo metric give the same
answer, bit for bit, with workers=2 (and a Dask client) as in one process; the runs really go
through the engine's worker processes; exact metrics ignore workers.

The catalogue metric mc.death@60s,10hp,1w is cheap (one binomial draw per injury row), so
each candidate can run two engine blocks (2 * BLOCK_SIZE trials), the smallest run that the
engine splits across processes. Its exact twin (core rules, critical injuries) is
P(death) = (D - (T - k) + 1) / D with k = (1 + 1) * (60 + 10) = 140, D = 100: (241 - T) / 100.
"""
from __future__ import annotations

import functools
import importlib

import numpy as np
import pandas as pd
import pytest

import balance as bl
from balance.core import injuries
from balance.montecarlo import blocks, pool
from balance.montecarlo.engine import BLOCK_SIZE

MC = "mc.death@60s,10hp,1w"
KEY = "injuries.death_threshold"
TRIALS = 2 * BLOCK_SIZE  # two blocks: the engine sends one to a helper process
BOUNDS = (205, 216)
#: the module (bl.tune.objective is the function of the same name)
objective_module = importlib.import_module("balance.tune.objective")


def exact(threshold: int) -> float:
    return (241 - threshold) / 100


@pytest.fixture
def process_runs(monkeypatch):
    """Counts the engine runs that went through the worker processes (the pool's start-up
    made tiny, so that these short runs pay for it and really use the helpers)."""
    monkeypatch.setattr(pool, "STARTUP_SECONDS", 1e-9)
    monkeypatch.setattr(pool, "RESTART_SECONDS", 1e-9)
    calls = []
    real = pool.iterate_processes

    def counting(*args, **kwargs):
        calls.append(args[-1])  # the number of workers
        return real(*args, **kwargs)

    monkeypatch.setattr(pool, "iterate_processes", counting)
    return calls


def test_solve_is_the_same_with_two_worker_processes(process_runs):
    kw = dict(target=0.30, vary=KEY, bounds=BOUNDS, trials=TRIALS, seed=3)
    one = bl.tune.solve(MC, **kw, workers=1)
    assert process_runs == []
    two = bl.tune.solve(MC, **kw, workers=2)
    assert len(process_runs) == BOUNDS[1] - BOUNDS[0] + 1 and set(process_runs) == {2}
    pd.testing.assert_frame_equal(one.curve, two.curve, check_exact=True)
    assert (one.value, one.achieved, one.interval, one.ci, one.seed) == \
        (two.value, two.achieved, two.interval, two.ci, two.seed)
    # and the answer is right: the exact metric is 0.30 at 211, inside the Monte Carlo interval
    assert one.interval[0] <= 211 <= one.interval[1]
    assert abs(one.achieved - exact(one.value)) < 4 * np.sqrt(0.3 * 0.7 / TRIALS)


def test_fit_is_the_same_with_two_worker_processes(process_runs):
    kw = dict(vary=KEY, bounds={KEY: BOUNDS}, trials=TRIALS, seed=5)
    one = bl.tune.fit({MC: 0.30}, **kw, workers=1)
    two = bl.tune.fit({MC: 0.30}, **kw, workers=2)
    assert len(process_runs) == two.evaluations > 0
    assert one.values == two.values and one.cost == two.cost
    pd.testing.assert_frame_equal(one.residuals, two.residuals, check_exact=True)
    assert abs(one.values[KEY] - 211) <= 1  # the exact optimum, within the noise of one step


def test_sensitivity_oat_and_sobol_are_the_same_with_two_worker_processes(process_runs):
    keys = [KEY, "injuries.die"]
    oat = [bl.tune.sensitivity(MC, keys, trials=TRIALS, seed=7, workers=w).table
           for w in (1, 2)]
    pd.testing.assert_frame_equal(oat[0], oat[1], check_exact=True)
    # the current rules, the threshold's upper end (176 - 9 lies inside the injury table: a
    # one-sided difference) and both ends of the die
    assert len(process_runs) == 4
    # the threshold's slope is the exact one, -1/100 per point
    row = oat[0].set_index("key").loc[KEY]
    assert (row["low"], row["high"]) == (176, 185)
    se = np.sqrt((exact(176) * (1 - exact(176)) + exact(185) * (1 - exact(185))) / TRIALS)
    assert abs(row["slope"] + 0.01) < 4 * se / 9
    del process_runs[:]
    sobol = [bl.tune.sensitivity(MC, keys, method="sobol", n=8, trials=BLOCK_SIZE + 1,
                                 seed=7, workers=w).table for w in (1, 2)]
    pd.testing.assert_frame_equal(sobol[0], sobol[1], check_exact=True)
    assert len(process_runs) == 8 * (len(keys) + 2)  # every Saltelli row, through the pool


def _death_share(rules, *, workers: object = 1, seen: list) -> float:
    """A metric function with a workers keyword: its own run through the engine."""
    seen.append(workers)
    res = bl.montecarlo.run(functools.partial(injuries.injury_sampler, seconds=60,
                                              negative_hp=10, wounds=1, rules=rules),
                            4000, seed=11, workers=workers, block_size=1000, chunk_size=1,
                            progress=False)
    return float(res.totals["rows"][-1]) / res.trials


def test_a_metric_function_with_a_workers_keyword_gets_them(process_runs):
    seen: list = []
    metric = functools.partial(_death_share, seen=seen)
    one = bl.tune.solve(metric, target=0.3, vary=KEY, bounds=(208, 214), workers=1)
    two = bl.tune.solve(metric, target=0.3, vary=KEY, bounds=(208, 214), workers=2)
    assert seen == [1] * 7 + [2] * 7 and len(process_runs) == 7
    pd.testing.assert_frame_equal(one.curve, two.curve, check_exact=True)
    # a function without the keyword is called as it is
    plain = bl.tune.solve(lambda r: exact(r["injuries"]["death_threshold"]), target=0.3,
                          vary=KEY, bounds=(208, 214), workers=2)
    assert plain.value == 211


def test_exact_metrics_ignore_workers_but_bad_workers_are_refused(process_runs):
    res = bl.tune.solve("death.p@60s,10hp,1w", target=0.30, vary=KEY, workers=2)
    assert res.value == 211 and res.achieved == pytest.approx(exact(211))
    assert process_runs == []
    for bad in (0, "dsak", 1.5):
        with pytest.raises(ValueError, match="^workers must be"):
            bl.tune.solve("death.p@60s,10hp,1w", target=0.30, vary=KEY, workers=bad)


def test_the_lambda_metric_is_named_once_in_its_error():
    with pytest.raises(ValueError, match="^the metric function returned nan, not a finite"):
        bl.tune.solve(lambda r: float("nan"), target=0.1, vary=KEY)


def test_dask_one_cluster_for_the_whole_sweep(monkeypatch):
    distributed = pytest.importorskip("dask.distributed",
                                      reason="dask[distributed] (optional extra) not installed")
    clusters = []

    class Local(distributed.LocalCluster):  # in-process threads: cheap to start in a test
        def __init__(self, **kwargs):
            clusters.append(kwargs)
            super().__init__(n_workers=2, threads_per_worker=1, processes=False,
                             dashboard_address=None)

    fake = type("distributed", (), {"LocalCluster": Local, "Client": distributed.Client})
    monkeypatch.setattr(objective_module, "_dask", lambda: fake)
    on_cluster, real = [], blocks.iterate_dask
    monkeypatch.setattr(blocks, "iterate_dask",
                        lambda *a: on_cluster.append(a[-1]) or real(*a))
    kw = dict(target=0.30, vary=KEY, bounds=(209, 213), trials=TRIALS, seed=3)
    one = bl.tune.solve(MC, **kw)
    on_dask = bl.tune.solve(MC, **kw, workers="dask")
    assert len(clusters) == 1  # not one per candidate (montecarlo.run alone would)
    assert len(on_cluster) == 5 and len({id(c) for c in on_cluster}) == 1  # every candidate
    pd.testing.assert_frame_equal(one.curve, on_dask.curve, check_exact=True)
    assert one.value == on_dask.value


def test_the_commands_take_workers_and_print_the_same(process_runs):
    from cli_run import in_process

    tune = ("tune", "--metric", MC, "--target", "0.3", "--vary", KEY, "--bounds", "209", "213",
            "--trials", TRIALS, "--curve", "--format", "csv")
    sens = ("sensitivity", "--metric", MC, "--vary", KEY, "--trials", TRIALS, "--format", "csv")
    for argv, runs in ((tune, 5), (sens, 2)):
        code1, out1, err1 = in_process(*argv, "--workers", "1")
        code2, out2, err2 = in_process(*argv, "--workers", "2")
        assert (code1, code2, err1, err2) == (0, 0, "", "") and out1 == out2
        assert len(process_runs) == runs
        del process_runs[:]
    code, _, err = in_process(*tune, "--workers", "0")
    assert code == 2 and err.startswith("balance: error: argument --workers:")
