"""The samplers: totals of dice drawn along a trials axis, in chunks, from a generator.

Plain dice (``NdM``) are drawn from the table of every outcome when it is small
(:data:`_ENUMERATE_LIMIT`), or die by die; a pool (:class:`~balance.dice.pools.Pool`) rolls
every die (reroll, explosion), then sums the kept ones. At most :data:`_SAMPLE_CHUNK` draws are
held at once, and a chunk never changes the draws: the totals depend on the generator alone.
:meth:`balance.dice.Dice.sample` puts the terms together.
"""
from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike

from ..budgets import MAX_EXPLOSIONS, MAX_ROLLS
from ..errors import check_integer
from .pools import Pool

__all__ = ["draw_dtype", "face_counts"]  # and, through Dice.sample, balance.dice.sample

_ENUMERATE_LIMIT = 1 << 16  # sample N dice of M faces with one draw when M**N is this small
#: random draws held at once when summing many dice (memory of sample(): 8 MB)
_SAMPLE_CHUNK = 1 << 20
#: :func:`face_counts` draws several dice as one integer while their outcomes number at most
#: this (the table of counts, 128 KB, stays in a core's cache) ...
_COUNT_OUTCOMES = 1 << 14
#: ... and at most this many dice (the counts of each die are then added up from that table)
_COUNT_DICE = 5
#: numpy draws integers of this many outcomes or fewer fastest as 16-bit ones (measured with
#: numpy 2.4 on an AMD EPYC: 1.2 ns a draw up to 400 outcomes, 1.5 ns at 1,728, 3.5 ns at
#: 10,000, against 1.8 ns as 32- or 64-bit ones whatever their number)
_INT16_OUTCOMES = 1 << 11
#: :func:`face_counts` counts dice of at most this many faces (its table: 8 MB)
MAX_COUNTED_FACES = 10**6


def draw_dtype(outcomes: int) -> type:
    """The integer type in which numpy draws ``rng.integers(0, outcomes)`` fastest.

    16-bit integers for up to 2,048 outcomes (numpy draws those 1.5 times as fast as 32- or
    64-bit ones, but slows down above: 3.5 ns a draw at 10,000 against 1.8 ns), then 32-bit,
    then 64-bit.

    Parameters
    ----------
    outcomes : int
        The number of equiprobable outcomes drawn (>= 1).

    Returns
    -------
    type
        ``numpy.int16``, ``numpy.int32``, ``numpy.int64`` or, above ``2**63``, ``numpy.uint64``.

    Examples
    --------
    >>> import balance as bl
    >>> [bl.dice.draw_dtype(n).__name__ for n in (100, 10_000, 2**40)]
    ['int16', 'int32', 'int64']
    """
    return np.int16 if outcomes <= _INT16_OUTCOMES else np.int32 if outcomes <= 2**31 else \
        np.int64 if outcomes <= 2**63 else np.uint64


def dice_per_draw(faces: int) -> int:
    """How many dice of ``faces`` faces :func:`face_counts` draws as one integer: d100s 2, d20s
    3, d6s and d2s 5 (at most :data:`_COUNT_DICE`, with at most :data:`_COUNT_OUTCOMES`
    outcomes together), dice of more than 128 faces 1."""
    m = 1
    while m < _COUNT_DICE and faces ** (m + 1) <= _COUNT_OUTCOMES:
        m += 1
    return m


def face_counts(faces: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """How many of ``n`` rolls of a die of ``faces`` faces show each face (index ``face - 1``).

    What the critical-injury roll, the d20 Test, the Psychology negotiation and the d100 skill
    roll samplers need: they map faces to outcomes afterwards. :func:`dice_per_draw` dice are
    drawn as one integer (two d100s as one of 10,000 outcomes, three d20s as one of 8,000), the
    integers are counted, and each die's counts are added up from that table: the counts are
    exactly those of ``n`` independent rolls (the ``m`` dice of one integer of ``faces**m``
    equiprobable outcomes are its ``m`` digits in base ``faces``), for a half (d100) to a fifth
    (d6) of the draws and of the counting. ``n % m`` dice are drawn one by one after them.

    The integers are drawn :data:`_SAMPLE_CHUNK` at a time, so the memory stays bounded. For
    32- and 64-bit integers those are the draws of one call; for 16-bit ones (up to 2,048
    outcomes) numpy drops half a buffered word at the end of a call, so beyond 2^20 integers
    the counts are those of the chunked draws: as exact, and the same for a seed.

    Parameters
    ----------
    faces : int
        Faces of the die, 1 to :data:`MAX_COUNTED_FACES` (10**6).
    n : int
        Number of rolls, 0 to ``budgets.MAX_ROLLS`` (10**10).
    rng : numpy.random.Generator
        The generator the draws come from.

    Returns
    -------
    numpy.ndarray
        ``faces`` int64 counts summing to ``n``.

    Raises
    ------
    ValueError
        ``faces`` or ``n`` not a whole number in its range, naming it.

    Examples
    --------
    >>> import numpy as np
    >>> import balance as bl
    >>> counts = bl.dice.face_counts(100, 1_001, np.random.default_rng(1))
    >>> counts.shape, int(counts.sum())
    ((100,), 1001)
    """
    faces = check_integer("faces", faces, min=1, max=MAX_COUNTED_FACES)
    n = check_integer("n", n, min=0, max=MAX_ROLLS)
    if faces == 1:
        return np.array([n], dtype=np.int64)
    m = dice_per_draw(faces)
    draws, rest = divmod(n, m)
    outcomes = faces ** m
    dtype = draw_dtype(outcomes)
    table = np.zeros(outcomes, dtype=np.int64)
    for start in range(0, draws, _SAMPLE_CHUNK):
        table += np.bincount(rng.integers(0, outcomes, size=min(_SAMPLE_CHUNK, draws - start),
                                          dtype=dtype), minlength=outcomes)
    table = table.reshape((faces,) * m)
    counts = np.zeros(faces, dtype=np.int64)
    for die in range(m):  # the die-th digit: every other axis summed out
        counts += table.sum(axis=tuple(a for a in range(m) if a != die))
    if rest:
        counts += np.bincount(rng.integers(0, faces, size=rest, dtype=draw_dtype(faces)),
                              minlength=faces)
    return counts


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


def sum_grid(tables: Iterable[ArrayLike]) -> np.ndarray:
    """Every sum of one value from each of ``tables``, in row-major order (the first table's
    value changes slowest), as int64: the totals of every ordered outcome of independent
    equiprobable parts, each equally likely (``sum_grid([range(1, 7)] * 2)``: 2d6's 36 rolls)."""
    grid = np.zeros(1, dtype=np.int64)
    for table in tables:
        grid = (grid[:, None] + np.asarray(table, dtype=np.int64)).ravel()
    return grid


@lru_cache(maxsize=256)
def _sum_table(count: int, faces: int, sign: int = 1, constant: int = 0) -> np.ndarray:
    """``constant + sign x`` the totals of every ordered outcome of ``count`` dice of ``faces``
    faces (equiprobable; read-only, kept per expression term)."""
    grid = constant + sign * sum_grid([np.arange(1, faces + 1)] * count)
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
