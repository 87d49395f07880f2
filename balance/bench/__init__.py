"""How fast are the Monte Carlo kernels on this machine? ``balance bench``.

For each registered kernel: trials per second through :func:`balance.montecarlo.run` (one
process), the ratio to the *floor* (numpy drawing exactly the dice the kernel draws, counted by
:class:`~balance.bench.counting.CountingGenerator` on one block, and counting them with
``bincount`` in cache-sized chunks (:data:`FLOOR_CHUNK_BYTES`), nothing else: no engine, no
rule) and the speed-up over the best plain Python loop applying the same rule
(``random.random`` and tables looked up once, no numpy inside the loop). Then the exact-dice
rows (:mod:`balance.bench.exact`: ``balance.dice`` against icepool, dyce and plain Python), the
peak memory of a 10^8-trial critical-injury run (peak RSS of a fresh subprocess: ``VmHWM`` on
Linux), the speed-up of 2 worker processes over 1 (10^9 critical-injury trials, 10^6 fights,
warm pool; a run shorter than the pool's measured start-up runs in-process,
:func:`pays_for_pool`), each followed by what the machine itself gave two processes just then
(:func:`measure_machine_parallel`: plain numpy, no engine, so that a shared core shows as the
machine's, not the engine's) and the first answers of a fresh process
(:func:`measure_first_answer`).

Kernels register with :func:`register`; other modules add theirs the same way.
"""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from .. import montecarlo
from ..montecarlo.pool import pays_for_pool
from ..montecarlo.memory import keep_freed_memory
from ..dice.sampling import dice_per_draw, draw_dtype
from ..rng import RNGLike
from .counting import CountingGenerator, count_draws
from .exact import measure_exact

__all__ = ["Kernel", "KERNELS", "KERNEL_MODULES", "register", "load_kernels", "floor_sampler",
           "measure_kernel", "measure_memory", "measure_workers", "run_bench", "format_table",
           "TARGETS", "CountingGenerator", "count_draws", "measure_exact", "pays_for_pool",
           "run_parallel", "measure_pool_startup", "measure_first_answer", "python_face_counts"]

TARGETS = {"x_floor": 1.5, "x_python": 50.0, "peak_mb": 300.0, "x_workers": 1.6,
           "first_answer_s": 0.05}


@dataclass(frozen=True)
class Kernel:
    """A benchmarked kernel.

    ``sampler()`` builds the ``(n, rng) -> dict`` sampler (its floor: the dice it draws,
    counted by :func:`~balance.bench.counting.count_draws`); ``python(n, rnd)`` runs ``n``
    trials of the same rule in a plain loop (``rnd`` a :class:`random.Random`). ``unit``
    names one trial ("duel", "fight") for the report; ``trials`` / ``python_trials`` are the
    sizes of a full run (``--quick``: 1/32 and 1/15 of them), smaller for kernels whose trial
    is a whole simulation; ``target_rate`` is an issue's target in trials per second on one core;
    ``x_floor_target`` the largest ratio to the floor its issue allows (a dice kernel 1.5, the
    simulators of issue 16 more: they do more than draw).
    """

    name: str
    sampler: Callable[[], Callable]
    python: Callable[[int, random.Random], Any]
    description: str = ""
    unit: str = "trial"
    trials: int = 1 << 25
    python_trials: int = 300_000
    target_rate: float | None = None
    x_floor_target: float = TARGETS["x_floor"]


KERNELS: dict[str, Kernel] = {}
#: Modules imported before a benchmark so that the kernels they ``register`` are listed.
KERNEL_MODULES: list[str] = ["balance.bench.percentile", "balance.bench.fights",
                             "balance.bench.campaign"]


def register(kernel: Kernel) -> Kernel:
    """Add (or replace) a kernel of the benchmark; returns it."""
    KERNELS[kernel.name] = kernel
    return kernel


def load_kernels() -> dict[str, Kernel]:
    """Import :data:`KERNEL_MODULES` (their kernels register themselves); return the registry."""
    import importlib
    for name in KERNEL_MODULES:
        importlib.import_module(name)
    return KERNELS


def floor_sampler(n: int, rng: np.random.Generator, *, faces: int, dice: int = 1) -> dict:
    """``n x dice`` dice of ``faces`` faces counted with ``bincount`` (index ``face - 1``)."""
    draws = rng.integers(0, faces, size=n * dice, dtype=draw_dtype(faces))
    return {"faces": np.bincount(draws, minlength=faces)}


# --- registered kernels: critical-injury roll (core rules, critical injuries) and d20 Test (Tests) ---
INJURY: dict[str, Any] = {"seconds": 40, "negative_hp": 6, "wounds": 1}
D20 = {"characteristic": 12, "modifier": 0}


def _injury_sampler() -> Callable:
    from ..core.injuries import injury_sampler
    from ..rules import resolve
    return partial(injury_sampler, **INJURY, rules=resolve(None))


def python_face_counts(faces: int, n: int, rnd: random.Random) -> list[int]:
    """How many of ``n`` rolls of a die of ``faces`` faces show each face (index ``face - 1``), in
    plain Python, the way :func:`balance.dice.face_counts` draws them: ``m`` dice
    (:func:`balance.dice.sampling.dice_per_draw`: two d100s, three d20s) from one
    ``rnd.random()`` picking one of ``faces**m`` outcomes, counted, and each count added to
    its ``m`` digits at the end; the ``n % m`` other dice one by one. Two d100s a draw take this
    loop 49 ns a die against 109 ns for one a draw (2026-12-03, best of 8): the fair twin of a
    kernel that pairs its dice pairs them too.

    Examples
    --------
    >>> import random
    >>> import balance as bl
    >>> counts = bl.bench.python_face_counts(20, 1_001, random.Random(1))
    >>> len(counts), sum(counts)
    (20, 1001)
    """
    m = dice_per_draw(faces)
    outcomes = faces ** m
    table = [0] * outcomes
    draw = rnd.random
    for _ in range(n // m):
        table[int(draw() * outcomes)] += 1
    counts = [0] * faces
    for value, count in enumerate(table):
        if count:
            for _ in range(m):
                value, digit = divmod(value, faces)
                counts[digit] += count
    for _ in range(n % m):
        counts[int(draw() * faces)] += 1
    return counts


def _injury_python(n: int, rnd: random.Random) -> list[int]:
    from bisect import bisect_right

    from ..rules import resolve
    inj = resolve(None)["injuries"]
    lows = [row["low"] for row in inj["table"]]
    die, threshold = inj["die"], inj["death_threshold"]
    seconds = INJURY["seconds"]
    # (wounds + 1) x (seconds + negative HP), the HP lost while dying counted too
    k = (INJURY["wounds"] + 1) * (seconds + INJURY["negative_hp"]
                                  + inj["hp_loss_per_second"] * seconds)
    dead = seconds >= inj["automatic_death_seconds"]
    # the row of each face, looked up once: the loop draws and counts the faces, nothing else
    row = [-1 if dead or face + k >= threshold else bisect_right(lows, face + k) - 1
           for face in range(1, die + 1)]
    counts = [0] * (len(lows) + 1)
    for face, count in enumerate(python_face_counts(die, n, rnd)):
        counts[row[face]] += count
    return counts


def _d20_sampler() -> Callable:
    from ..core.d20 import points_sampler
    from ..rules import resolve
    return partial(points_sampler, rules=resolve(None))  # C' only relabels the faces


def _d20_python(n: int, rnd: random.Random) -> dict[int, int]:
    from ..rules import resolve
    die = resolve(None)["d20"]["die"]
    effective = D20["characteristic"] + D20["modifier"]
    counts = python_face_counts(die, n, rnd)  # index: face - 1
    return {effective - face: counts[face - 1] for face in range(1, die + 1) if counts[face - 1]}


register(Kernel("critical-injury", _injury_sampler, _injury_python,
                "1d100 + (n+1)(d+npv) -> table row or death; d=40, npv=6, n=1"))
register(Kernel("d20-test", _d20_sampler, _d20_python,
                "1d20 roll-under Test, points C' - die; C'=12"))


# --- measurements ----------------------------------------------------------------------------
def _best(func: Callable[[], Any], repeat: int) -> float:
    return _best_in_turn([func], repeat)[0]


def _best_in_turn(funcs: list[Callable[[], Any]], repeat: int) -> list[float]:
    """The best of ``repeat`` timings of each of ``funcs``, timed in turn (one of each, then
    again): a machine that slows down or speeds up meanwhile affects them alike, so their
    ratio holds (a virtual machine's speed drifts by a quarter within a minute)."""
    times: list[list[float]] = [[] for _ in funcs]
    for _ in range(repeat):
        for func, spent in zip(funcs, times):
            start = time.perf_counter()
            func()
            spent.append(time.perf_counter() - start)
    return [min(spent) for spent in times]


#: Bytes of dice drawn at once by the floor: 512 KiB, half of one core's L2 cache on the
#: benchmark machine, whatever the dtype (2^18 16-bit values, 2^16 64-bit ones). A chunk of a
#: fixed count of values (2^20 until 2026-12-03: 8 MB of uniforms or 64-bit numbers) spills
#: out of L2 for the wide dtypes and measures memory, not the generator; one draw of a whole
#: block's dice (32 M values for a fight block) more so.
FLOOR_CHUNK_BYTES = 1 << 19


def floor_chunk(dtype) -> int:
    """Values of ``dtype`` the floor draws at once (:data:`FLOOR_CHUNK_BYTES` of them).

    >>> floor_chunk(np.int16), floor_chunk(np.float64)
    (262144, 65536)
    """
    return FLOOR_CHUNK_BYTES // np.dtype(dtype).itemsize


#: Largest number of faces the floor counts with ``bincount`` (a bigger draw, e.g. an index
#: into a table of 2^22 entries, is summed instead: its bincount would measure memory).
FLOOR_BINCOUNT_FACES = 1 << 16


def _floor(trials: int, draws: dict[str, Any]) -> None:
    """Draw ``trials`` times the per-trial dice of :func:`count_draws` in chunks, and count
    them: integers by faces (``bincount``), uniforms (a sum)."""
    rng = np.random.default_rng(0)
    for faces, per_trial in draws["integers"].items():
        dtype, total = draw_dtype(faces), round(per_trial * trials)
        chunk = floor_chunk(dtype)
        for start in range(0, total, chunk):
            m = min(chunk, total - start)
            got = rng.integers(0, faces - 1, size=m, dtype=dtype, endpoint=True)
            np.bincount(got, minlength=faces) if faces <= FLOOR_BINCOUNT_FACES else got.sum()
    total, chunk = round(draws["uniforms"] * trials), floor_chunk(np.float64)
    for start in range(0, total, chunk):
        rng.random(min(chunk, total - start)).sum()


def measure_kernel(kernel: Kernel, trials: int, python_trials: int, repeat: int = 5) -> dict:
    """Trials/s of the kernel (engine, 1 process), of its floor and of its plain-Python twin.

    The floor draws what the sampler draws on one block of ``min(trials, BLOCK_SIZE)`` trials
    (seed 0; :func:`count_draws`, which also warms the kernel up), scaled to ``trials``. The
    kernel and its floor are timed in turn, the best of ``repeat`` each; the plain-Python
    loop the best of ``min(repeat, 3)``.
    """
    sampler = kernel.sampler()
    draws = count_draws(sampler, min(trials, montecarlo.BLOCK_SIZE), seed=0)
    run = partial(montecarlo.run, sampler, trials, seed=1, progress=False)
    t_kernel, t_floor = _best_in_turn([run, lambda: _floor(trials, draws)], repeat)
    # best of 3 too (the plain-Python loops' speed varies by a third here from run to run: one
    # timing would flatter the kernel)
    python_repeat = min(repeat, 3)
    t_python = _best(lambda: kernel.python(python_trials, random.Random(1)), python_repeat)
    rate, floor, py = trials / t_kernel, trials / t_floor, python_trials / t_python
    return {"kernel": kernel.name, "unit": kernel.unit, "dice_per_trial": draws["dice_per_trial"],
            "draws": draws, "trials": trials, "seconds": t_kernel, "trials_per_s": rate,
            "floor_seconds": t_floor, "floor_trials_per_s": floor, "x_floor": floor / rate,
            "python_trials": python_trials, "python_trials_per_s": py, "x_python": rate / py,
            "target_rate": kernel.target_rate, "x_floor_target": kernel.x_floor_target,
            "repeat": repeat, "python_repeat": python_repeat}


_MEMORY_SCRIPT = """
import json, resource, sys, time

def peak():
    # VmHWM: peak RSS of this address space (Linux). ru_maxrss is a fallback only: on Linux it
    # keeps the parent's peak across fork + exec, so it would report the benchmark's own size.
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]), "VmHWM"
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "ru_maxrss"

from balance import bench, montecarlo
kernel = bench.KERNELS.get(sys.argv[2]) or bench.load_kernels()[sys.argv[2]]
sampler = kernel.sampler()
montecarlo.run(sampler, 1000, seed=0, progress=False)
base, _ = peak()
start = time.perf_counter()
montecarlo.run(sampler, int(sys.argv[1]), seed=1, progress=False)
seconds = time.perf_counter() - start
top, how = peak()
print(json.dumps({"base_kb": base, "peak_kb": top, "seconds": seconds, "method": how}))
"""


def measure_memory(trials: int, kernel: str = "critical-injury") -> dict:
    """Peak RSS (MB) of a fresh Python process running ``trials`` trials of ``kernel``.

    Measured with ``VmHWM`` of ``/proc/self/status`` on Linux (``resource.getrusage``'s
    ``ru_maxrss`` elsewhere; on Linux it inherits the parent's peak across fork + exec): the
    whole process (interpreter, numpy, pandas included); ``over_imports_mb`` is the growth
    during the run.
    """
    out = subprocess.run([sys.executable, "-c", _MEMORY_SCRIPT, str(trials), kernel],
                         capture_output=True, text=True, check=True)
    data = json.loads(out.stdout.strip().splitlines()[-1])
    # VmHWM and ru_maxrss: KiB (ru_maxrss: bytes on macOS)
    scale = 1 if sys.platform == "darwin" and data["method"] == "ru_maxrss" else 1024
    return {"kernel": kernel, "trials": trials, "peak_mb": data["peak_kb"] * scale / 1e6,
            "over_imports_mb": (data["peak_kb"] - data["base_kb"]) * scale / 1e6,
            "seconds": data["seconds"], "method": data["method"]}


# --- workers ---------------------------------------------------------------------------------
def measure_pool_startup(workers: int = 2) -> float:
    """Seconds until ``workers - 1`` helper processes of :mod:`balance.montecarlo.pool`'s kind
    (same start method and preload) have started and answered once: what a cold pool costs
    before it does any work (the forkserver's own start included the first time)."""
    from concurrent.futures import ProcessPoolExecutor

    from ..montecarlo import pool as mcpool
    start = time.perf_counter()
    ex = ProcessPoolExecutor(max_workers=workers - 1, mp_context=mcpool._context(),
                             initializer=mcpool._init)
    try:
        for future in [ex.submit(mcpool._ping) for _ in range(workers - 1)]:
            future.result()
        return time.perf_counter() - start
    finally:
        ex.shutdown(wait=True)


_BURN_SCRIPT = """
import time, numpy as np
gen = np.random.default_rng(0)
start = time.perf_counter()
for _ in range({blocks} * 16):  # 2^16 16-bit integers a call: in cache, as the engine's blocks
    gen.integers(0, 100, size=1 << 16, dtype=np.int16)
print(time.perf_counter() - start)
"""


def measure_machine_parallel(workers: int = 2, blocks: int = 100, repeat: int = 3) -> dict:
    """What the machine gives ``workers`` processes at this moment, engine aside: the seconds
    of one fresh Python process drawing ``blocks`` x 2^20 integers with numpy (2^16 a call,
    within a core's cache, so that it measures the cores and not the memory), then of
    ``workers`` such processes started together (the slowest), each the best of ``repeat``
    taken in turn, and ``x_machine``, their throughput over one's (``workers`` on idle cores;
    less when the cores are shared).

    Examples
    --------
    >>> import balance as bl
    >>> m = bl.bench.measure_machine_parallel(workers=2, blocks=1, repeat=1)
    >>> sorted(m), m["workers"]
    (['repeat', 'seconds_1', 'seconds_together', 'workers', 'x_machine'], 2)
    """
    def start() -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-c", _BURN_SCRIPT.format(blocks=blocks)],
                                stdout=subprocess.PIPE, text=True)

    def seconds(proc: subprocess.Popen) -> float:
        return float(proc.communicate()[0])

    ones, together = [], []
    for _ in range(repeat):
        ones.append(seconds(start()))
        together.append(max(seconds(p) for p in [start() for _ in range(workers)]))
    one, many = min(ones), min(together)
    return {"workers": workers, "repeat": repeat, "seconds_1": one, "seconds_together": many,
            "x_machine": workers * one / many}


def run_parallel(sampler: Callable, trials: int, *, workers: int, seed: RNGLike = None,
                 seconds_per_trial: float, startup_seconds: float) -> tuple[Any, bool]:
    """``montecarlo.run`` on ``workers`` processes when :func:`pays_for_pool`, else in this
    process; returns ``(result, pooled)``. The totals are the same either way (the engine's
    results do not depend on workers)."""
    pooled = workers > 1 and pays_for_pool(trials, seconds_per_trial, startup_seconds)
    res = montecarlo.run(sampler, trials, seed=seed, progress=False,
                         workers=workers if pooled else 1)
    return res, pooled


def measure_workers(trials: int, kernel: str = "critical-injury", workers: int = 2,
                    repeat: int = 5, startup_seconds: float | None = None) -> dict:
    """Wall time of ``trials`` trials on 1 process and on ``workers`` processes.

    ``seconds_cold``: the first run asked for ``workers`` with no pool up (the engine then
    decides whether starting one pays: ``cold_note`` says what it did). Then a pool is started
    with :func:`balance.montecarlo.start_workers` (as a designer would before a session of short
    runs) and the two are timed in turn, ``repeat`` times each: ``seconds_1`` is the best run
    in this process, ``seconds_N`` the best on the warm pool (taken in turn, so that a machine
    slowing down or speeding up meanwhile affects both alike; the idle helpers take no CPU).
    ``startup_seconds``: the pool's measured start-up (:func:`measure_pool_startup`);
    ``min_trials``: the run length from which a cold start pays.
    """
    sampler = KERNELS[kernel].sampler()
    run = partial(montecarlo.run, sampler, trials, seed=1, progress=False)
    count_draws(sampler, min(trials, montecarlo.BLOCK_SIZE))  # warm-up
    startup = measure_pool_startup(workers) if startup_seconds is None else startup_seconds
    montecarlo.shutdown_workers()  # no pool for this kernel's first run
    tic = time.perf_counter()
    cold_note = run(workers=workers).note
    cold = time.perf_counter() - tic
    montecarlo.start_workers(workers)
    used = []
    one, many = _best_in_turn([lambda: run(workers=1),
                               lambda: used.append(run(workers=workers).workers_used)], repeat)
    per_trial = one / trials
    return {"kernel": kernel, "unit": KERNELS[kernel].unit, "trials": trials, "workers": workers,
            "repeat": repeat, "pooled": used[-1] == workers, "startup_seconds": startup,
            "min_trials": int(startup / per_trial) + 1, "seconds_1": one,
            "seconds_cold": cold, "cold_note": cold_note, f"seconds_{workers}": many,
            "x_workers": one / many, "x_workers_cold": one / cold}


# --- first answers of a fresh process ----------------------------------------------------------
#: the calls timed in a fresh process, each after ``import balance as bl``
FIRST_CALLS = {"dice": 'bl.dice.distribution("3d6")',
               "death": "bl.injuries.death_probability(40, 6, 1)"}

_FIRST_SCRIPT = """
import json, sys, time
start = time.perf_counter()
import balance as bl
imported = time.perf_counter()
{call}
done = time.perf_counter()
print(json.dumps({{"import_s": imported - start, "call_s": done - imported,
                  "pandas": "pandas" in sys.modules, "scipy": "scipy" in sys.modules}}))
"""


def measure_first_answer(concurrent: bool = False) -> dict:
    """Seconds from ``import balance`` to the first answer of each :data:`FIRST_CALLS`, each in
    its own fresh Python process (and the import's own time; whether pandas/scipy got
    imported). ``concurrent``: the processes run side by side (``--quick``), else one after
    the other."""
    def start(call: str) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-c", _FIRST_SCRIPT.format(call=call)],
                                stdout=subprocess.PIPE, text=True)

    def result(proc: subprocess.Popen) -> dict:
        stdout, _ = proc.communicate()
        if proc.returncode:
            raise RuntimeError(f"first-answer process failed (exit {proc.returncode})")
        return json.loads(stdout.strip().splitlines()[-1])

    out: dict[str, dict] = {}
    procs = {name: start(call) for name, call in FIRST_CALLS.items()} if concurrent else {}
    for name, call in FIRST_CALLS.items():
        out[name] = {"call": call, "concurrent": concurrent,
                     **result(procs[name] if concurrent else start(call))}
    return out


# --- the whole benchmark -----------------------------------------------------------------------
#: runs of the workers measurement: (kernel, trials, quick trials)
WORKER_RUNS = (("critical-injury", 10**9, 10**6), ("gm-fight-4v4", 10**6, 10**4))


def machine() -> dict:
    """CPUs, load averages, Python, numpy, block size and the date (UTC) of a run."""
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return {"cpus": os.cpu_count(), "python": sys.version.split()[0], "numpy": np.__version__,
            "block_size": montecarlo.BLOCK_SIZE, "platform": sys.platform,
            "load_average": None if load is None else load[0],
            "load_averages": None if load is None else list(load),
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}


def run_bench(*, quick: bool = False, only: str | None = None) -> dict:
    """All measurements as a dict (what ``--format json`` prints and ``--json`` writes)."""
    names = [only] if only else list(load_kernels())

    def sizes(k: Kernel) -> tuple[int, int]:
        return (max(k.trials // 32, 1), max(k.python_trials // 15, 1)) if quick \
            else (k.trials, k.python_trials)

    # as every run does, before anything is measured: the floor and the plain-Python loops then
    # run with the same malloc settings as the kernels
    kept = keep_freed_memory()
    out: dict[str, Any] = {
        "machine": {**machine(), "malloc": kept},
        "kernels": [measure_kernel(KERNELS[n], *sizes(KERNELS[n]), 1 if quick else 5)
                    for n in names],
        "targets": TARGETS,
    }
    if only is None:
        out["exact"] = measure_exact(processes=0 if quick else 3)
        out["first_answer"] = measure_first_answer(concurrent=quick)
    if only is None or only == "critical-injury":
        out["memory"] = measure_memory(10**6 if quick else 10**8)
    runs = [r for r in WORKER_RUNS if only is None or only == r[0]]
    if runs:
        startup = measure_pool_startup()
        out["workers"] = []
        for kernel, n, q in runs:
            w = measure_workers(q if quick else n, kernel, repeat=1 if quick else 5,
                                startup_seconds=startup)
            # right after: were both cores there? (shared cores cap what any engine gets)
            w["machine"] = measure_machine_parallel(w["workers"], 20 if quick else 100,
                                                    repeat=1 if quick else 3)
            out["workers"].append(w)
    out["machine"]["load_average_end"] = machine()["load_average"]
    return out


def _machine_text(m: dict | None) -> str:
    """The machine's own parallel throughput next to a workers figure."""
    if not m:
        return ""
    return (f"; the machine just after: {m['workers']} plain numpy processes side by side "
            f"{m['x_machine']:.2f}x one ({m['seconds_1']:.2f} s alone, "
            f"{m['seconds_together']:.2f} s together"
            + (f", best of {m['repeat']} each" if m.get("repeat", 1) > 1 else "") + ")")


def _rate(x: float, what: str = "") -> str:
    what = f" {what}" if what else ""
    return f"{x / 1e6:,.1f} M{what}/s" if x >= 1e6 else f"{x / 1e3:,.1f} k{what}/s"


def _ms(seconds: float | None) -> str:
    return "n/a" if seconds is None else f"{seconds * 1e3:.2f} ms"


def _draws_text(d: dict) -> str:
    parts = [f"{n:.3g} {faces.bit_length() - 1}-bit numbers" if faces >= 2**32
             and faces & (faces - 1) == 0 else f"{n:.3g} d{faces}"
             for faces, n in d["integers"].items()]
    if d["uniforms"]:
        parts.append(f"{d['uniforms']:.4g} uniforms")
    parts += [f"{n:.3g} {name}" for name, n in d["other"].items()]
    return ", ".join(parts) or "nothing"


def _met(ok: bool) -> str:
    return "met" if ok else "NOT met"


def format_table(res: dict) -> str:
    """Human-readable report of :func:`run_bench` output."""
    m = res["machine"]
    end = m.get("load_average_end")
    load = "" if m.get("load_average") is None else f", load average {m['load_average']:.2f}" \
        + ("" if end is None else f" (at the end {end:.2f})")
    lines = [f"balance bench: {m['cpus']} CPUs{load}, Python {m['python']}, numpy {m['numpy']}, "
             f"block {m['block_size']:,} trials"
             + (f"; malloc: {m['malloc']}" if m.get("malloc") else ""),
             f"{'kernel':<18}{'trials/s':>13}{'dice/trial':>11}{'floor':>13}{'x floor':>9}"
             f"{'plain Python':>15}{'x Python':>10}{'trials':>13}{'Python n':>10}"]
    for k in res["kernels"]:
        lines.append(f"{k['kernel']:<18}{_rate(k['trials_per_s']):>13}"
                     f"{k['dice_per_trial']:>11.1f}"
                     f"{_rate(k['floor_trials_per_s']):>13}{k['x_floor']:>9.2f}"
                     f"{_rate(k['python_trials_per_s']):>15}{k['x_python']:>9,.0f}x"
                     f"{k['trials']:>13,}{k['python_trials']:>10,}")
    t = res["targets"]
    first = res["kernels"][0] if res["kernels"] else {}
    best = (f"kernel and floor timed in turn, best of {first['repeat']} each; "
            if first.get("repeat", 1) > 1 else "")
    py_best = f"best of {first['python_repeat']} " if first.get("python_repeat", 1) > 1 else ""
    lines.append(f"(targets: x floor <= each kernel's own (below), x Python >= "
                 f"{t['x_python']:g}; floor = the dice the kernel draws (counted on one block) "
                 f"drawn in {FLOOR_CHUNK_BYTES >> 10} KiB chunks and bincounted; {best}Python "
                 f"loop timed {py_best}on 'Python n' trials and scaled)")
    for k in res["kernels"]:
        d = k["draws"]
        line = f"{k['kernel']}: draws per {k['unit']} {_draws_text(d)} " \
               f"(counted on {d['trials']:,} {k['unit']}s, " \
               f"{d['calls']} draw call{'' if d['calls'] == 1 else 's'})"
        x_target = k.get("x_floor_target", t["x_floor"])
        line += f"; x floor {k['x_floor']:.2f} (target <= {x_target:g}: " \
                f"{_met(k['x_floor'] <= x_target)}), x Python {k['x_python']:,.0f} " \
                f"(target >= {t['x_python']:g}: {_met(k['x_python'] >= t['x_python'])})"
        target = k.get("target_rate")
        if k.get("unit", "trial") != "trial":
            what = f"{k['unit']}s"
            met = target is not None and k["trials_per_s"] >= target
            line += f"; {_rate(k['trials_per_s'], what)} on one core (plain Python " \
                    f"{_rate(k['python_trials_per_s'], what)})"
            if target is not None:
                line += f"; target >= {_rate(target, what)} per core: {_met(met)}"
        lines.append(line)
    if "exact" in res:
        ex = res["exact"]
        v = ex["versions"]
        where = f"best of {ex['processes']} fresh processes" if ex.get("processes") else \
            "this process"
        lines.append(f"exact dice (first call of each expression, {where}; "
                     f"icepool {v['icepool'] or 'n/a'}"
                     f", dyce {v['dyce'] or 'n/a'}; x: their time / balance's)")
        lines.append(f"{'expression':<12}{'balance':>11}{'icepool':>11}{'x icepool':>10}"
                     f"{'dyce':>11}{'x dyce':>8}{'plain Python':>14}{'x Python':>10}")
        for row in ex["rows"]:
            s, x, ok = row["seconds"], row["x"], row["agree"]

            def ratio(name: str) -> str:
                bad = "" if ok.get(name) in (None, True) else "!"
                return "n/a" if x[name] is None else f"{x[name]:.2f}{bad}"
            lines.append(f"{row['expr']:<12}{_ms(s['balance']):>11}{_ms(s['icepool']):>11}"
                         f"{ratio('icepool'):>10}{_ms(s['dyce']):>11}{ratio('dyce'):>8}"
                         f"{_ms(s['python']):>14}{ratio('python'):>10}")
        if any(v is False for row in ex["rows"] for v in row["agree"].values()):
            lines.append("(!: that library's distribution differs from plain Python's)")
    if "first_answer" in res:
        fa = res["first_answer"]
        parts = [f"{f['call']} {f['call_s'] * 1e3:.0f} ms"
                 f"{' (imports pandas)' if f['pandas'] else ''}" for f in fa.values()]
        worst = max(f["call_s"] for f in fa.values())
        lines.append(f"first answer, fresh process, after import balance "
                     f"({min(f['import_s'] for f in fa.values()) * 1e3:.0f} ms): "
                     f"{'; '.join(parts)} (target <= {t['first_answer_s'] * 1e3:.0f} ms: "
                     f"{_met(worst <= t['first_answer_s'])})")
    if "memory" in res:
        mem = res["memory"]
        lines.append(f"memory: {mem['trials']:,} {mem['kernel']} trials in {mem['seconds']:.2f} s, "
                     f"peak RSS {mem['peak_mb']:.0f} MB (whole fresh process, "
                     f"{mem.get('method', 'ru_maxrss')}; "
                     f"+{mem['over_imports_mb']:.1f} MB during the run; "
                     f"target < {t['peak_mb']:g} MB)")
    for w in res.get("workers", []):
        n = w["workers"]
        head = f"workers: {w['trials']:,} {w['kernel']} {w['unit']}s, 1 process " \
               f"{w['seconds_1']:.2f} s"
        if not w["pooled"]:
            lines.append(f"{head}: the warm pool was not used ({w[f'seconds_{n}']:.2f} s)")
            continue
        met = w["x_workers"] >= t["x_workers"]
        best = f" (best of {w['repeat']} each, in turn)" if w.get("repeat", 1) > 1 else ""
        lines.append(f"{head}, {n} processes (warm pool) {w[f'seconds_{n}']:.2f} s{best}: "
                     f"{w['x_workers']:.2f}x (target >= {t['x_workers']}x: "
                     f"{_met(met)}); first run with no pool up "
                     f"{w['seconds_cold']:.2f} s: {w['x_workers_cold']:.2f}x ("
                     f"{w.get('cold_note', '')}; pool start-up measured "
                     f"{w['startup_seconds']:.2f} s)" + _machine_text(w.get("machine")))
    return "\n".join(lines)
