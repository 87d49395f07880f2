"""Exact-dice rows of the benchmark: :func:`balance.dice.distribution` against icepool, dyce
and plain Python.

Each row is a pool of ``count`` dice of ``faces`` faces, summed whole or keeping the ``keep``
highest (``"h"``) or lowest (``"l"``). Every library computes each expression once, the first
time in a process (its own caches empty for that expression; ``balance.dice``'s memo is
cleared before each call): the time a designer waits for an answer (icepool keeps what it
computed: a second call of the same expression answers 10-50x faster). The full benchmark
takes the best of 3 fresh processes for each cell, ``--quick`` one call in the benchmark's
process. icepool and dyce are optional (``pip install 'balance[bench]'``); without them their
columns read ``n/a``. The
plain-Python reference (:func:`python_exact`) is the code a reviewer would write: a dict
convolution for sums, a dynamic programme over the kept dice for keep-highest/lowest.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

__all__ = ["EXACT_ROWS", "python_exact", "measure_exact", "expression"]

#: (count, faces, keep): keep is None (sum all), ("h", k) or ("l", k)
EXACT_ROWS: tuple[tuple[int, int, tuple[str, int] | None], ...] = (
    (3, 6, None), (4, 6, ("h", 3)), (2, 20, ("h", 1)), (2, 20, ("l", 1)), (10, 10, None),
    (6, 10, ("h", 3)), (20, 6, None))


def expression(count: int, faces: int, keep: tuple[str, int] | None) -> str:
    """The row in dice notation: ``"4d6kh3"``."""
    return f"{count}d{faces}" + ("" if keep is None else f"k{keep[0]}{keep[1]}")


def python_exact(count: int, faces: int, keep: tuple[str, int] | None = None) -> dict[int, int]:
    """Ways of each total of ``count`` d``faces`` (all ``faces ** count`` rolls), plain Python.

    Sums: one dict convolution per die. Keep the ``k`` highest (lowest): the state after each
    die is the sorted tuple of the ``k`` best dice so far, with its number of ways.

    Examples
    --------
    >>> python_exact(2, 6)[7], python_exact(4, 6, ("h", 3))[18], python_exact(2, 20, ("l", 1))[1]
    (6, 21, 39)
    """
    if keep is None:
        ways = {0: 1}
        for _ in range(count):
            step: dict[int, int] = {}
            for total, w in ways.items():
                for face in range(1, faces + 1):
                    step[total + face] = step.get(total + face, 0) + w
            ways = step
        return ways
    kind, k = keep
    states: dict[tuple[int, ...], int] = {(): 1}
    for _ in range(count):
        nxt: dict[tuple[int, ...], int] = {}
        for state, w in states.items():
            for face in range(1, faces + 1):
                s = tuple(sorted(state + (face,)))
                if len(s) > k:
                    s = s[1:] if kind == "h" else s[:-1]
                nxt[s] = nxt.get(s, 0) + w
        states = nxt
    out: dict[int, int] = {}
    for state, w in states.items():
        out[sum(state)] = out.get(sum(state), 0) + w
    return out


def _balance(count: int, faces: int, keep: tuple[str, int] | None) -> Callable[[], dict]:
    import sys

    from .. import dice

    modules = [m for name, m in sys.modules.items()
               if name == "balance.dice" or name.startswith("balance.dice.")]

    def call() -> dict:
        for module in modules:  # the memo of every cached helper of the package: a cold answer
            for obj in vars(module).values():
                if hasattr(obj, "cache_clear"):
                    obj.cache_clear()
        return dice.distribution(expression(count, faces, keep)).to_dict()
    return call


def _icepool(count: int, faces: int, keep: tuple[str, int] | None) -> Callable[[], dict] | None:
    try:
        import icepool
    except ImportError:
        return None

    def call() -> dict:
        die = icepool.d(faces)
        d = count @ die if keep is None else \
            die.highest(count, keep[1]) if keep[0] == "h" else die.lowest(count, keep[1])
        total = d.denominator()
        return {int(o): q / total for o, q in d.items()}
    return call


def _dyce(count: int, faces: int, keep: tuple[str, int] | None) -> Callable[[], dict] | None:
    try:
        from dyce import H, P
    except ImportError:
        return None

    def call() -> dict:
        if keep is None:
            h = count @ H(faces)
        else:
            kept = slice(count - keep[1], None) if keep[0] == "h" else slice(None, keep[1])
            h = (count @ P(faces)).at(kept)
        return {int(o): c / h.total for o, c in h.items()}
    return call


def _python(count: int, faces: int, keep: tuple[str, int] | None) -> Callable[[], dict]:
    def call() -> dict:
        ways = python_exact(count, faces, keep)
        total = faces ** count
        return {t: w / total for t, w in ways.items()}
    return call


def _version(name: str) -> str | None:
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:
        return None


def _timed(call: Callable[[], dict] | None) -> tuple[float | None, dict | None]:
    if call is None:
        return None, None
    start = time.perf_counter()
    out = call()
    return time.perf_counter() - start, out


def measure_exact(rows=EXACT_ROWS, processes: int = 0) -> dict[str, Any]:
    """Seconds of the first call of each row for balance, icepool, dyce and plain Python.

    ``processes=0``: in this process; ``N``: in each of ``N`` fresh Python processes one after
    the other, the best of them for each library and row (``processes`` recorded).

    Returns ``{"versions": {...}, "processes": N, "rows": [{expr, seconds: {library: s or
    None}, x: {library: their seconds / balance's or None}, agree: {library: bool or None}}]}``;
    ``agree``: the library's distribution matches plain Python's to 1e-12.
    """
    if processes:
        script = ("import json; from balance.bench.exact import measure_exact; "
                  f"print(json.dumps(measure_exact({[tuple(r) for r in rows]!r})))")
        runs = [json.loads(subprocess.run([sys.executable, "-c", script], capture_output=True,
                                          text=True, check=True).stdout.strip().splitlines()[-1])
                for _ in range(processes)]
        best = runs[0]
        for row_i, row in enumerate(best["rows"]):
            for name in row["seconds"]:
                got = [r["rows"][row_i]["seconds"][name] for r in runs]
                row["seconds"][name] = None if None in got else min(got)
                if row["agree"].get(name) is not None:
                    row["agree"][name] = all(r["rows"][row_i]["agree"][name] for r in runs)
            base = row["seconds"]["balance"]
            row["x"] = {name: None if s is None or not base else s / base
                        for name, s in row["seconds"].items() if name != "balance"}
        best["processes"] = processes
        return best
    libs = {"balance": _balance, "icepool": _icepool, "dyce": _dyce, "python": _python}
    for make in (_icepool, _dyce):  # imports and first-call set-up out of the rows' times
        warm = make(1, 4, None)
        if warm is not None:
            warm()
    _balance(1, 4, None)()
    out = []
    for count, faces, keep in rows:
        seconds, dists = {}, {}
        for name, make in libs.items():
            seconds[name], dists[name] = _timed(make(count, faces, keep))
        ref = dists["python"]
        assert ref is not None
        agree = {name: None if d is None else set(d) == set(ref)
                 and all(abs(d[t] - ref[t]) <= 1e-12 for t in ref)
                 for name, d in dists.items() if name != "python"}
        base = seconds["balance"]
        x = {name: None if s is None or not base else s / base
             for name, s in seconds.items() if name != "balance"}
        out.append({"expr": expression(count, faces, keep), "seconds": seconds, "x": x,
                    "agree": agree})
    usable = {"icepool": _icepool(1, 4, None) is not None, "dyce": _dyce(1, 4, None) is not None}
    return {"versions": {name: _version(name) if ok else None for name, ok in usable.items()},
            "rows": out, "processes": 0}
