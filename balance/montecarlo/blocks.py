"""Where the blocks of a Monte Carlo run execute (engine internals of :mod:`balance.montecarlo`).

A run is cut into fixed blocks of ``block_size`` trials; block ``i`` draws from
``SeedSequence(entropy, spawn_key=root_key + (i,))`` -- the ``i``-th child that
``root.spawn`` gives. Consecutive blocks form a *chunk*, the unit of work sent to a worker.
A chunk returns the per-block accumulators (pre-summed when every array is an integer:
integer addition is associative, so this is exact); the driver adds them in block order.
Hence the totals depend on the seed and the block size only.
"""
from __future__ import annotations

import collections
import os
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import Any
from dataclasses import dataclass

import numpy as np

from .memory import keep_freed_memory

__all__ = ["Plan", "run_chunk", "check_same", "add_into", "iterate_serial", "iterate_dask"]

Totals = dict[str, np.ndarray]


@dataclass(frozen=True)
class Plan:
    """Everything a worker needs to reproduce its blocks (small and picklable)."""

    trials: int
    block_size: int
    entropy: int | Sequence[int] | None
    spawn_key: tuple[int, ...]
    pool_size: int

    @property
    def n_blocks(self) -> int:
        return -(-self.trials // self.block_size)

    def block_trials(self, index: int) -> int:
        return min(self.block_size, self.trials - index * self.block_size)

    def generator(self, index: int) -> np.random.Generator:
        child = np.random.SeedSequence(self.entropy, spawn_key=self.spawn_key + (index,),
                                       pool_size=self.pool_size)
        return np.random.default_rng(child)

    def chunks(self, blocks_per_chunk: int) -> list[tuple[int, int]]:
        n = self.n_blocks
        return [(a, min(a + blocks_per_chunk, n)) for a in range(0, n, blocks_per_chunk)]


def _accumulator(key: object, value: object, block: int) -> np.ndarray:
    """An owned copy in the accumulating dtype (int64, float64 or complex128)."""
    if not isinstance(key, str):
        raise ValueError(f"sampler must return a dict with str keys; got key {key!r} in block "
                         f"{block}")
    arr = np.asarray(value)
    kind = arr.dtype.kind
    if kind in "biu":
        return arr.astype(np.int64)
    if kind == "f":
        return arr.astype(np.float64)
    if kind == "c":
        return arr.astype(np.complex128)
    raise ValueError(f"sampler value {key!r} must be numeric (counts or sums); got dtype "
                     f"{arr.dtype} in block {block}")


def check_same(ref: Totals, ref_block: int, new: Totals, block: int) -> None:
    """Raise a one-line ValueError unless ``new`` has the keys, shapes and kinds of ``ref``."""
    if ref.keys() != new.keys():
        raise ValueError(f"sampler returned keys {sorted(new)} in block {block} but "
                         f"{sorted(ref)} in block {ref_block}; keys must not change")
    for key, arr in new.items():
        if arr.shape != ref[key].shape or arr.dtype != ref[key].dtype:
            raise ValueError(f"sampler value {key!r} has shape {arr.shape} ({arr.dtype}) in block "
                             f"{block} but {ref[key].shape} ({ref[key].dtype}) in block "
                             f"{ref_block}; accumulators need a fixed shape")


def add_into(total: Totals, part: Totals) -> None:
    """``total += part`` in place, key by key (order of calls = block order)."""
    for key, arr in part.items():
        np.add(total[key], arr, out=total[key])


def _block(sampler: Callable, plan: Plan, index: int) -> Totals:
    out = sampler(plan.block_trials(index), plan.generator(index))
    if not isinstance(out, dict) or not out:
        raise ValueError(f"sampler must return a non-empty dict of arrays; got "
                         f"{type(out).__name__} in block {index}")
    return {key: _accumulator(key, value, index) for key, value in out.items()}


def run_chunk(sampler: Callable, plan: Plan, first: int, stop: int) -> list[Totals]:
    """Run blocks ``first..stop-1``; return their accumulators in order: one running sum when
    they are all integers (exact in any grouping), else one dict per block (float addition
    is not associative: the driver adds them in block order). The process keeps the
    memory a block frees for the next (:func:`.memory.keep_freed_memory`)."""
    keep_freed_memory()
    head = _block(sampler, plan, first)
    integer = all(arr.dtype.kind == "i" for arr in head.values())
    parts = [head]
    for index in range(first + 1, stop):
        part = _block(sampler, plan, index)
        check_same(head, first, part, index)
        if integer:
            add_into(head, part)
        else:
            parts.append(part)
    return parts


Chunk = tuple[int, int]
Result = tuple[Chunk, list[Totals]]


def iterate_serial(sampler: Callable, plan: Plan,
                   chunks: list[Chunk]) -> Generator[Result, None, None]:
    """Run the chunks one after the other in this process, handing over each block at once
    (so even a huge chunk holds one block's accumulators)."""
    for a, b in chunks:
        for index in range(a, b):
            yield (index, index + 1), run_chunk(sampler, plan, index, index + 1)


def _ordered(submit: Callable[[Chunk], Any], result: Callable[[Any], list[Totals]],
             chunks: list[Chunk], window: int, local: Callable[[Chunk], list[Totals]] | None = None,
             ready: Callable[[], bool] = lambda: True) -> Iterator[Result]:
    """Yield chunk results in chunk order, keeping at most ``window`` chunks submitted.

    With ``local``, this process works too: whenever the oldest submitted chunk is not done
    yet (or the workers are still starting, ``ready()`` false) it runs the next chunk itself.
    """
    pending: collections.deque = collections.deque()  # (chunk, future or result, is_remote)
    todo = collections.deque(chunks)
    remote = 0
    while todo or pending:
        while todo and remote < window and ready():
            chunk = todo.popleft()
            pending.append((chunk, submit(chunk), True))
            remote += 1
        if pending:
            chunk, obj, is_remote = pending[0]
            if not is_remote or local is None or obj.done():
                pending.popleft()
                if is_remote:
                    obj, remote = result(obj), remote - 1
                yield chunk, obj
                continue
        # without local, the oldest submitted chunk is always awaited above: never past here
        assert local is not None
        if todo:  # the workers are busy or starting: lend a hand
            chunk = todo.popleft()
            pending.append((chunk, local(chunk), False))
            continue
        for i in range(len(pending) - 1, 0, -1):  # nothing left: take back a queued chunk
            chunk, obj, is_remote = pending[i]
            if is_remote and obj.cancel():
                pending[i], remote = (chunk, local(chunk), False), remote - 1
                break
        else:
            chunk, obj, _ = pending.popleft()
            out, remote = result(obj), remote - 1
            yield chunk, out


def _dask() -> Any:  # the dask.distributed module
    try:
        from dask import distributed
    except ImportError:
        raise ValueError('workers="dask" needs the optional dependency dask[distributed]: '
                         "pip install 'balance[dask]'") from None
    return distributed


def dask_threads(client) -> int:
    """Total threads of a Dask client's workers (at least 1)."""
    return max(1, sum(client.nthreads().values()))


def iterate_dask(sampler: Callable, plan: Plan, chunks: list[Chunk],
                 client: Any) -> Generator[Result, None, None]:
    """Run the chunks on a Dask cluster (``client``, a ``distributed.Client``, or a LocalCluster
    made and closed here when it is None)."""
    own = client is None
    cluster: Any = None
    if own:
        distributed = _dask()
        cluster = distributed.LocalCluster(n_workers=os.cpu_count() or 1, threads_per_worker=1,
                                           processes=True, dashboard_address=None)
        client = distributed.Client(cluster)
    live: set = set()  # only unfinished futures are referenced, so results do not pile up
    shared = client.scatter(sampler, broadcast=True, hash=False)  # sent once per worker

    def submit(chunk: Chunk):
        fut = client.submit(run_chunk, shared, plan, *chunk, pure=False)
        live.add(fut)
        return fut

    def result(fut) -> list[Totals]:
        out = fut.result()
        live.discard(fut)
        return out

    try:
        yield from _ordered(submit, result, chunks, 2 * dask_threads(client) + 1)
    except BaseException:
        if live:
            client.cancel(list(live))
        raise
    finally:
        if own:
            client.close()
            cluster.close()
