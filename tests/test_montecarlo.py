"""The Monte Carlo engine: reproducibility, parallel back-ends, intervals, bad input (issue 3)."""
from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

from balance.montecarlo import engine
from balance.montecarlo import pool as _mcpool
from balance import montecarlo
from balance.bench import KERNELS, floor_sampler, load_kernels
from balance.montecarlo.engine import BLOCK_SIZE, proportion_table, run, wilson
from balance.rules import resolve


# --- toy samplers (module level so that worker processes can unpickle them) ------------------
def mixed(n: int, rng: np.random.Generator, p: float = 0.3) -> dict:
    """Counts, a histogram and float sums: float totals must also be bit-for-bit stable."""
    u = rng.random(n)
    return {"hits": np.count_nonzero(u < p), "hist": np.bincount((u * 3).astype(np.int64),
                                                                 minlength=3),
            "sum": u.sum(), "sumsq": (u * u).sum()}


def slow_faces(n: int, rng: np.random.Generator) -> dict:
    """:func:`faces`, 20 ms a block: a helper's round trip is then short beside a chunk."""
    time.sleep(0.02)
    return faces(n, rng)


def mixed_logged(n: int, rng: np.random.Generator, *, log: str) -> dict:
    """``mixed``, writing down which process ran the block."""
    with open(log, "a") as f:
        f.write(f"{os.getpid()}\n")
    return mixed(n, rng)


def faces(n: int, rng: np.random.Generator) -> dict:
    return {"faces": np.bincount(rng.integers(0, 6, size=n), minlength=6)}


CALLS: list[int] = []


def recording(n: int, rng: np.random.Generator) -> dict:
    CALLS.append(n)
    return {"n": n}


def changing_keys(n: int, rng: np.random.Generator) -> dict:
    return {"a": n} if n == 10 else {"b": n}


def changing_shape(n: int, rng: np.random.Generator) -> dict:
    return {"a": np.zeros(3 if n == 10 else 4, dtype=np.int64)}


def not_a_dict(n: int, rng: np.random.Generator):
    return n


def fails_in_helper(n: int, rng: np.random.Generator) -> dict:
    if multiprocessing.parent_process() is not None:
        raise RuntimeError("boom in helper")
    return {"n": n}


def interrupted(n: int, rng: np.random.Generator) -> dict:
    if multiprocessing.parent_process() is None:  # this (driver) process: simulate Ctrl-C
        raise KeyboardInterrupt
    time.sleep(0.01)  # a slow helper, so that the driver surely takes a chunk itself
    return {"n": n}


def same(a: montecarlo.MCResult, b: montecarlo.MCResult) -> bool:
    return a.totals.keys() == b.totals.keys() and all(
        a.totals[k].dtype == b.totals[k].dtype and a.totals[k].tobytes() == b.totals[k].tobytes()
        for k in a.totals)


TRIALS = 3 * BLOCK_SIZE + 12_345  # four blocks, the last one partial


@pytest.fixture(scope="module")
def reference() -> montecarlo.MCResult:
    return run(mixed, TRIALS, seed=2024)


@pytest.fixture(autouse=True)
def tiny_pool_startup(monkeypatch):
    """The pool's start-up cost made tiny: these short runs pay for it and really use the
    helpers (the tests of the in-process decision set their own cost)."""
    monkeypatch.setattr(_mcpool, "STARTUP_SECONDS", 1e-9)
    monkeypatch.setattr(_mcpool, "RESTART_SECONDS", 1e-9)


def _counting_pool(monkeypatch) -> list:
    calls = []
    real = _mcpool.iterate_processes

    def counting(sampler, plan, chunks, workers):
        calls.append((list(chunks), workers))
        return real(sampler, plan, chunks, workers)

    monkeypatch.setattr(_mcpool, "iterate_processes", counting)
    return calls


@pytest.mark.parametrize("chunk_size", [1, None])
def test_a_run_too_short_for_the_pool_finishes_in_process_and_says_so(reference, monkeypatch,
                                                                       chunk_size):
    montecarlo.shutdown_workers()  # cold: no pool to reuse
    monkeypatch.setattr(_mcpool, "STARTUP_SECONDS", 1e6)
    monkeypatch.setattr(_mcpool, "RESTART_SECONDS", 1e6)
    calls = _counting_pool(monkeypatch)
    res = run(mixed, TRIALS, seed=2024, workers=2, chunk_size=chunk_size)
    assert same(res, reference)
    assert calls == [] and _mcpool._state["pool"] is None
    assert res.workers_used == 1
    assert res.note.startswith("ran in-process: too short to pay for the pool (est. ")
    assert res.note.endswith(" s of work, start-up ~1e+06 s)")


def test_a_run_long_enough_starts_the_pool_after_its_first_block(reference, monkeypatch):
    montecarlo.shutdown_workers()
    calls = _counting_pool(monkeypatch)  # start-up 1e-9 s (tiny_pool_startup): pays at once
    res = run(mixed, TRIALS, seed=2024, workers=2, chunk_size=1)
    assert same(res, reference)
    assert calls == [([(1, 2), (2, 3), (3, 4)], 2)]  # block 0 ran here, timed
    assert res.workers_used == 2 and res.note.startswith("ran on 2 processes (pool started: ")
    _mcpool._state["starter"].join(timeout=60)
    again = run(mixed, TRIALS, seed=2024, workers=2, chunk_size=1)  # warm: no probe
    assert same(again, reference) and calls[1] == ([(0, 1), (1, 2), (2, 3), (3, 4)], 2)
    assert again.note == "ran on 2 processes (warm pool)"
    assert (reference.workers_used, reference.note) == (1, "")


def test_start_workers_warms_the_pool_for_short_runs(reference, monkeypatch):
    montecarlo.shutdown_workers()
    monkeypatch.setattr(_mcpool, "STARTUP_SECONDS", 1e6)   # a cold start would never pay
    monkeypatch.setattr(_mcpool, "RESTART_SECONDS", 1e6)
    calls = _counting_pool(monkeypatch)
    montecarlo.start_workers(2)
    assert _mcpool.startup_cost(1) == 0.0 and calls == []
    montecarlo.start_workers(2)                            # already up: nothing to do
    res = run(mixed, TRIALS, seed=2024, workers=2, chunk_size=1)
    assert same(res, reference) and res.note == "ran on 2 processes (warm pool)"
    assert calls == [([(0, 1), (1, 2), (2, 3), (3, 4)], 2)]
    montecarlo.start_workers(1)                            # this process alone: no helper
    with pytest.raises(ValueError, match="workers must be an integer between 1 and"):
        montecarlo.start_workers(0)
    montecarlo.shutdown_workers()


def test_startup_cost_is_zero_only_for_a_warm_pool_of_that_size(monkeypatch):
    montecarlo.shutdown_workers()
    _mcpool._state["started"] = False  # as in a fresh process (set again by the next start)
    monkeypatch.setattr(_mcpool, "STARTUP_SECONDS", 7.0)
    monkeypatch.setattr(_mcpool, "RESTART_SECONDS", 3.0)
    assert _mcpool.startup_cost(1) == 7.0
    monkeypatch.setattr(_mcpool, "STARTUP_SECONDS", 1e-9)
    _warm_helper()  # a short run that pays for the pool at this tiny cost
    assert _mcpool._state["started"] and _mcpool.startup_cost(1) == 0.0
    forkserver = "forkserver" in multiprocessing.get_all_start_methods()
    assert _mcpool.startup_cost(2) == (3.0 if forkserver else 7.0)


# --- reproducibility ------------------------------------------------------------------------
@pytest.mark.parametrize("chunk_size", [1, None, 10**12])
@pytest.mark.parametrize("workers", [1, 2])
def test_identical_whatever_chunk_size_and_workers(reference, chunk_size, workers):
    res = run(mixed, TRIALS, seed=2024, chunk_size=chunk_size, workers=workers)
    assert same(res, reference)
    assert res.totals["hist"].sum() == TRIALS


def _warm_helper() -> None:
    """Make sure a helper process is up and cached (it then gets the first chunk of a run)."""
    run(faces, 4 * BLOCK_SIZE, seed=1, workers=2, chunk_size=1)
    _mcpool._state["starter"].join(timeout=60)


def test_identical_when_a_helper_process_runs_blocks(reference, tmp_path):
    _warm_helper()
    log = tmp_path / "pids"
    res = run(partial(mixed_logged, log=str(log)), TRIALS, seed=2024, workers=2, chunk_size=1)
    pids = log.read_text().split()
    assert len(pids) == 4 and len(set(pids)) == 2 and str(os.getpid()) in pids
    assert same(res, reference)


def test_the_sampler_goes_to_the_helpers_only_until_they_hold_it(monkeypatch):
    """A pickled sampler with its rules weighs some 30 KB; sent with every chunk it cost a
    fifth of a 2-process run of 10^9 critical-injury trials. Once every helper has answered a
    chunk, the chunks go without it, and the totals are the same."""
    _warm_helper()
    executor = _mcpool._state["pool"]
    sent = []
    real_submit = executor.submit

    def submit(fn, token, payload, *args):
        sent.append(payload is not None)
        return real_submit(fn, token, payload, *args)

    monkeypatch.setattr(executor, "submit", submit)
    many = 40 * BLOCK_SIZE  # 40 chunks of one block, slow enough for the helper to take some
    res = run(slow_faces, many, seed=2024, workers=2, chunk_size=1)
    assert same(res, run(faces, many, seed=2024, workers=1))
    assert sent[0] and not all(sent)   # the first chunks carry it, the later ones do not
    assert sent.index(False) <= 4      # at most the window of submitted chunks (3) before


def test_a_helper_without_the_sampler_hands_the_chunk_back():
    plan = engine.blocks.Plan(trials=3 * BLOCK_SIZE, block_size=BLOCK_SIZE, entropy=5,
                              spawn_key=(), pool_size=4)
    payload = _mcpool.portable(faces)
    # this process is no helper: it holds no sampler for a new run's token
    pid, totals, chunk = _mcpool.run_payload("a-new-run", None, plan, 1, 2)
    assert (pid, totals, chunk) == (os.getpid(), None, (1, 2))
    _, totals, _ = _mcpool.run_payload("a-new-run", payload, plan, 1, 2)
    _, again, _ = _mcpool.run_payload("a-new-run", None, plan, 1, 2)  # now held: no payload
    expected = engine.blocks.run_chunk(faces, plan, 1, 2)
    assert [sorted(t) for t in totals] == [sorted(t) for t in expected]
    assert all(np.array_equal(a[k], b[k]) for a, b in zip(again, expected) for k in a)
    _mcpool._SAMPLER.clear()


def test_identical_on_dask_local_cluster(reference):
    distributed = pytest.importorskip("dask.distributed",
                                      reason="dask[distributed] (optional extra) not installed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        assert same(run(mixed, TRIALS, seed=2024, workers=client, chunk_size=BLOCK_SIZE),
                    reference)
        with pytest.raises(ValueError, match="keys"):
            run(changing_keys, 25, seed=1, block_size=10, chunk_size=1, workers=client)


def test_dask_string_makes_and_closes_its_own_cluster():
    pytest.importorskip("dask.distributed",
                        reason="dask[distributed] (optional extra) not installed")
    sampler = partial(floor_sampler, faces=6)
    assert same(run(sampler, 2 * BLOCK_SIZE + 1, seed=3, workers="dask"),
                run(sampler, 2 * BLOCK_SIZE + 1, seed=3))


def test_blocks_are_spawned_children_of_the_seed():
    """Independent re-computation of the documented semantics: block i uses
    ``SeedSequence(seed).spawn(blocks)[i]`` and the last block is partial."""
    res = run(faces, 25, seed=11, block_size=10)
    children = np.random.SeedSequence(11).spawn(3)
    expected = sum(faces(n, np.random.default_rng(c))["faces"]
                   for n, c in zip((10, 10, 5), children))
    assert np.array_equal(res.totals["faces"], expected)
    assert res.blocks == 3 and res.block_size == 10


def test_seed_types_and_provenance():
    base = run(faces, 1000, seed=5, block_size=100)
    assert base.seed == 5
    assert same(run(faces, 1000, seed=np.random.SeedSequence(5), block_size=100), base)
    ss = np.random.SeedSequence(5)
    run(faces, 1000, seed=ss, block_size=100)
    assert same(run(faces, 1000, seed=ss, block_size=100), base)  # the sequence is not consumed
    g1 = run(faces, 1000, seed=np.random.default_rng(9), block_size=100)
    g2 = run(faces, 1000, seed=np.random.default_rng(9), block_size=100)
    assert same(g1, g2)
    assert same(run(faces, 1000, seed=g1.seed_sequence, block_size=100), g1)
    fresh = run(faces, 1000, block_size=100)
    assert same(run(faces, 1000, seed=fresh.seed, block_size=100), fresh)


def test_different_seeds_differ(reference):
    other = run(mixed, TRIALS, seed=2025)
    assert not np.array_equal(other.totals["hist"], reference.totals["hist"])
    assert other.totals["sum"] != reference.totals["sum"]


# --- memory: the engine never asks for more than one block ----------------------------------
@pytest.mark.parametrize("chunk_size", [None, 10**12])
def test_sampler_never_asked_for_more_than_a_block(chunk_size):
    CALLS.clear()
    res = run(recording, 10 * 1000 + 7, seed=1, block_size=1000, chunk_size=chunk_size)
    assert max(CALLS) == 1000 and CALLS == [1000] * 10 + [7]
    assert res.totals["n"] == 10_007
    CALLS.clear()
    run(recording, 3 * BLOCK_SIZE + 1, seed=1, chunk_size=10**12)
    assert CALLS == [BLOCK_SIZE] * 3 + [1]


# --- estimates and intervals ----------------------------------------------------------------
@pytest.mark.parametrize("k,n", [(0, 1), (1, 1), (0, 10), (3, 10), (10, 10), (1, 1000),
                                 (500, 1000), (999, 1000), (0, 10**6), (123_456, 10**6)])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_wilson_matches_scipy(k, n, confidence):
    ci = binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    low, high = wilson(k, n, confidence)
    assert low == pytest.approx(ci.low, rel=1e-9, abs=1e-15)
    assert high == pytest.approx(ci.high, rel=1e-9, abs=1e-15)


def test_wilson_is_exact_at_the_edges_and_vectorised():
    low, high = wilson(np.array([0, 7, 50]), 50)
    assert low[0] == 0.0 and high[2] == 1.0
    assert 0 < low[1] < 7 / 50 < high[1] < 1
    table = proportion_table([0, 5, 10], 10, index=pd.Index(["a", "b", "c"], name="x"))
    assert list(table.columns) == ["estimate", "ci_low", "ci_high", "se", "trials"]
    assert table.loc["a", "ci_low"] == 0.0 and table.loc["c", "ci_high"] == 1.0
    assert table.loc["b", "se"] == pytest.approx(np.sqrt(0.25 / 10))


def test_toy_sampler_against_exact_answers(reference):
    """P(u < 0.3) = 0.3, each third of [0, 1) has 1/3, E[u] = 1/2, sd(u) = sqrt(1/12)."""
    res = reference
    hits = res.proportion("hits")
    assert abs(hits["estimate"].iloc[0] - 0.3) < 5 * np.sqrt(0.3 * 0.7 / TRIALS)
    assert hits["ci_low"].iloc[0] < hits["estimate"].iloc[0] < hits["ci_high"].iloc[0]
    dist = res.distribution("hist", values=["low", "mid", "high"], name="third")
    assert dist.index.name == "third"
    assert np.all(np.abs(dist["estimate"] - 1 / 3) < 5 * np.sqrt(2 / 9 / TRIALS))
    mean = res.mean("sum", "sumsq")
    sigma = np.sqrt(1 / 12)
    assert abs(mean["estimate"].iloc[0] - 0.5) < 5 * sigma / np.sqrt(TRIALS)
    assert mean["se"].iloc[0] == pytest.approx(sigma / np.sqrt(TRIALS), rel=0.01)
    assert mean["ci_high"].iloc[0] - mean["ci_low"].iloc[0] == pytest.approx(
        2 * 1.959964 * mean["se"].iloc[0], rel=1e-6)


def test_tidy_outputs_carry_provenance():
    rules = resolve(None)
    sampler = KERNELS["critical-injury"].sampler()  # a partial with rules=...
    res = run(sampler, 10_000, seed=7, label="injury")
    assert res.fingerprint == rules.fingerprint
    table = res.proportion("rows")
    assert list(table.columns) == ["count", "estimate", "ci_low", "ci_high", "se", "trials",
                                   "seed", "fingerprint"]
    assert table["count"].sum() == 10_000 and (table["seed"] == 7).all()
    conditional = res.proportion(res["rows"][:-1], denominator=int(res["rows"][:-1].sum()))
    assert conditional["estimate"].sum() == pytest.approx(1.0)
    frame = res.table
    assert {"key", "cell", "total", "per_trial", "trials", "seed", "fingerprint"} <= set(frame)
    assert len(frame) == res["rows"].size
    assert not res["rows"].flags.writeable
    assert run(faces, 10, seed=1, rules=rules).fingerprint == rules.fingerprint


# --- bad input: one-line ValueError naming the argument, before any work ---------------------
@pytest.mark.parametrize("kwargs,name", [
    ({"trials": 0}, "trials"), ({"trials": -5}, "trials"), ({"trials": 2.5}, "trials"),
    ({"trials": "100"}, "trials"), ({"seed": -1}, "seed"), ({"seed": "abc"}, "seed"),
    ({"seed": 1.5}, "seed"), ({"workers": 0}, "workers"), ({"workers": -2}, "workers"),
    ({"workers": "dsak"}, "workers"), ({"workers": 1.5}, "workers"),
    ({"chunk_size": 0}, "chunk_size"), ({"chunk_size": -10}, "chunk_size"),
    ({"progress": "yes"}, "progress"), ({"block_size": 0}, "block_size"),
    ({"rules": 42}, "rules"), ({"sampler": "not callable"}, "sampler"),
])
def test_bad_input(kwargs, name):
    CALLS.clear()
    args = {"sampler": recording, "trials": 100, **kwargs}
    with pytest.raises(ValueError) as err:
        run(args.pop("sampler"), args.pop("trials"), **args)
    message = str(err.value)
    assert name in message and "\n" not in message
    assert CALLS == []


@pytest.mark.parametrize("sampler,words", [(changing_keys, "keys"), (changing_shape, "shape"),
                                           (not_a_dict, "dict")])
def test_inconsistent_sampler_is_a_clear_error(sampler, words):
    with pytest.raises(ValueError, match=words):
        run(sampler, 25, seed=1, block_size=10)


def test_wilson_bad_input():
    for args, name in [((5, 4), "successes"), ((-1, 4), "successes"), ((1, 0), "trials"),
                       ((1, 4, 1.5), "confidence")]:
        with pytest.raises(ValueError, match=name):
            wilson(*args)


# --- failures leave no process behind -------------------------------------------------------
def _helper_pids() -> list[int]:
    pool = _mcpool._state["pool"]
    return [p.pid for p in (pool._processes or {}).values()] if pool is not None else []


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.parametrize("sampler,error", [(fails_in_helper, RuntimeError),
                                           (interrupted, KeyboardInterrupt)])
def test_errors_and_interrupts_terminate_helpers(sampler, error):
    _warm_helper()
    pids = _helper_pids()
    assert pids
    with pytest.raises(error):
        run(sampler, 200 * 1000, seed=1, workers=2, block_size=1000, chunk_size=1)
    assert _mcpool._state["pool"] is None
    assert all(_gone(pid) for pid in pids)


def test_notebook_style_samplers_travel_by_value_and_unpicklable_ones_are_refused():
    import threading
    _warm_helper()  # so that a helper really unpickles the lambda (it gets the first chunk)
    lam = lambda n, rng: {"six": np.count_nonzero(rng.integers(1, 7, size=n) == 6)}  # noqa: E731
    assert same(run(lam, 3 * BLOCK_SIZE, seed=4, workers=2, chunk_size=1),
                run(lam, 3 * BLOCK_SIZE, seed=4))
    lock = threading.Lock()
    with pytest.raises(ValueError, match="sampler must be picklable"):
        run(lambda n, rng: {"n": n, "lock": 0 * lock.locked()}, 3 * BLOCK_SIZE, workers=2,
            chunk_size=1)


def test_concurrent_parallel_runs_from_threads(reference):
    from concurrent.futures import ThreadPoolExecutor
    _warm_helper()
    with ThreadPoolExecutor(2) as threads:
        results = list(threads.map(lambda _: run(mixed, TRIALS, seed=2024, workers=2,
                                                 chunk_size=1), range(2)))
    assert all(same(res, reference) for res in results)
    assert _mcpool._state["pool"] is not None and not _mcpool._state["busy"]


def test_shutdown_workers():
    run(faces, 4 * BLOCK_SIZE, seed=1, workers=2, chunk_size=1)
    montecarlo.shutdown_workers()
    assert _mcpool._state["pool"] is None


# --- progress bar ---------------------------------------------------------------------------
def test_progress_bar_only_when_asked_or_interactive(capsys):
    run(faces, 4000, seed=1, block_size=1000, chunk_size=1, progress=True, label="toy")
    assert "toy" in capsys.readouterr().err
    run(faces, 4000, seed=1, block_size=1000, chunk_size=1, progress=False)
    run(faces, 4000, seed=1, block_size=1000, chunk_size=1)  # not a TTY under pytest
    assert capsys.readouterr().err == ""


def test_auto_progress_in_a_terminal_waits_for_long_runs(monkeypatch):
    monkeypatch.setattr(engine, "_interactive", lambda: "terminal")
    assert engine._bar(None, 10**6, 1, "x") is None  # one chunk: nothing to show
    bar = engine._bar(None, 10**6, 8, "x")
    assert bar is not None and bar.delay == engine.PROGRESS_DELAY
    bar.close()
    monkeypatch.setattr(engine, "_interactive", lambda: None)
    assert engine._bar(None, 10**6, 8, "x") is None


# --- the benchmark --------------------------------------------------------------------------
def test_bench_quick_smoke():
    out = subprocess.run([sys.executable, "-m", "balance", "bench", "--quick"], capture_output=True,
                         text=True, check=True, timeout=120).stdout
    lines = out.splitlines()
    names = list(load_kernels())
    # every kernel the issues name (3: injury, d20; 4: fights; 5: d100 tiers, duels; 16: campaign)
    assert {"critical-injury", "d20-test", "d100-tiers", "percentile-duel",
            "gm-fight-4v4", "campaign"} <= set(names)
    for name in names:
        assert any(line.startswith(name + " ") for line in lines), name
    assert any(line.startswith("memory:") for line in lines)
    assert any(line.startswith("workers:") for line in lines)


def test_bench_memory_is_the_fresh_process_not_the_parent():
    # on Linux ru_maxrss keeps the parent's peak across fork + exec: a big parent must not show
    from balance import bench
    ballast = np.ones(40_000_000)          # 320 MB held by this process
    mem = bench.measure_memory(10**5)
    assert ballast[-1] == 1.0
    assert mem["peak_mb"] < 320 - 100, mem  # a fresh numpy/balance process is ~80 MB


def test_bench_json_only():
    from balance import bench
    from balance.cli import bench as bench_cli
    res = bench.run_bench(quick=True, only="d20-test")
    data = json.loads(json.dumps(res))
    assert [k["kernel"] for k in data["kernels"]] == ["d20-test"] and "memory" not in data
    with pytest.raises(SystemExit):
        bench_cli.main(["--only", "d20-tset"])


_CTRL_C_SCRIPT = """
import faulthandler, os, signal, sys, time
faulthandler.register(signal.SIGUSR1, all_threads=True)   # the test's dump if this hangs
# Ctrl-C as a terminal delivers it, even when the test runs under a shell that started it in
# the background (which ignores SIGINT, and children inherit that: it hung 60 s so)
signal.signal(signal.SIGINT, signal.default_int_handler)
from balance import montecarlo
from balance.montecarlo import pool as _mcpool
from balance.bench import floor_sampler
from functools import partial

def slow(n, rng):
    time.sleep(0.02)
    return floor_sampler(n, rng, faces=6)

if __name__ == "__main__":
    _mcpool.STARTUP_SECONDS = _mcpool.RESTART_SECONDS = 1e-9  # so the short run starts the pool
    montecarlo.run(slow, 4000, seed=1, workers=2, block_size=1000, chunk_size=1)
    _mcpool._state["starter"].join(timeout=60)
    pids = [p.pid for p in _mcpool._state["pool"]._processes.values()]
    print(*pids, flush=True)
    try:
        montecarlo.run(slow, 10**7, seed=1, workers=2, block_size=1000, chunk_size=1)
    except KeyboardInterrupt:  # right after the interrupted run, before interpreter exit
        alive = []
        for pid in pids:
            try:
                os.kill(pid, 0)
                alive.append(pid)
            except ProcessLookupError:
                pass
        print("interrupted; helpers alive:", alive, flush=True)
"""


def test_ctrl_c_leaves_no_helper_behind(tmp_path):
    import signal

    script = tmp_path / "ctrl_c.py"
    script.write_text(_CTRL_C_SCRIPT)
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=os.getcwd())
    pids = [int(p) for p in proc.stdout.readline().split()]
    assert pids and not any(_gone(pid) for pid in pids)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:     # show where it hangs: every thread's stack
        status = Path(f"/proc/{proc.pid}/status")
        masks = [x for x in status.read_text().splitlines() if x.startswith("Sig")] \
            if status.exists() else []
        proc.send_signal(signal.SIGUSR1)
        time.sleep(1)
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"no exit 60 s after Ctrl-C; {masks}; stdout {out!r}; "
                             f"stderr:\n{err}")
    assert "interrupted; helpers alive: []" in out, err
    assert all(_gone(pid) for pid in pids)
