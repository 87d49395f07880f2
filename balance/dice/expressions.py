"""A dice expression: signed plain terms (``NdM``), modified terms (pools) and a constant; its
bounds, mean, exact distribution and sampler.

:class:`Dice` is what :func:`balance.dice.parse` reads from the notation. Its exact distribution
convolves the plain terms die by die in exact integers, or by FFT convolution above
:data:`~balance.dice.convolution._DIRECT_WORK` multiply-adds, then each pool's distribution
(:mod:`balance.dice.pools`); its sampler draws each term (:mod:`balance.dice.sampling`).
:meth:`Dice.equal_outcomes` is the table of a plain expression's equally likely rolls, and
:meth:`Dice.sample_indices` draws rolls as indices into a table, for compiled loops that read
the totals.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..budgets import MAX_EXPLOSIONS, MAX_GRID_CELLS, check_sample, check_support
from ..errors import check_integer
from ..rng import RNGLike, as_generator
from .convolution import _DIRECT_WORK, _fft_convolve, _power, convolve
from .distributions import Distribution
from .pools import Pool, _die_probs, _pool_probs, _roll_probs
from .sampling import (_ENUMERATE_LIMIT, _sample_pool, _sum_of_draws, _sum_table, draw_dtype,
                       sum_grid)

__all__ = ["Dice"]


@dataclass(frozen=True)
class Dice:
    """A parsed dice expression: signed plain dice terms, a constant, and modified terms
    (:class:`Pool`: keep/drop, explode, reroll)."""

    plain_terms: tuple[tuple[int, int, int], ...]  # (sign, count, faces)
    constant: int = 0
    pools: tuple[Pool, ...] = ()

    @property
    def terms(self) -> tuple[tuple[int, int, int], ...]:
        """The ``(sign, count, faces)`` terms of a plain expression. Code reading the dice
        one by one cannot honour keep/drop, explosion or reroll: for an expression with
        such a term this raises a one-line ValueError rather than give a silently wrong
        answer (its distribution, mean and sampler do handle them)."""
        if self.pools:
            raise ValueError(f"dice {self}: this rule reads the dice one by one and takes "
                             "plain NdM terms only; keep/drop (kh, kl, dh, dl), exploding (!) "
                             "and reroll (r, rr) dice work where a distribution or a sampler "
                             "is used")
        return self.plain_terms

    @property
    def dice_count(self) -> int:
        """Dice rolled for one total (before any explosion or reroll).

        >>> from balance.dice import parse
        >>> parse("4d6kh3+2d8-1").dice_count
        6
        """
        return sum(c for _, c, _ in self.plain_terms) + sum(pool.count for pool in self.pools)

    def __str__(self) -> str:
        parts = []
        for sign, count, faces in self.plain_terms:
            parts.append(("-" if sign < 0 else "+") + f"{count}d{faces}")
        parts += [("-" if pool.sign < 0 else "+") + str(pool) for pool in self.pools]
        if self.constant or not parts:
            parts.append(f"{self.constant:+d}")
        text = "".join(parts)
        return text[1:] if text.startswith("+") else text

    @property
    def min(self) -> int:
        return (self.constant + sum(c * (1 if s > 0 else -f) for s, c, f in self.plain_terms)
                + sum(pool.bounds()[0] for pool in self.pools))

    @property
    def max(self) -> int:
        return (self.constant + sum(c * (f if s > 0 else -1) for s, c, f in self.plain_terms)
                + sum(pool.bounds()[1] for pool in self.pools))

    @property
    def mean(self) -> float:
        """The exact mean (a keep/drop term over the exact work budget raises ValueError)."""
        mean = self.constant + sum(s * c * (f + 1) / 2 for s, c, f in self.plain_terms)
        for pool in self.pools:
            if pool.keep and pool.kept < pool.count:
                low, probs = _pool_probs(pool)
                mean += pool.sign * float(np.dot(np.arange(low, low + probs.size), probs))
            else:
                die = _die_probs(pool)
                mean += pool.sign * pool.count * float(np.dot(np.arange(1, die.size + 1), die))
        return mean

    @property
    def is_plain(self) -> bool:
        """No modified term (only ``NdM`` terms and integers)."""
        return not self.pools

    @property
    def truncated_mass(self) -> float:
        """Probability that an exploding die reaches the explosion budget on its highest face
        (where "explodes at most :data:`MAX_EXPLOSIONS` times" and the unbounded rule differ);
        0 without ``!``.

        >>> from balance.dice import parse
        >>> round(parse("1d6!").truncated_mass / (1 / 6) ** 21, 9)
        1.0
        """
        log_whole = 0.0  # log P(no die reaches the budget), exact for tiny masses
        for pool in self.pools:
            if pool.explode:
                top = float(_roll_probs(pool)[-1]) ** (MAX_EXPLOSIONS + 1)
                log_whole += pool.count * math.log1p(-top)
        return -math.expm1(log_whole)

    def distribution(self) -> Distribution:
        """Exact distribution: each total and its probability (sums to 1)."""
        return _distribution(self)  # immutable: the cached value itself

    def sample(self, size: int | tuple[int, ...], seed: RNGLike = None) -> np.ndarray:
        """Draw ``size`` totals (int64) with ``seed`` (int, SeedSequence, Generator or None);
        at most ``budgets.MAX_SAMPLE`` (10**8) values per call."""
        gen = as_generator(seed)
        check_sample(size, self.dice_count)
        # the constant goes into the first table drawn from (one pass less)
        constant, terms = self.constant, []
        for sign, count, faces in self.plain_terms:
            if (faces == 1 or count <= 16) and faces ** count <= _ENUMERATE_LIMIT:
                table = _sum_table(count, faces, sign, constant)
                constant = 0
                terms.append(table[gen.integers(0, table.size, size=size)])
            else:
                terms.append(sign * _sum_of_draws(gen, count, faces, int(np.prod(size)))
                             .reshape(size))
        out = terms[0] if terms else np.zeros(size, dtype=np.int64)
        for draw in terms[1:]:
            out += draw
        if constant:
            out += constant
        for pool in self.pools:
            out += pool.sign * _sample_pool(gen, pool, out.size).reshape(out.shape)
        return out

    def equal_outcomes(self, limit: int = _ENUMERATE_LIMIT) -> np.ndarray | None:
        """Every equally likely roll, sorted (see :func:`balance.dice.equal_outcomes`); ``limit``
        1 to ``budgets.MAX_GRID_CELLS`` (2 x 10**7)."""
        return _equal_outcomes(self, check_integer("limit", limit, min=1, max=MAX_GRID_CELLS))

    def sample_indices(self, size: int,
                       seed: RNGLike = None) -> tuple[np.ndarray, np.ndarray]:
        """``size`` rolls as ``(index, table)`` (see :func:`balance.dice.sample_indices`)."""
        gen = as_generator(seed)
        size = check_integer("size", size, min=0)
        table = _equal_outcomes(self, _ENUMERATE_LIMIT)
        if table is not None:
            check_sample(size, self.dice_count)
            return gen.integers(0, table.size, size=size, dtype=draw_dtype(table.size)), table
        totals = self.sample(size, gen)
        if self.support <= _SPAN_LIMIT:
            table = _span(self)
            return (totals - self.min).astype(draw_dtype(table.size)), table
        table, index = np.unique(totals, return_inverse=True)
        table.flags.writeable = False
        return index.astype(draw_dtype(table.size)), table

    @property
    def support(self) -> int:
        """Number of possible totals, ``max - min + 1``."""
        return self.max - self.min + 1

    def _fft_distribution(self) -> Distribution:
        """The distribution by FFT convolution, whatever its size (the fallback; tested)."""
        check_support(self, self.support)
        return _made(self, _fft_probs(self))


def _direct_work(dice: Dice) -> int:
    """Multiply-adds of convolving ``dice`` die by die (then term by term)."""
    work, length = 0, 1
    for _, count, faces in dice.plain_terms:
        work += faces * (count * (count - 1) * (faces - 1) // 2 + count)
        term = count * (faces - 1) + 1
        work += length * term
        length += term - 1
    return work


@lru_cache(maxsize=512)
def _distribution(dice: Dice) -> Distribution:
    check_support(dice, dice.support)
    if dice.pools:
        plain = Dice(dice.plain_terms, dice.constant)
        known = _distribution(plain)
        probs = np.zeros(plain.support)  # every total of the plain part, 0 where impossible
        probs[known.totals - plain.min] = known.probabilities
        start = plain.min
        for pool in dice.pools:
            low, part = _pool_probs(pool)
            probs = convolve(probs, part[::-1] if pool.sign < 0 else part)
            start += low if pool.sign > 0 else -(low + part.size - 1)
        return _made(dice, np.clip(probs, 0.0, None) / probs.sum(), start, possible=True)
    if _direct_work(dice) > _DIRECT_WORK:  # every total of the range; the rarest read 0
        return _made(dice, _fft_probs(dice))
    # integer counts while they fit in int64 (exact), floats beyond
    exact = sum(c * np.log2(f) for _, c, f in dice.plain_terms) < 62
    dtype = np.int64 if exact else np.float64
    probs = np.ones(1, dtype=dtype)
    for sign, count, faces in dice.plain_terms:
        die = np.ones(faces, dtype=dtype) if exact else np.full(faces, 1.0 / faces)
        term: np.ndarray = np.ones(1, dtype=dtype)
        for _ in range(count):
            term = np.convolve(term, die)
        probs = np.convolve(probs, term[::-1] if sign < 0 else term)
    return _made(dice, probs / probs.sum(), possible=True)


def _made(dice: Dice, probs: np.ndarray, start: int | None = None,
          possible: bool = False) -> Distribution:
    """The distribution of ``dice`` from the probabilities of consecutive totals from
    ``start`` (default ``dice.min``); ``possible``: only the totals of positive probability."""
    start = dice.min if start is None else start
    totals = np.arange(start, start + probs.size)
    if possible:
        keep = probs > 0
        totals, probs = totals[keep], probs[keep]
    return Distribution(totals, probs, str(dice))


def _fft_probs(dice: Dice) -> np.ndarray:
    """Probabilities of ``dice.min .. dice.max`` by FFT convolution: each term's die raised
    to its count by repeated squaring, then the terms convolved; rounding noise (below
    :data:`NOISE_FLOOR`) reads 0, and the rest is renormalised to sum to 1."""
    conv = _fft_convolve

    probs = np.ones(1)
    for sign, count, faces in dice.plain_terms:
        term = _power(np.full(faces, 1.0 / faces), count, conv)
        probs = conv(probs, term[::-1] if sign < 0 else term)
    return probs / probs.sum()


#: the most totals (``max - min + 1``) :meth:`Dice.sample_indices` indexes by their distance
#: from the lowest (a table of every total in between, 512 KiB at most; beyond, the distinct
#: totals drawn)
_SPAN_LIMIT = 1 << 16


@lru_cache(maxsize=64)
def _equal_outcomes(d: Dice, limit: int) -> np.ndarray | None:
    if d.pools:
        return None
    size = 1
    for _, count, faces in d.plain_terms:
        size *= faces ** count
        if size > limit:
            return None
    # each term's table, as the sampler draws it (kept per term), then every sum of them
    grid = np.sort(sum_grid([[d.constant]] + [_sum_table(count, faces, sign)
                                              for sign, count, faces in d.plain_terms]))
    grid.flags.writeable = False
    return grid


@lru_cache(maxsize=64)
def _span(d: Dice) -> np.ndarray:
    span = np.arange(d.min, d.max + 1, dtype=np.int64)
    span.flags.writeable = False
    return span
