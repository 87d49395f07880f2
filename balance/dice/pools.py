"""A modified term, a pool of dice: ``count`` dice of ``faces`` faces, rerolled, exploded, then
kept or dropped (``4d6kh3``, ``1d6!``, ``2d6rr2``), and its exact distribution.

One die's distribution (reroll, then at most ``MAX_EXPLOSIONS`` extra rolls) is taken from its
lowest to its highest possible value and raised to the count by repeated squaring; keep/drop is
a pass over the die's values from the highest down, with binomial counts of the dice on each
value (``kh1`` and ``kl1`` from the maximum's and minimum's distribution directly). The notation
is read by :func:`balance.dice.parse`; the pool's sampler is in :mod:`balance.dice.sampling`.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..budgets import MAX_EXPLOSIONS, check_support
from .convolution import _DIRECT_WORK, _power

__all__ = ["Pool"]


@dataclass(frozen=True)
class Pool:
    """One dice term with modifiers: ``count`` dice of ``faces`` faces, each rerolled
    (``reroll`` > 0: faces up to it, once or ``until`` above), exploded, then kept or dropped
    (``keep`` one of ``kh kl dh dl`` with ``n`` dice, or ``""``)."""

    sign: int
    count: int
    faces: int
    reroll: int = 0
    until: bool = False
    explode: bool = False
    keep: str = ""
    n: int = 0

    def __str__(self) -> str:
        text = f"{self.count}d{self.faces}"
        if self.reroll:
            text += f"{'rr' if self.until else 'r'}{self.reroll}"
        if self.explode:
            text += "!"
        return text + (f"{self.keep}{self.n}" if self.keep else "")

    @property
    def kept(self) -> int:
        """Dice that count in the total."""
        if self.keep in ("kh", "kl"):
            return self.n
        return self.count - self.n if self.keep else self.count

    @property
    def highest(self) -> bool:
        """Are the highest dice kept (``kh``, ``dl``)?"""
        return self.keep in ("kh", "dl")

    def die_range(self) -> tuple[int, int]:
        """(lowest, highest) value of one die after reroll and explosion."""
        low = self.reroll + 1 if self.until else 1
        return low, self.faces * (MAX_EXPLOSIONS + 1) if self.explode else self.faces

    def bounds(self) -> tuple[int, int]:
        """(min, max) of the term, sign included."""
        low, high = self.die_range()
        low, high = low * self.kept, high * self.kept
        return (low, high) if self.sign > 0 else (-high, -low)


def _roll_probs(pool: Pool) -> np.ndarray:
    """Probabilities of faces 1..M of one roll of a pool's die, reroll applied."""
    m = pool.faces
    probs = np.full(m, 1.0 / m)
    if pool.until:
        probs[:pool.reroll] = 0.0
        probs[pool.reroll:] = 1.0 / (m - pool.reroll)
    elif pool.reroll:
        probs = probs * (pool.reroll / m)
        probs[pool.reroll:] += 1.0 / m
    return probs


@lru_cache(maxsize=256)
def _die_probs(pool: Pool) -> np.ndarray:
    """Probabilities of one die's values 1..V (index 0 is 1): reroll, then explosion (at most
    MAX_EXPLOSIONS extra rolls; the last one stands)."""
    roll = _roll_probs(pool)
    if not pool.explode:
        return roll
    m = pool.faces
    probs = np.zeros(m * (MAX_EXPLOSIONS + 1))
    top = roll[-1]
    for k in range(MAX_EXPLOSIONS + 1):
        chain = top ** k
        if k == MAX_EXPLOSIONS:
            probs[k * m:(k + 1) * m] += chain * roll
        else:
            probs[k * m:(k + 1) * m - 1] += chain * roll[:-1]
    return probs


def _keep_work(pool: Pool, values: int) -> int:
    """Steps of the keep/drop pass: values x kept x (kept x totals + dice)."""
    k = pool.kept
    return values * k * (k * (k * values + 1) + pool.count + 1)


@lru_cache(maxsize=256)
def _pool_probs(pool: Pool) -> tuple[int, np.ndarray]:
    """(lowest total, probabilities of lowest..highest) of a pool, sign not applied.

    The die is taken from its lowest to its highest possible value (``2d6rr2``: 3..6), so
    the arrays convolved are at most the range of the pool's totals long (a die rerolled
    up to its highest face is one value: ``1000d10000rr9999`` is the constant 10**7)."""
    die = _die_probs(pool)
    n, k = pool.count, pool.kept
    held = np.flatnonzero(die > 0)
    offset = int(held[0])  # values from offset + 1: the die below counts them from 1
    die = die[offset:held[-1] + 1]
    check_support(pool, k * (die.size - 1) + 1)  # the length convolved
    shift = k * offset
    if not pool.keep or k == n:
        probs = _power(die, n)  # totals from n (all lowest)
        return n + shift, np.clip(probs, 0.0, None)
    if not pool.highest:  # the lowest k of X are minus the highest k of -X
        low, probs = _keep_highest(die[::-1], n, k, pool)
        top = die.size + 1
        return k * top - (low + probs.size - 1) + shift, probs[::-1]
    low, probs = _keep_highest(die, n, k, pool)
    return low + shift, probs


def _keep_highest(die: np.ndarray, n: int, k: int, pool: Pool) -> tuple[int, np.ndarray]:
    """Distribution of the sum of the ``k`` highest of ``n`` dice of probabilities ``die``
    over values 1..V: (lowest total, probabilities). ``k == 1`` from the maximum's CDF;
    otherwise values from the highest down, the count of dice on each value binomial among
    those not yet placed."""
    size = die.size
    cdf = np.minimum(np.cumsum(die), 1.0)
    if k == 1:
        probs = np.diff(cdf ** n, prepend=0.0)
        return 1, np.clip(probs, 0.0, None)
    values = np.flatnonzero(die > 0) + 1
    work = _keep_work(pool, values.size)
    if work > _DIRECT_WORK:
        raise ValueError(f"dice {pool}: keeping {k} of {n} dice exactly takes {work:.1e} "
                         f"steps, over the dice budget ({_DIRECT_WORK:.0e}); sample it "
                         "instead (dice.sample, or --trials on the command line)")
    logfact = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, n + 1)))])
    remaining = n - np.arange(k)  # dice not yet placed, per number placed j = 0..k-1
    width = k * size + 1
    state = np.zeros((k, width))  # [j placed, kept total]
    state[0, 0] = 1.0
    done = np.zeros(width)
    for v in values[::-1]:
        r = min(1.0, die[v - 1] / cdf[v - 1])
        new = np.zeros_like(state)
        weights = _binomial(logfact, remaining, r, n)  # [j, c]: c of the n - j dice on v
        for c in range(k):
            rows = k - c  # j from 0 to k-1-c stays under k after c more dice
            shift = c * v
            if shift < width:
                new[c:, shift:] += weights[:rows, c, None] * state[:rows, :width - shift]
        # k - j or more dice on v: the k highest are complete (summed, not 1 - the rest,
        # so rare totals keep their tiny probabilities)
        tail = np.where(np.arange(n + 1)[None, :] >= (k - np.arange(k))[:, None],
                        weights, 0.0).sum(axis=1)
        for j in range(k):
            shift = (k - j) * v
            if tail[j] > 0 and shift < width:
                done[shift:] += tail[j] * state[j, :width - shift]
        state = new
    return k, done[k:k * size + 1]


def _binomial(logfact: np.ndarray, n: np.ndarray, r: float, most: int) -> np.ndarray:
    """``[i, c]`` = P(Binomial(n[i], r) = c) for c = 0..most (0 where c > n[i])."""
    c = np.arange(most + 1)[None, :]
    m = n[:, None]
    ok = c <= m
    if r >= 1.0:
        return (c == m).astype(float)
    if r <= 0.0:
        return ((c == 0) & ok).astype(float)
    safe = np.where(ok, m - c, 0)
    logs = (logfact[m] - logfact[np.minimum(c, m)] - logfact[safe] + c * np.log(r)
            + safe * np.log1p(-r))
    return np.where(ok, np.exp(np.where(ok, logs, 0.0)), 0.0)
