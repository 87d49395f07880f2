"""The samplers: totals of dice drawn along a trials axis, in chunks, from a generator.

Plain dice (``NdM``) are drawn from the table of every outcome when it is small
(:data:`_ENUMERATE_LIMIT`), or die by die; a pool (:class:`~balance.dice.pools.Pool`) rolls
every die (reroll, explosion), then sums the kept ones. At most :data:`_SAMPLE_CHUNK` draws are
held at once, and a chunk never changes the draws: the totals depend on the generator alone.
:meth:`balance.dice.Dice.sample` puts the terms together.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..budgets import MAX_EXPLOSIONS
from .pools import Pool

__all__: list[str] = []  # reached through Dice.sample and balance.dice.sample

_ENUMERATE_LIMIT = 1 << 16  # sample N dice of M faces with one draw when M**N is this small
#: random draws held at once when summing many dice (memory of sample(): 8 MB)
_SAMPLE_CHUNK = 1 << 20


def _sum_of_draws(gen: np.random.Generator, count: int, faces: int, rows: int) -> np.ndarray:
    """Totals of ``rows`` rolls of ``count`` dice, drawn ``(rows, count)`` in row order but at
    most :data:`_SAMPLE_CHUNK` draws at a time. Chunks hold an even number of draws, so the
    stream is the one of a single draw."""
    per = max(2, (_SAMPLE_CHUNK // count) // 2 * 2)
    out = np.empty(rows, dtype=np.int64)
    for start in range(0, rows, per):
        stop = min(rows, start + per)
        out[start:stop] = gen.integers(1, faces + 1, size=(stop - start, count)).sum(-1)
    return out


@lru_cache(maxsize=256)
def _sum_table(count: int, faces: int, sign: int = 1, constant: int = 0) -> np.ndarray:
    """``constant + sign x`` the totals of every ordered outcome of ``count`` dice of ``faces``
    faces (equiprobable; read-only, kept per expression term)."""
    grid = np.zeros(1, dtype=np.int64)
    for _ in range(count):
        grid = (grid[:, None] + np.arange(1, faces + 1)).ravel()
    grid = constant + sign * grid
    grid.flags.writeable = False
    return grid


def _sample_rolls(gen: np.random.Generator, pool: Pool, shape) -> np.ndarray:
    """Rolls of a pool's die, reroll applied (once: rolled again; until: above N)."""
    if pool.until:
        return gen.integers(pool.reroll + 1, pool.faces + 1, size=shape)
    rolls = gen.integers(1, pool.faces + 1, size=shape)
    if pool.reroll:
        again = rolls <= pool.reroll
        rolls[again] = gen.integers(1, pool.faces + 1, size=int(again.sum()))
    return rolls


def _sample_pool(gen: np.random.Generator, pool: Pool, rows: int) -> np.ndarray:
    """Totals of ``rows`` rolls of a pool: every die rolled (reroll, explosion), then the
    kept ones summed; at most :data:`_SAMPLE_CHUNK` dice at a time."""
    per = max(1, _SAMPLE_CHUNK // pool.count)
    out = np.empty(rows, dtype=np.int64)
    k = pool.kept
    for start in range(0, rows, per):
        stop = min(rows, start + per)
        dice = _sample_rolls(gen, pool, (stop - start, pool.count))
        if pool.explode:
            last = dice.copy()
            for _ in range(MAX_EXPLOSIONS):
                hit = last == pool.faces
                if not hit.any():
                    break
                extra = _sample_rolls(gen, pool, int(hit.sum()))
                dice[hit] += extra
                last = np.zeros_like(last)
                last[hit] = extra
        if pool.keep:
            dice = np.sort(dice, axis=-1)
            dice = dice[:, -k:] if pool.highest else dice[:, :k]
        out[start:stop] = dice.sum(-1)
    return out
