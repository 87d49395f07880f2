"""The Monte Carlo engine: chunked, seeded, parallel runs with honest intervals.

A *sampler* simulates ``n`` trials with a Generator and returns additive accumulators
(counts, fixed-shape histograms, sums)::

    def sampler(n, rng):                       # module-level, or functools.partial of one
        die = rng.integers(1, 7, size=n)
        return {"six": np.count_nonzero(die == 6), "sum": die.sum(), "sumsq": (die * die).sum()}

:func:`run` cuts the trials into fixed blocks of :data:`BLOCK_SIZE` (the last one partial),
gives block ``i`` the ``i``-th ``SeedSequence.spawn`` child of the root sequence of ``seed``,
and adds the block accumulators in block order. The totals therefore depend on the seed (and
the block size) only: never on ``chunk_size``, ``workers`` or Dask. Memory holds one block's
arrays per worker plus the accumulators, whatever the number of trials.

>>> import numpy as np
>>> from balance import montecarlo
>>> from balance.bench import floor_sampler
>>> from functools import partial
>>> res = montecarlo.run(partial(floor_sampler, faces=6), 600_000, seed=1)
>>> res.trials, int(res.totals["faces"].sum()), res.blocks
(600000, 600000, 3)
>>> list(res.proportion("faces").columns)
['count', 'estimate', 'ci_low', 'ci_high', 'se', 'trials', 'seed', 'fingerprint']
>>> again = montecarlo.run(partial(floor_sampler, faces=6), 600_000, seed=1, chunk_size=1)
>>> bool((again.totals["faces"] == res.totals["faces"]).all())
True
"""
from __future__ import annotations

import functools
import os
import sys
import time
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import blocks, pool
from .pool import shutdown_workers, start_workers
from ..budgets import check_blocks, check_trials, check_workers
from ..errors import check_integer, did_you_mean
from .intervals import mean_se, normal_interval, proportion_table, wilson, z_value
from ..rng import RNGLike, as_seed_sequence, check_rng, seed_label
from ..rules import Rules, resolve

__all__ = ["BLOCK_SIZE", "MCResult", "run", "start_workers", "shutdown_workers", "wilson", "proportion_table",
           "normal_interval", "z_value"]

#: Trials per block. Part of the seed semantics: changing it changes every result.
BLOCK_SIZE = 1 << 18
#: Blocks per chunk (unit of work of a worker) when ``chunk_size`` is not given (Dask: 4x).
DEFAULT_CHUNK_BLOCKS = 4
#: With ``progress=None``, an interactive bar appears only once a run has lasted this long (s).
PROGRESS_DELAY = 2.0


@dataclass(frozen=True, eq=False)
class MCResult:
    """Totals of a Monte Carlo run and their provenance.

    Attributes
    ----------
    totals : dict of str -> ndarray
        The summed accumulators (read-only; int64 for counts, float64 for sums).
    trials : int
    seed : object
        The seed as given (an int), or the entropy that reproduces the run (seed None or a
        Generator); ``run(..., seed=res.seed_sequence)`` always reproduces it.
    seed_sequence : SeedSequence
        Root sequence; block ``i`` used its child ``spawn_key + (i,)``.
    block_size : int
    fingerprint : str or None
        Fingerprint of the rules the sampler used (None when not given).
    label : str
    elapsed : float
        Wall-clock seconds (not part of the result's identity).
    workers_used : int or str
        Processes that ran blocks (1: in this process only; ``"dask"`` on Dask); not part of
        the result's identity.
    note : str
        How the run was executed when ``workers`` asked for more than one process, e.g.
        ``"ran in-process: too short to pay for the pool (est. 0.05 s of work, start-up
        ~1.4 s)"``; empty otherwise.
    """

    totals: Mapping[str, np.ndarray]
    trials: int
    seed: object
    seed_sequence: np.random.SeedSequence
    block_size: int
    fingerprint: str | None = None
    label: str = ""
    elapsed: float = field(default=float("nan"), compare=False)
    workers_used: int | str = field(default=1, compare=False)
    note: str = field(default="", compare=False)

    @property
    def blocks(self) -> int:
        """Number of blocks (the last one partial when ``block_size`` does not divide trials)."""
        return -(-self.trials // self.block_size)

    def __getitem__(self, key: str) -> np.ndarray:
        return self.totals[self._key(key)]

    def keys(self) -> list[str]:
        return list(self.totals)

    def _key(self, key: object) -> str:
        if not isinstance(key, str) or key not in self.totals:
            raise ValueError(f"key must be one of {sorted(self.totals)}, got {key!r}"
                             f"{did_you_mean(str(key), self.totals)}")
        return key

    def _provenance(self, frame: pd.DataFrame) -> pd.DataFrame:
        seeds: list[Any] = [self.seed] * len(frame)
        frame["seed"] = seeds
        frame["fingerprint"] = self.fingerprint
        frame.attrs.update(trials=self.trials, seed=self.seed, fingerprint=self.fingerprint,
                           label=self.label, block_size=self.block_size)
        return frame

    def _denominator(self, denominator: object, counts: np.ndarray) -> object:
        if denominator is None:
            return self.trials
        if isinstance(denominator, str):
            return counts.sum() if denominator == "sum" else self[denominator]
        return denominator

    def proportion(self, key_or_counts, *, denominator=None, index=None,
                   confidence: float = 0.95) -> pd.DataFrame:
        """Proportions with Wilson intervals: one row per cell of a count accumulator.

        Parameters
        ----------
        key_or_counts : str or array of int
            A key of :attr:`totals`, or counts computed from them (e.g. ``res["rows"][-1]``).
        denominator : None, int, array, str
            ``None``: the number of trials; a key: conditional proportions; ``"sum"``: the
            counts' own total (a distribution over events rather than trials).
        index : sequence, optional
            Labels of the cells.

        Returns
        -------
        DataFrame
            ``count, estimate, ci_low, ci_high, se, trials, seed, fingerprint``.
        """
        counts = (self[key_or_counts] if isinstance(key_or_counts, str)
                  else np.asarray(key_or_counts))
        frame = proportion_table(counts, self._denominator(denominator, counts), index,
                                 confidence=confidence)
        frame.insert(0, "count", np.ravel(counts).astype(np.int64))
        return self._provenance(frame)

    def distribution(self, key: str, values=None, *, name: str = "value", denominator=None,
                     confidence: float = 0.95) -> pd.DataFrame:
        """A histogram accumulator as a distribution: probability of each bin with its Wilson
        interval, indexed by ``values`` (default ``0..bins-1``) under the name ``name``."""
        counts = self[key]
        if counts.ndim != 1:
            raise ValueError(f"key {key!r} must be a 1-D histogram, got shape {counts.shape}")
        values = np.arange(counts.size) if values is None else values
        return self.proportion(key, denominator=denominator, confidence=confidence,
                               index=pd.Index(values, name=name))

    def mean(self, key: str, sumsq: str | None = None, *, count=None,
             confidence: float = 0.95) -> pd.DataFrame:
        """Mean per trial of a sum accumulator, with a normal interval when ``sumsq`` (the key
        of the matching sum of squares) is given: ``se = sqrt(var / N)``, ``var`` the sample
        variance ``(Q - S**2 / N) / (N - 1)``. ``count`` (key or int) replaces ``N`` for a
        conditional mean (e.g. mean time among deaths)."""
        s = self[key].astype(np.float64)
        n = np.broadcast_to(np.asarray(self._denominator(count, s), dtype=np.float64), s.shape)
        q = np.full(s.shape, np.nan) if sumsq is None else self[sumsq].astype(np.float64)
        est, se = (np.asarray(x) for x in mean_se(s, q, n))
        low, high = normal_interval(est, se, confidence)
        frame = pd.DataFrame({"estimate": np.ravel(est), "ci_low": np.ravel(low),
                              "ci_high": np.ravel(high), "se": np.ravel(se),
                              "trials": np.ravel(n).astype(np.int64)})
        return self._provenance(frame)

    def to_frame(self) -> pd.DataFrame:
        """All totals in long form: ``key, cell, total, per_trial, trials, seed, fingerprint``."""
        rows = []
        for key, arr in self.totals.items():
            for cell in np.ndindex(arr.shape):
                value = arr[cell]
                label = None if not cell else cell[0] if len(cell) == 1 else cell
                rows.append((key, label, value.item(), value / self.trials))
        frame = pd.DataFrame(rows, columns=["key", "cell", "total", "per_trial"])
        frame["trials"] = self.trials
        frame["label"] = self.label
        return self._provenance(frame)

    @property
    def table(self) -> pd.DataFrame:
        """Same as :meth:`to_frame`."""
        return self.to_frame()

    def __repr__(self) -> str:
        return (f"MCResult({self.label or 'run'!r}, trials={self.trials:,}, seed={self.seed!r}, "
                f"keys={self.keys()}, fingerprint={self.fingerprint!r})")


def _check_workers(workers: object) -> object:
    if isinstance(workers, str):
        if workers.strip().lower() == "dask":
            return "dask"
        raise ValueError(f"workers must be an integer >= 1, 'dask' or a dask.distributed.Client, "
                         f"got {workers!r}{did_you_mean(workers, ['dask'])}")
    if type(workers).__module__.startswith("distributed") and hasattr(workers, "submit"):
        return workers
    return check_workers(workers)  # at most the cores (budgets.max_workers)


def _fingerprint(rules: object, sampler: Callable) -> str | None:
    if rules is None:  # a partial carrying rules= tells us which rules it uses
        rules = getattr(sampler, "keywords", {}).get("rules") if isinstance(
            sampler, functools.partial) else None
        return rules.fingerprint if isinstance(rules, Rules) else None
    if isinstance(rules, Rules):
        return rules.fingerprint
    if isinstance(rules, (str, Path)):
        return resolve(rules).fingerprint
    raise ValueError(f"rules must be a Rules object, a rules file path or None, got {rules!r}")


def _seed_label(seed: RNGLike, root: np.random.SeedSequence) -> object:
    if isinstance(seed, np.random.SeedSequence):
        return seed_label(seed)
    if seed is None or isinstance(seed, np.random.Generator):
        entropy = root.entropy
        return tuple(entropy) if isinstance(entropy, (list, np.ndarray)) else entropy
    return int(seed)


def _interactive() -> str | None:
    """"notebook", "terminal" or None (no one is watching)."""
    ipython = sys.modules.get("IPython")
    if ipython is not None:
        shell = ipython.get_ipython()
        if shell is not None and type(shell).__name__ == "ZMQInteractiveShell":
            return "notebook"
    stream = sys.stderr
    tty = stream is not None and hasattr(stream, "isatty") and stream.isatty()
    return "terminal" if tty else None


def _bar(progress: bool | None, trials: int, n_chunks: int, label: str):
    where = _interactive()
    if progress is False or (progress is None and (where is None or n_chunks < 2)):
        return None
    if where == "notebook":
        from tqdm.auto import tqdm
    else:
        from tqdm import tqdm
    return tqdm(total=trials, unit="trial", unit_scale=True, desc=label or "Monte Carlo",
                delay=PROGRESS_DELAY if progress is None else 0.0, leave=progress is True)


def _blocks_per_chunk(plan: blocks.Plan, chunk_size: int | None, workers: object) -> int:
    """``chunk_size`` in whole blocks; by default small enough to give each lane 4 chunks."""
    if chunk_size is not None:
        return -(-chunk_size // plan.block_size)
    if isinstance(workers, int):
        lanes, most = workers, DEFAULT_CHUNK_BLOCKS
    else:
        lanes = (os.cpu_count() or 1) if workers == "dask" else blocks.dask_threads(workers)
        most = 4 * DEFAULT_CHUNK_BLOCKS
    return max(1, min(most, -(-plan.n_blocks // (4 * lanes))))


def run(sampler: Callable[[int, np.random.Generator], dict], trials: int, *,
        seed: RNGLike = None, chunk_size: int | None = None, workers: object = 1,
        progress: bool | None = None, rules: Rules | str | Path | None = None,
        label: str = "", block_size: int = BLOCK_SIZE) -> MCResult:
    """Run ``sampler`` over ``trials`` trials; return the summed accumulators.

    Parameters
    ----------
    sampler : callable ``(n, rng) -> dict[str, array]``
        Simulates ``n <= block_size`` trials with Generator ``rng``; returns additive
        accumulators whose keys, shapes and kinds never change. Must pickle (module-level
        function or ``functools.partial`` of one) for ``workers > 1``; functions defined in
        ``__main__``/notebooks are sent with cloudpickle.
    trials : int
        1 to :data:`balance.budgets.MAX_TRIALS` (10**10).
    seed : int, SeedSequence, Generator or None
        ``None`` draws fresh entropy, recorded in the result.
    chunk_size : int, optional
        Trials per unit of work, rounded up to whole blocks (default
        :data:`DEFAULT_CHUNK_BLOCKS` blocks, 4x that on Dask, fewer when needed to keep every
        worker busy). Affects speed and progress only, never results.
    workers : int, "dask" or dask.distributed.Client
        ``1``: this process; ``N`` (at most :func:`balance.budgets.max_workers`, the usable
        cores): N processes, this one and N - 1 helpers (kept
        :data:`balance.pool.IDLE_TIMEOUT` s for the next run; :func:`shutdown_workers`);
        ``"dask"``: a LocalCluster created and closed for this run; a Client: its cluster.
        Results are identical in all cases. Without a warm pool, the first block runs here,
        timed, and a run whose remaining blocks would take less than the pool's start-up
        (:func:`balance.montecarlo.pool.startup_cost`) finishes in this process; the result's
        ``workers_used`` and ``note`` say what happened.
    progress : bool or None
        ``None``: a tqdm bar in a terminal or notebook for runs lasting over
        :data:`PROGRESS_DELAY` seconds; ``True``: always; ``False``: never.
    rules : Rules, path or None
        Only recorded (fingerprint); taken from ``sampler.keywords["rules"]`` if omitted.
    label : str
        Name of the run in tables and progress bar.
    block_size : int
        Trials per seeded block; part of the seed semantics (default :data:`BLOCK_SIZE`).

    Returns
    -------
    MCResult
    """
    if not callable(sampler):
        raise ValueError(f"sampler must be callable (n, rng) -> dict of arrays, got {sampler!r}")
    trials = check_trials(trials)  # 1..budgets.MAX_TRIALS
    check_rng(seed, "seed")
    if chunk_size is not None:
        chunk_size = check_integer("chunk_size", chunk_size, min=1)
    workers = _check_workers(workers)
    if progress is not None and not isinstance(progress, bool):
        raise ValueError(f"progress must be True, False or None, got {progress!r}")
    if not isinstance(label, str):
        raise ValueError(f"label must be a str, got {label!r}")
    block_size = check_integer("block_size", block_size, min=1)
    check_blocks(trials, block_size)
    fingerprint = _fingerprint(rules, sampler)

    root = as_seed_sequence(seed)
    plan = blocks.Plan(trials, block_size, root.entropy, tuple(root.spawn_key), root.pool_size)
    chunks = plan.chunks(_blocks_per_chunk(plan, chunk_size, workers))
    start = time.perf_counter()
    parts: Generator[blocks.Result, None, None]
    used: int | str = 1
    note = ""
    if workers != 1:
        pool.refuse_while_importing_script(f"a run with workers={workers!r}")
    if not isinstance(workers, int):  # "dask" or a dask.distributed.Client
        if workers == "dask":
            blocks._dask()  # clear error before any work when dask is missing
        parts = blocks.iterate_dask(sampler, plan, chunks, None if workers == "dask" else workers)
        used = "dask"
    elif workers > 1 and len(chunks) > 1:
        parts, used, note = _processes(sampler, plan, chunks, workers)
    else:
        parts = blocks.iterate_serial(sampler, plan, chunks)
        if workers > 1:
            note = "ran in-process: a single chunk, nothing to share with other processes"

    bar = _bar(progress, trials, len(chunks), label)
    totals: dict[str, np.ndarray] | None = None
    try:
        for (first, stop), results in parts:
            for part in results:
                if totals is None:
                    totals = {key: arr.copy() for key, arr in part.items()}
                else:
                    blocks.check_same(totals, 0, part, first)
                    blocks.add_into(totals, part)
            if bar is not None:
                bar.update(min(stop * block_size, trials) - first * block_size)
    finally:
        parts.close()
        if bar is not None:
            bar.close()
    assert totals is not None  # trials >= 1: at least one block ran
    for arr in totals.values():
        arr.flags.writeable = False
    return MCResult(totals=totals, trials=trials, seed=_seed_label(seed, root),
                    seed_sequence=root, block_size=block_size, fingerprint=fingerprint,
                    label=label, elapsed=time.perf_counter() - start, workers_used=used,
                    note=note)


def _after(head: blocks.Result,
           rest: Generator[blocks.Result, None, None]) -> Generator[blocks.Result, None, None]:
    yield head
    yield from rest


def _processes(sampler: Callable, plan: blocks.Plan, chunks: list[blocks.Chunk],
               workers: int) -> tuple[Generator[blocks.Result, None, None], int, str]:
    """``(parts, workers_used, note)`` of a run asked for ``workers > 1`` processes.

    A warm pool is used at once. Otherwise block 0 runs here first, timed; the pool starts
    only if the trials left, at that block's pace, take longer than the pool's start-up
    (:func:`~balance.montecarlo.pool.pays_for_pool`, :func:`~balance.montecarlo.pool.startup_cost`),
    else the run finishes in-process. Blocks keep their seeds and their order, so the totals
    are the same either way.
    """
    lanes = min(workers, len(chunks))
    startup = pool.startup_cost(lanes - 1)
    if startup == 0.0:
        return (pool.iterate_processes(sampler, plan, chunks, lanes), lanes,
                f"ran on {lanes} processes (warm pool)")
    tic = time.perf_counter()
    head = blocks.run_chunk(sampler, plan, 0, 1)
    per_trial = (time.perf_counter() - tic) / plan.block_trials(0)
    left = plan.trials - plan.block_trials(0)
    rest = [(max(a, 1), b) for a, b in chunks if b > 1]
    work = left * per_trial
    if pool.pays_for_pool(left, per_trial, startup):  # block 0 was this process's share
        lanes = min(workers, len(rest) + 1)
        return (_after(((0, 1), head), pool.iterate_processes(sampler, plan, rest, lanes)),
                lanes, f"ran on {lanes} processes (pool started: est. {work:.3g} s of work, "
                f"start-up ~{startup:.3g} s)")
    return (_after(((0, 1), head), blocks.iterate_serial(sampler, plan, rest)), 1,
            f"ran in-process: too short to pay for the pool (est. {work:.3g} s of work, "
            f"start-up ~{startup:.3g} s)")
