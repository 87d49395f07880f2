"""The benchmark's plain-Python references apply the same rule as the kernels they time:
their counts agree with the exact distributions (5 standard errors, fixed seeds)."""
import itertools
import json
from pathlib import Path
import os
import random
from functools import partial

import numpy as np
import pytest

import balance as bl
from balance import bench
from balance.bench import counting, exact
from balance.cli import bench as bench_cli


def _agree(counts, probs):
    n = sum(counts)
    p = np.asarray(probs, float)
    se = np.sqrt(p * (1 - p) / n)
    assert np.all(np.abs(np.asarray(counts) / n - p) <= 5 * se + 1e-12), (counts, probs)


def test_plain_python_critical_injury_is_the_rule():
    counts = bench._injury_python(200_000, random.Random(3))
    exact = bl.injuries.injury_distribution(**bench.INJURY)["probability"]
    _agree(counts, exact)


@pytest.mark.parametrize("change", [{"hp_loss_per_second": 1}, {"automatic_death_seconds": 30}])
def test_plain_python_critical_injury_reads_the_rules(change, monkeypatch):
    rules = bl.load_rules().updated({"injuries": change})
    monkeypatch.setattr(bl.rules, "resolve", lambda r=None: rules)
    counts = bench._injury_python(100_000, random.Random(3))
    monkeypatch.undo()
    exact = bl.injuries.injury_distribution(**bench.INJURY, rules=rules)["probability"]
    _agree(counts, exact)


@pytest.mark.parametrize("faces, n, calls", [(100, 100_001, 50_001), (20, 60_002, 20_002),
                                             (6, 30_004, 6_004), (200, 1_000, 1_000)])
def test_plain_python_faces_are_drawn_as_the_kernel_draws_them(faces, n, calls):
    """The fair loop draws several dice a random() (two d100s, three d20s, five d6s) as the
    kernel does, and each face comes up n / faces times within 5 standard errors."""
    class Counting(random.Random):
        calls = 0

        def random(self):
            Counting.calls += 1
            return super().random()

    counts = bench.python_face_counts(faces, n, Counting(9))
    assert Counting.calls == calls and sum(counts) == n
    _agree(counts, [1 / faces] * faces)


def test_plain_python_d20_test_is_the_rule():
    counts = bench._d20_python(100_000, random.Random(4))
    exact = bl.d20.test_points(bench.D20["characteristic"], bench.D20["modifier"])
    _agree([counts.get(int(p), 0) for p in exact.index], exact.to_numpy())


# --- the counted floor, --json, the in-process fallback (issue 16) --------------------------


def _known(n, rng):
    # 3 d20 and 1 d6 per trial, 2 uniforms per trial, one scalar d8, a choice of n, a shuffle of 5
    a = rng.integers(1, 21, size=(3, n), dtype=np.int16)
    b = rng.integers(0, 6, size=n, endpoint=False)
    u = rng.random(2 * n)
    c = rng.integers(1, 8, endpoint=True)
    d = rng.choice(10, size=n)
    rng.shuffle(np.arange(5))
    return {"s": a.sum() + b.sum() + c + d.sum(), "u": u.sum()}


def test_counting_generator_counts_exactly_what_is_drawn():
    n = 1000
    c = counting.count_draws(_known, n, seed=5)
    assert c["integers"] == {6: 1.0, 8: 1 / n, 20: 3.0}
    assert c["uniforms"] == 2.0 and c["other"] == {"choice": 1.0, "shuffle": 5 / n}
    assert c["dice_per_trial"] == pytest.approx(3 + 1 + 1 / n + 2 + 1 + 5 / n, abs=1e-12)
    assert c["calls"] == 6
    # the proxy draws the same numbers as the Generator it wraps: the sampler's result is unchanged
    assert _known(n, counting.CountingGenerator(5)) == _known(n, np.random.default_rng(5))


def test_kernel_floors_count_the_rules_dice():
    # one d100 per critical-injury roll and one d20 per Test (core rules), drawn two d100s or
    # three d20s as one integer (dice.face_counts): what the floor draws
    ks = bench.load_kernels()
    n = 4096
    for name, faces, m in (("critical-injury", 100, 2), ("d20-test", 20, 3)):
        c = counting.count_draws(ks[name].sampler(), n)
        expected = {faces ** m: (n // m) / n} | ({faces: (n % m) / n} if n % m else {})
        assert c["integers"] == expected and c["uniforms"] == 0, (name, c)


@pytest.mark.parametrize("row", [(3, 6, None), (4, 6, ("h", 3)), (2, 20, ("l", 1)),
                                 (4, 4, ("l", 2))])
def test_plain_python_exact_dice_is_the_enumeration(row):
    count, faces, keep = row
    ways: dict[int, int] = {}
    for roll in itertools.product(range(1, faces + 1), repeat=count):
        kept = sorted(roll) if keep is None else \
            sorted(roll)[-keep[1]:] if keep[0] == "h" else sorted(roll)[:keep[1]]
        ways[sum(kept)] = ways.get(sum(kept), 0) + 1
    assert exact.python_exact(count, faces, keep) == ways


_FIGURES = {"machine": {"cpus": 2}, "kernels": [], "targets": bench.TARGETS}


def test_the_exact_dice_rows_time_a_cold_answer():
    """Every memo of the dice package (its submodules too) is emptied before each timed call."""
    from balance.dice import expressions, pools, sampling

    for expr in ("3d6", "4d6kh3", "2d20kh1", "1d6!"):
        bl.dice.distribution(expr)
        bl.dice.sample(expr, 10, seed=1)
    call = exact._balance(4, 6, ("h", 3))
    assert call() == {t: p for t, p in bl.dice.distribution("4d6kh3").items()}
    call()
    assert sampling._sum_table.cache_info().currsize == 0   # what the warm-up cached is gone
    for memo, again in ((expressions._distribution, lambda: bl.dice.distribution("3d6")),
                        (pools._pool_probs, lambda: bl.dice.distribution("1d6!"))):
        misses = memo.cache_info().misses
        again()
        assert memo.cache_info().misses > misses            # computed again, not remembered


def test_json_file_written_and_an_existing_one_refused(tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert bench_cli.main(["--quick", "--only", "d20-test", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert {"cpus", "load_average", "python", "numpy", "date"} <= set(data["machine"])
    (k,) = data["kernels"]
    n = k["draws"]["trials"]  # three d20s drawn as one integer of 8,000 outcomes, the rest alone
    assert k["kernel"] == "d20-test" and k["draws"]["integers"] == {"8000": (n // 3) / n,
                                                                    "20": (n % 3) / n}
    assert {"trials_per_s", "floor_trials_per_s", "x_floor", "x_python", "seconds"} <= set(k)
    capsys.readouterr()
    before = out.read_text()
    with pytest.raises(SystemExit) as exc:  # refused before any work
        bench_cli.main(["--only", "d20-test", "--json", str(out)])
    assert exc.value.code == 2 and "already exists" in capsys.readouterr().err
    assert out.read_text() == before
    with pytest.raises(SystemExit):
        bench_cli.main(["--only", "d20-test", "--json", str(tmp_path)])  # a folder


def test_json_in_a_missing_folder_refused_before_any_work(tmp_path, monkeypatch, capsys):
    def measured(**kw):
        raise AssertionError("measured before the --json FILE was checked")

    monkeypatch.setattr(bench_cli, "run_bench", measured)
    with pytest.raises(SystemExit) as exc:
        bench_cli.main(["--quick", "--json", str(tmp_path / "no-such-folder" / "bench.json")])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "the folder" in err and "does not exist" in err, err
    assert len(err.strip().splitlines()) == 1 and not list(tmp_path.iterdir())


def test_json_in_a_folder_not_writable_refused_before_any_work(tmp_path, monkeypatch, capsys):
    # as root every folder is writable: the check asks os.access, which is made to say no
    import balance.cli.options as options

    monkeypatch.setattr(bench_cli, "run_bench", lambda **kw: pytest.fail("measured"))
    monkeypatch.setattr(options.os, "access", lambda path, mode: Path(path) != tmp_path)
    with pytest.raises(SystemExit) as exc:
        bench_cli.main(["--quick", "--json", str(tmp_path / "bench.json")])
    assert exc.value.code == 2 and f"the folder {tmp_path} is not writable" in \
        capsys.readouterr().err


def test_json_force_replaces(tmp_path, monkeypatch, capsys):
    out = tmp_path / "bench.json"
    out.write_text("old\n")
    monkeypatch.setattr(bench_cli, "run_bench", lambda **kw: _FIGURES)
    assert bench_cli.main(["--format", "json", "--json", str(out), "--force"]) == 0
    assert json.loads(out.read_text()) == json.loads(capsys.readouterr().out) == \
        json.loads(json.dumps(_FIGURES))


def test_a_run_too_short_for_the_pool_runs_in_process_with_the_same_results():
    if (os.cpu_count() or 1) < 2:
        pytest.skip("needs 2 cores for workers=2")
    sampler = bench.load_kernels()["d20-test"].sampler()
    trials = 3 * bl.montecarlo.BLOCK_SIZE + 5
    run = partial(bench.run_parallel, sampler, trials, workers=2, seed=3, seconds_per_trial=1e-9)
    short, pooled_short = run(startup_seconds=1.0)
    long, pooled_long = run(startup_seconds=0.0)
    assert (pooled_short, pooled_long) == (False, True)
    assert bench.pays_for_pool(trials, 1e-9, 1e-4) and not bench.pays_for_pool(trials, 1e-9, 1e-2)
    assert short.totals.keys() == long.totals.keys()
    assert all((short.totals[k] == long.totals[k]).all() for k in short.totals)



# --- the fight kernel's fair plain-Python reference (issue 16) -----------------------------
from balance.bench.fights import fair_python_fights
from balance.montecarlo.intervals import mean_se


def test_fair_plain_python_fights_agree_with_the_numpy_kernel():
    # The bench encounter, and Ogres attacking 2 PCs each (the second target the next weakest):
    # party win rate and mean rounds within 5 standard errors of the kernel (fixed seeds).
    n_py, n_np = 1500, 25_000
    for encounter, targets, seed in [(["Wolf"] * 4, [1] * 4, 6), (["Ogre", "Ogre"], [2, 2], 7)]:
        spec = bl.fights.fight_spec(encounter)
        assert list(spec.targets[spec.pcs:]) == targets
        py = fair_python_fights(n_py, random.Random(seed), spec)
        assert py["party_wins"] + py["creature_wins"] + py["draws"] == n_py
        vec = bl.guide.fights.fight_sampler(n_np, np.random.default_rng(seed), spec)
        k = int(vec["party_wins"])
        p_np, se_np = mean_se(k, k, n_np)
        p_py, se_py = mean_se(py["party_wins"], py["party_wins"], n_py)
        assert abs(p_py - p_np) <= 5 * np.hypot(se_np, se_py), (encounter, p_py, p_np)
        r = np.arange(vec["rounds"].size)
        r_np, se_r = mean_se(vec["rounds"].dot(r), vec["rounds"].dot(r * r), n_np)
        sd = se_r * np.sqrt(n_np)  # the kernel's spread of rounds, for the loop's mean too
        assert abs(py["rounds_sum"] / n_py - r_np) <= 5 * sd * np.sqrt(1 / n_py + 1 / n_np)
    # the bench times this loop as the kernel's plain Python; random targeting is refused
    wolves = bl.fights.fight_spec(["Wolf"] * 4)
    assert bench.load_kernels()["gm-fight-4v4"].python(10, random.Random(1)) == \
        fair_python_fights(10, random.Random(1), wolves)
    with pytest.raises(ValueError, match="weakest targeting"):
        fair_python_fights(1, random.Random(1), bl.fights.fight_spec(["Wolf"], targeting="random"))


# --- the machine's own parallel throughput beside the workers figure (issue 16) ----------
def test_the_machine_control_times_one_process_and_two_side_by_side():
    m = bench.measure_machine_parallel(workers=2, blocks=2, repeat=2)
    assert set(m) == {"workers", "repeat", "seconds_1", "seconds_together", "x_machine"}
    assert m["repeat"] == 2
    assert m["seconds_1"] > 0 and m["seconds_together"] > 0
    assert m["x_machine"] == pytest.approx(2 * m["seconds_1"] / m["seconds_together"])


def test_the_workers_line_says_what_the_machine_gave():
    w = {"kernel": "gm-fight-4v4", "unit": "fight", "trials": 10**6, "workers": 2,
         "pooled": True, "startup_seconds": 0.4, "min_trials": 1, "seconds_1": 3.4,
         "seconds_cold": 3.0, "seconds_2": 2.7, "x_workers": 3.4 / 2.7, "x_workers_cold": 3.4 / 3.0,
         "cold_note": "ran on 2 processes (pool started: est. 3 s of work, start-up ~1.4 s)",
         "machine": {"workers": 2, "repeat": 3, "seconds_1": 1.1, "seconds_together": 1.85,
                     "x_machine": 2 * 1.1 / 1.85}}
    (line,) = [x for x in bench.format_table({"machine": bench.machine(), "kernels": [],
                                              "targets": bench.TARGETS, "workers": [w]})
               .splitlines() if x.startswith("workers:")]
    assert "1.26x (target >= 1.6x: NOT met)" in line
    assert "first run with no pool up 3.00 s: 1.13x (ran on 2 processes (pool started: " in line
    assert line.endswith("; the machine just after: 2 plain numpy processes side by side "
                         "1.19x one (1.10 s alone, 1.85 s together, best of 3 each)")


def test_one_process_and_the_warm_pool_are_timed_in_turn(monkeypatch):
    """The machine's speed drifts (0.15-0.25 s for the same plain-numpy work in three runs in a
    row): timing one process three times and then the pool three times let a drift decide the
    ratio. They alternate, after the cold run, and the best of each is kept."""
    calls = []

    class Result:
        note, workers_used = "ran in-process", 2

    def run(sampler, trials, *, seed, progress, workers):
        calls.append(workers)
        return Result()

    monkeypatch.setattr(bench.montecarlo, "run", run)
    monkeypatch.setattr(bench.montecarlo, "start_workers", lambda n: calls.append("start"))
    monkeypatch.setattr(bench.montecarlo, "shutdown_workers", lambda: calls.append("stop"))
    bench.measure_workers(1000, kernel="d20-test", repeat=3, startup_seconds=0.5)
    assert calls == ["stop", 2, "start", 1, 2, 1, 2, 1, 2]


def test_measure_workers_times_a_warm_pool_and_says_what_the_cold_run_did():
    w = bench.measure_workers(4 * bench.montecarlo.BLOCK_SIZE, kernel="d20-test", repeat=1,
                              startup_seconds=0.5)
    assert w["pooled"] is True          # started by montecarlo.start_workers beforehand
    assert w["cold_note"].startswith(("ran in-process", "ran on 2 processes (pool started"))
    assert w["x_workers"] == pytest.approx(w["seconds_1"] / w["seconds_2"])
    assert w["min_trials"] == int(0.5 / (w["seconds_1"] / w["trials"])) + 1
    bench.montecarlo.shutdown_workers()


def test_each_kernel_is_judged_against_its_own_floor_target():
    """Issue 16 gives the simulators their own ratios to the floor (fights 8x, duels 4x, the
    campaign 2x); a dice kernel keeps 1.5x. The kernel's line says which target holds."""
    bench.load_kernels()
    assert {name: k.x_floor_target for name, k in bench.KERNELS.items()} == {
        "critical-injury": 1.5, "d20-test": 1.5, "d100-tiers": 1.5, "percentile-duel": 4.0,
        "gm-fight-4v4": 8.0, "campaign": 2.0}
    draws = {"trials": 1000, "integers": {100: 1.0}, "uniforms": 0.0, "other": {},
             "dice_per_trial": 1.0, "calls": 1}
    row = {"kernel": "percentile-duel", "unit": "duel", "dice_per_trial": 1.0, "draws": draws,
           "trials": 10, "trials_per_s": 2e6, "floor_trials_per_s": 9e6, "x_floor": 4.5,
           "python_trials": 10, "python_trials_per_s": 2e4, "x_python": 100.0,
           "target_rate": 1e5, "x_floor_target": 4.0}
    ok = dict(row, kernel="campaign", unit="campaign", x_floor=1.9, x_python=49.0,
              x_floor_target=2.0)
    text = bench.format_table(dict(_FIGURES, machine=bench.machine(), kernels=[row, ok]))
    (duel,) = [x for x in text.splitlines() if x.startswith("percentile-duel: ")]
    (camp,) = [x for x in text.splitlines() if x.startswith("campaign: ")]
    assert "x floor 4.50 (target <= 4: NOT met), x Python 100 (target >= 50: met)" in duel
    assert "x floor 1.90 (target <= 2: met), x Python 49 (target >= 50: NOT met)" in camp


def test_the_floor_draws_in_chunks_of_the_same_bytes_whatever_the_dtype():
    """512 KiB a chunk (half an L2 of the benchmark machine): 2^20 values were 8 MB of
    uniforms or 64-bit numbers, out of cache, and made the floor of the fights and the campaign
    slower than drawing their dice costs."""
    assert bench.FLOOR_CHUNK_BYTES == 1 << 19
    assert [bench.floor_chunk(t) for t in (np.int16, np.int32, np.uint64, np.float64)] == \
        [1 << 18, 1 << 17, 1 << 16, 1 << 16]


def test_kernel_and_floor_are_timed_in_turn(monkeypatch):
    # one of each, then again: a machine drifting in speed slows both alike; each keeps its best
    from balance import bench

    ticks = iter([0, 5, 5, 7, 7, 10, 10, 11, 11, 15, 15, 19])
    monkeypatch.setattr(bench.time, "perf_counter", lambda: next(ticks))
    order = []
    best = bench._best_in_turn([lambda: order.append("kernel"), lambda: order.append("floor")], 3)
    assert order == ["kernel", "floor"] * 3
    assert best == [3, 1]   # the ticks time the kernel 5, 3 and 4 s, the floor 2, 1 and 4 s


def test_the_legend_and_the_workers_line_say_how_each_figure_was_timed():
    draws = {"trials": 1000, "integers": {100: 1.0}, "uniforms": 0.0, "other": {},
             "dice_per_trial": 1.0, "calls": 1}
    row = {"kernel": "campaign", "unit": "campaign", "dice_per_trial": 1.0, "draws": draws,
           "trials": 10, "trials_per_s": 2e6, "floor_trials_per_s": 4e6, "x_floor": 2.0,
           "python_trials": 10, "python_trials_per_s": 4e4, "x_python": 50.0,
           "target_rate": None, "x_floor_target": 2.0, "repeat": 5, "python_repeat": 3}
    w = {"kernel": "gm-fight-4v4", "unit": "fight", "trials": 10**6, "workers": 2,
         "repeat": 5, "pooled": True, "startup_seconds": 0.4, "min_trials": 1,
         "seconds_1": 3.4, "seconds_cold": 3.0, "seconds_2": 1.7, "x_workers": 2.0,
         "x_workers_cold": 3.4 / 3.0, "cold_note": "ran in-process"}
    text = bench.format_table(dict(_FIGURES, machine=bench.machine(), kernels=[row],
                                   workers=[w]))
    assert ("; kernel and floor timed in turn, best of 5 each; Python loop timed best of 3 "
            "on 'Python n' trials and scaled)") in text
    assert "2 processes (warm pool) 1.70 s (best of 5 each, in turn): 2.00x" in text
    once = bench.format_table(dict(_FIGURES, machine=bench.machine(),
                                   kernels=[dict(row, repeat=1, python_repeat=1)],
                                   workers=[dict(w, repeat=1)]))
    assert "Python loop timed on 'Python n' trials" in once and "best of" not in once
