"""How fast are the Monte Carlo kernels on this machine? ``balance bench``.

For each registered kernel: trials per second through :func:`balance.montecarlo.run`
(one process), the ratio to the *floor* (numpy drawing the same number of dice and counting
them with ``bincount`` in cache-sized chunks, nothing else: no engine, no rule) and the
speed-up over the best plain Python loop applying the same rule (``random.random`` and tables
looked up once, no numpy inside the loop). Then the peak memory of a 10^8-trial
critical-injury run (peak RSS of a fresh subprocess: ``VmHWM`` on Linux) and the speed-up
of 2 worker processes over 1 on 10^8 trials.

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

__all__ = ["Kernel", "KERNELS", "KERNEL_MODULES", "register", "load_kernels", "floor_sampler",
           "measure_kernel", "measure_memory", "measure_workers", "run_bench", "format_table",
           "main", "TARGETS"]

TARGETS = {"x_floor": 1.5, "x_python": 50.0, "peak_mb": 300.0, "x_workers": 1.5}


@dataclass(frozen=True)
class Kernel:
    """A benchmarked kernel.

    ``sampler()`` builds the ``(n, rng) -> dict`` sampler; ``dice`` dice of ``faces()`` faces
    per trial define its floor (an int, or a function returning one, e.g. a mean measured from
    the kernel's own counters); ``python(n, rnd)`` runs ``n`` trials of the same rule in a
    plain loop with ``rnd.randint`` (a :class:`random.Random`). ``unit`` names one trial
    ("duel", "fight") for the report; ``trials`` / ``python_trials`` are the sizes of a full
    run (``--quick``: 1/32 and 1/15 of them), smaller for kernels whose trial is a whole
    simulation; ``target_rate`` is an issue's target in trials per second on one core.
    """

    name: str
    sampler: Callable[[], Callable]
    dice: int | Callable[[], int]
    faces: Callable[[], int]
    python: Callable[[int, random.Random], Any]
    description: str = ""
    unit: str = "trial"
    trials: int = 1 << 25
    python_trials: int = 300_000
    target_rate: float | None = None


KERNELS: dict[str, Kernel] = {}
#: Modules imported before a benchmark so that the kernels they ``register`` are listed.
KERNEL_MODULES: list[str] = ["balance.bench.percentile", "balance.bench.fights"]


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


def _floor_dtype(faces: int) -> type:
    # numpy draws 16-bit integers fastest; 8-bit draws are several times slower
    return np.int16 if faces < 2**15 else np.int32 if faces < 2**31 else np.int64


def floor_sampler(n: int, rng: np.random.Generator, *, faces: int, dice: int = 1) -> dict:
    """``n x dice`` dice of ``faces`` faces counted with ``bincount`` (index ``face - 1``)."""
    draws = rng.integers(0, faces, size=n * dice, dtype=_floor_dtype(faces))
    return {"faces": np.bincount(draws, minlength=faces)}


# --- registered kernels: critical-injury roll (RULES.md 1.2) and d20 Test (1.1) -------------
INJURY: dict[str, Any] = {"seconds": 40, "negative_hp": 6, "wounds": 1}
D20 = {"characteristic": 12, "modifier": 0}


def _injury_sampler() -> Callable:
    from ..core.injuries import injury_sampler
    from ..rules import resolve
    return partial(injury_sampler, **INJURY, rules=resolve(None))


def _injury_python(n: int, rnd: random.Random) -> list[int]:
    from bisect import bisect_right

    from ..rules import resolve
    inj = resolve(None)["injuries"]
    lows = [row["low"] for row in inj["table"]]
    die, threshold = inj["die"], inj["death_threshold"]
    k = (INJURY["wounds"] + 1) * (INJURY["seconds"] + INJURY["negative_hp"])
    # the row of each face, looked up once: the loop draws and counts, nothing else
    row = [-1 if face + k >= threshold else bisect_right(lows, face + k) - 1
           for face in range(1, die + 1)]
    counts = [0] * (len(lows) + 1)
    draw = rnd.random
    for _ in range(n):
        counts[row[int(draw() * die)]] += 1
    return counts


def _d20_sampler() -> Callable:
    from ..core.d20 import points_sampler
    from ..rules import resolve
    return partial(points_sampler, rules=resolve(None))  # C' only relabels the faces


def _d20_python(n: int, rnd: random.Random) -> dict[int, int]:
    from ..rules import resolve
    die = resolve(None)["d20"]["die"]
    effective = D20["characteristic"] + D20["modifier"]
    counts = [0] * die  # index: face - 1
    draw = rnd.random
    for _ in range(n):
        counts[int(draw() * die)] += 1
    return {effective - face: counts[face - 1] for face in range(1, die + 1) if counts[face - 1]}


def _die(section: str) -> Callable[[], int]:
    def faces() -> int:
        from ..rules import resolve
        return resolve(None)[section]["die"]
    return faces


register(Kernel("critical-injury", _injury_sampler, 1, _die("injuries"), _injury_python,
                "1d100 + (n+1)(d+npv) -> table row or death; d=40, npv=6, n=1"))
register(Kernel("d20-test", _d20_sampler, 1, _die("d20"), _d20_python,
                "1d20 roll-under Test, points C' - die; C'=12"))


# --- measurements ----------------------------------------------------------------------------
def _best(func: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


#: Dice drawn at once by the floor: 2^20 16-bit values (2 MB) stay in cache; one draw of a whole
#: block's dice (32 M values for a fight block) would measure memory, not the generator.
FLOOR_CHUNK = 1 << 20


def _floor(trials: int, dice: int, faces: int) -> None:
    rng = np.random.default_rng(0)
    dtype = _floor_dtype(faces)
    total = trials * dice
    for start in range(0, total, FLOOR_CHUNK):
        m = min(FLOOR_CHUNK, total - start)
        np.bincount(rng.integers(0, faces, size=m, dtype=dtype), minlength=faces)


def measure_kernel(kernel: Kernel, trials: int, python_trials: int, repeat: int = 3) -> dict:
    """Trials/s of the kernel (engine, 1 process), of its floor and of its plain-Python twin."""
    sampler, faces = kernel.sampler(), kernel.faces()
    dice = int(kernel.dice() if callable(kernel.dice) else kernel.dice)
    run = partial(montecarlo.run, sampler, trials, seed=1, progress=False)
    run()  # warm-up (imports, rules memo)
    t_kernel = _best(run, repeat)
    t_floor = _best(lambda: _floor(trials, dice, faces), repeat)
    t_python = _best(lambda: kernel.python(python_trials, random.Random(1)), 1)
    rate, floor, py = trials / t_kernel, trials / t_floor, python_trials / t_python
    return {"kernel": kernel.name, "unit": kernel.unit, "dice_per_trial": dice, "faces": faces,
            "trials": trials, "trials_per_s": rate,
            "floor_trials_per_s": floor, "x_floor": floor / rate,
            "python_trials": python_trials, "python_trials_per_s": py, "x_python": rate / py,
            "target_rate": kernel.target_rate}


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


def measure_workers(trials: int, kernel: str = "critical-injury", workers: int = 2,
                    repeat: int = 3) -> dict:
    """Wall time of ``trials`` trials on 1 process and on ``workers`` processes.

    ``seconds_cold``: the first parallel run of this process (the helpers start while this
    process already works); ``seconds_N``: best of the following runs (helpers already up).
    """
    sampler = KERNELS[kernel].sampler()
    run = partial(montecarlo.run, sampler, trials, seed=1, progress=False)
    run(workers=1)
    one = _best(partial(run, workers=1), repeat)
    cold = _best(partial(run, workers=workers), 1)
    many = _best(partial(run, workers=workers), repeat)
    return {"kernel": kernel, "trials": trials, "workers": workers, "seconds_1": one,
            "seconds_cold": cold, f"seconds_{workers}": many, "x_workers": one / many,
            "x_workers_cold": one / cold}


def run_bench(*, quick: bool = False, only: str | None = None) -> dict:
    """All measurements as a dict (what ``--format json`` prints)."""
    names = [only] if only else list(load_kernels())

    def sizes(k: Kernel) -> tuple[int, int]:
        return (max(k.trials // 32, 1), max(k.python_trials // 15, 1)) if quick \
            else (k.trials, k.python_trials)

    big = 10**6 if quick else 10**8
    out: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0],
                    "numpy": np.__version__, "block_size": montecarlo.BLOCK_SIZE,
                    "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else None},
        "kernels": [measure_kernel(KERNELS[n], *sizes(KERNELS[n]), 1 if quick else 3)
                    for n in names],
        "targets": TARGETS,
    }
    if only is None or only == "critical-injury":
        out["memory"] = measure_memory(big)
        out["workers"] = measure_workers(big)
    return out


def _rate(x: float, what: str = "") -> str:
    what = f" {what}" if what else ""
    return f"{x / 1e6:,.1f} M{what}/s" if x >= 1e6 else f"{x / 1e3:,.1f} k{what}/s"


def format_table(res: dict) -> str:
    """Human-readable report of :func:`run_bench` output."""
    m = res["machine"]
    load = "" if m.get("load_average") is None else f", load average {m['load_average']:.2f}"
    lines = [f"balance bench: {m['cpus']} CPUs{load}, Python {m['python']}, numpy {m['numpy']}, "
             f"block {m['block_size']:,} trials",
             f"{'kernel':<18}{'trials/s':>13}{'floor':>13}{'x floor':>9}"
             f"{'plain Python':>15}{'x Python':>10}{'trials':>13}{'Python n':>10}"]
    for k in res["kernels"]:
        lines.append(f"{k['kernel']:<18}{_rate(k['trials_per_s']):>13}"
                     f"{_rate(k['floor_trials_per_s']):>13}{k['x_floor']:>9.2f}"
                     f"{_rate(k['python_trials_per_s']):>15}{k['x_python']:>9,.0f}x"
                     f"{k['trials']:>13,}{k['python_trials']:>10,}")
    t = res["targets"]
    lines.append(f"(targets: x floor <= {t['x_floor']}, x Python >= {t['x_python']:g}; "
                 f"floor = dice per trial drawn and bincounted; Python loop timed on "
                 f"'Python n' trials and scaled)")
    for k in res["kernels"]:
        if k.get("unit", "trial") == "trial":
            continue
        what, target = f"{k['unit']}s", k.get("target_rate")
        met = target is not None and k["trials_per_s"] >= target
        verdict = "" if target is None else \
            f"; target >= {_rate(target, what)} per core: {'met' if met else 'NOT met'}"
        lines.append(f"{k['kernel']}: 1 trial = 1 {k['unit']}: "
                     f"{_rate(k['trials_per_s'], what)} on one core (plain Python "
                     f"{_rate(k['python_trials_per_s'], what)}); floor = {k['dice_per_trial']} "
                     f"d{k['faces']} per {k['unit']}{verdict}")
    if "memory" in res:
        mem = res["memory"]
        lines.append(f"memory: {mem['trials']:,} {mem['kernel']} trials in {mem['seconds']:.2f} s, "
                     f"peak RSS {mem['peak_mb']:.0f} MB (whole fresh process, "
                     f"{mem.get('method', 'ru_maxrss')}; "
                     f"+{mem['over_imports_mb']:.1f} MB during the run; "
                     f"target < {t['peak_mb']:g} MB)")
    if "workers" in res:
        w = res["workers"]
        n = w["workers"]
        lines.append(f"workers: {w['trials']:,} {w['kernel']} trials, 1 process "
                     f"{w['seconds_1']:.2f} s, {n} processes {w[f'seconds_{n}']:.2f} s: "
                     f"{w['x_workers']:.2f}x (target >= {t['x_workers']}x); first parallel run "
                     f"(helper start-up) {w['seconds_cold']:.2f} s: {w['x_workers_cold']:.2f}x")
    return "\n".join(lines)
