"""Dice expressions: exact distributions and vectorised samplers.

An expression is a sum of signed terms, each ``NdM`` (``dM`` means ``1dM``) or an integer:
``1d100``, ``3d6``, ``2d6+6``, ``1d8+1d6``, ``-1d4``, ``0``.

>>> import balance as bl
>>> float(bl.dice.distribution("2d6")[7])
0.16666666666666666
>>> bl.dice.parse("2d6+6").mean
13.0

Budgets (:mod:`balance.budgets`): a term rolls at most :data:`MAX_DICE` dice (1,000, also in
all terms together) of at most :data:`MAX_FACES` faces (10,000); a constant is at most
``MAX_CONSTANT`` (10**9) in size. An exact distribution is refused when it has more than
``MAX_SUPPORT`` (10**6) possible totals (``1000d10000`` has 9,999,001): sample it instead.
Within that budget small expressions are convolved die by die in exact integers; larger ones
(over :data:`_DIRECT_WORK` multiply-adds) by FFT convolution of the per-die distributions,
raised to each term's count by repeated squaring: absolute error below 1e-15 per total, so
totals rarer than that may read 0.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from .budgets import MAX_CONSTANT, MAX_DICE, MAX_FACES, check_sample, check_support
from .rng import RNGLike, as_generator

__all__ = ["Dice", "parse", "distribution", "sample", "convolve", "MAX_DICE", "MAX_FACES"]

_TERM = re.compile(r"^(?:(\d*)[dD](\d+)|(\d+))$")
_ENUMERATE_LIMIT = 1 << 16  # sample N dice of M faces with one draw when M**N is this small
#: above this many multiply-adds, exact distributions use FFT convolution (about 0.1 s)
_DIRECT_WORK = 2 * 10**8
#: random draws held at once when summing many dice (memory of sample(): 8 MB)
_SAMPLE_CHUNK = 1 << 20


@dataclass(frozen=True)
class Dice:
    """A parsed dice expression: signed dice terms plus a constant."""

    terms: tuple[tuple[int, int, int], ...]  # (sign, count, faces)
    constant: int = 0

    def __str__(self) -> str:
        parts = []
        for sign, count, faces in self.terms:
            parts.append(("-" if sign < 0 else "+") + f"{count}d{faces}")
        if self.constant or not parts:
            parts.append(f"{self.constant:+d}")
        text = "".join(parts)
        return text[1:] if text.startswith("+") else text

    @property
    def min(self) -> int:
        return self.constant + sum(c * (1 if s > 0 else -f) for s, c, f in self.terms)

    @property
    def max(self) -> int:
        return self.constant + sum(c * (f if s > 0 else -1) for s, c, f in self.terms)

    @property
    def mean(self) -> float:
        return self.constant + sum(s * c * (f + 1) / 2 for s, c, f in self.terms)

    def distribution(self) -> pd.Series:
        """Exact distribution: Series value -> probability (sums to 1)."""
        return _distribution(self).copy()

    def sample(self, size: int | tuple[int, ...], rng: RNGLike = None) -> np.ndarray:
        """Draw ``size`` totals (int64) with ``rng`` (int, SeedSequence, Generator or None);
        at most ``budgets.MAX_SAMPLE`` (10**8) values per call."""
        gen = as_generator(rng, "rng")
        check_sample(size)
        out = np.full(size, self.constant, dtype=np.int64)
        for sign, count, faces in self.terms:
            if (faces == 1 or count <= 16) and faces ** count <= _ENUMERATE_LIMIT:
                table = _sum_table(count, faces)
                draw = table[gen.integers(0, table.size, size=size)]
            else:
                draw = _sum_of_draws(gen, count, faces, out.size).reshape(out.shape)
            out += sign * draw
        return out

    @property
    def support(self) -> int:
        """Number of possible totals, ``max - min + 1``."""
        return self.max - self.min + 1

    def _fft_distribution(self) -> pd.Series:
        """The distribution by FFT convolution, whatever its size (the fallback; tested)."""
        check_support(self, self.support)
        return _series(self, _fft_probs(self))


def _shown(expr: object) -> str:
    """``repr(expr)``, cut to 40 characters for a one-line message."""
    text = repr(expr)
    return text if len(text) <= 40 else text[:37] + "..."


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
def _sum_table(count: int, faces: int) -> np.ndarray:
    """Totals of every ordered outcome of ``count`` dice of ``faces`` faces (equiprobable)."""
    grid = np.zeros(1, dtype=np.int64)
    for _ in range(count):
        grid = (grid[:, None] + np.arange(1, faces + 1)).ravel()
    return grid


@lru_cache(maxsize=512)
def parse(expr: str | int | Dice) -> Dice:
    """Parse a dice expression; a malformed one raises ``ValueError`` naming the bad part."""
    if isinstance(expr, Dice):
        return expr
    if isinstance(expr, (int, np.integer)) and not isinstance(expr, bool):
        return Dice((), int(expr))
    if not isinstance(expr, str):
        raise ValueError(f"dice expression must be text such as '2d6+6', got {_shown(expr)}")
    text = expr.replace(" ", "")
    if not text:
        raise ValueError("dice expression is empty; expected e.g. '1d100', '2d6+6' or '0'")
    tokens = re.findall(r"[+-]?[^+-]*", text)
    tokens = [t for t in tokens if t]
    terms: list[tuple[int, int, int]] = []
    constant = 0
    for token in tokens:
        sign = -1 if token[0] == "-" else 1
        body = token.lstrip("+-")
        match = _TERM.match(body)
        if match is None or (len(token) - len(body)) > 1:
            raise ValueError(f"bad dice expression {_shown(expr)}: {_shown(token)} is not NdM "
                             "(e.g. 2d6) or an integer")
        count, faces, number = match.groups()
        if number is not None:
            if len(number) > 10 or int(number) > MAX_CONSTANT:
                raise ValueError(f"bad dice expression {_shown(expr)}: constant "
                                 f"{number if len(number) <= 30 else number[:27] + '...'} must be "
                                 f"between -{MAX_CONSTANT} and {MAX_CONSTANT}")
            constant += sign * int(number)
            continue
        count = int(count) if count and len(count) <= 10 else (1 if not count else MAX_DICE + 1)
        faces = int(faces) if len(faces) <= 10 else MAX_FACES + 1
        if not 1 <= count <= MAX_DICE:
            raise ValueError(f"bad dice expression {_shown(expr)}: {_shown(body)} must roll 1 to "
                             f"{MAX_DICE} dice")
        if not 1 <= faces <= MAX_FACES:
            raise ValueError(f"bad dice expression {_shown(expr)}: {_shown(body)} must have 1 to "
                             f"{MAX_FACES} faces")
        terms.append((sign, count, faces))
    if sum(c for _, c, _ in terms) > MAX_DICE:
        raise ValueError(f"bad dice expression {_shown(expr)}: rolls "
                         f"{sum(c for _, c, _ in terms):,} dice; at most {MAX_DICE} in all")
    if abs(constant) > MAX_CONSTANT:
        raise ValueError(f"bad dice expression {_shown(expr)}: constant {constant} must be "
                         f"between -{MAX_CONSTANT} and {MAX_CONSTANT}")
    return Dice(tuple(terms), constant)


def _direct_work(dice: Dice) -> int:
    """Multiply-adds of convolving ``dice`` die by die (then term by term)."""
    work, length = 0, 1
    for _, count, faces in dice.terms:
        work += faces * (count * (count - 1) * (faces - 1) // 2 + count)
        term = count * (faces - 1) + 1
        work += length * term
        length += term - 1
    return work


@lru_cache(maxsize=512)
def _distribution(dice: Dice) -> pd.Series:
    check_support(dice, dice.support)
    if _direct_work(dice) > _DIRECT_WORK:
        return _series(dice, _fft_probs(dice))
    # integer counts while they fit in int64 (exact), floats beyond
    exact = sum(c * np.log2(f) for _, c, f in dice.terms) < 62
    dtype = np.int64 if exact else np.float64
    probs = np.ones(1, dtype=dtype)
    for sign, count, faces in dice.terms:
        die = np.ones(faces, dtype=dtype) if exact else np.full(faces, 1.0 / faces)
        term = np.ones(1, dtype=dtype)
        for _ in range(count):
            term = np.convolve(term, die)
        probs = np.convolve(probs, term[::-1] if sign < 0 else term)
    series = _series(dice, probs / probs.sum())
    return series[series > 0]


def _series(dice: Dice, probs: np.ndarray) -> pd.Series:
    values = np.arange(dice.min, dice.min + probs.size)
    return pd.Series(probs, index=pd.Index(values, name="value"), name="probability")


def _fft_convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.convolve(a, b)`` of non-negative weights by FFT; rounding noise (below 1e-15)
    clipped at 0."""
    from scipy.signal import fftconvolve

    return np.clip(fftconvolve(a, b), 0.0, None)


def convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.convolve(a, b)`` of non-negative weights (the distribution of a sum): directly up
    to :data:`_DIRECT_WORK` multiply-adds, by FFT above (absolute error below 1e-15)."""
    return np.convolve(a, b) if a.size * b.size <= _DIRECT_WORK else _fft_convolve(a, b)


def _fft_probs(dice: Dice) -> np.ndarray:
    """Probabilities of ``dice.min .. dice.max`` by FFT convolution: each term's die raised
    to its count by repeated squaring, then the terms convolved; rounding noise (below 1e-15)
    is clipped at 0."""
    conv = _fft_convolve

    probs = np.ones(1)
    for sign, count, faces in dice.terms:
        power, base, term = count, np.full(faces, 1.0 / faces), np.ones(1)
        while power:
            if power & 1:
                term = conv(term, base)
            power >>= 1
            if power:
                base = conv(base, base)
        probs = conv(probs, term[::-1] if sign < 0 else term)
    return probs / probs.sum()


def distribution(expr: str | int | Dice) -> pd.Series:
    """Exact distribution of a dice expression: Series value -> probability.

    Refused (one-line ValueError) above ``budgets.MAX_SUPPORT`` (10**6) possible totals;
    large expressions within it are computed by FFT convolution (see the module docstring).
    """
    return parse(expr).distribution()


def sample(expr: str | int | Dice, size: int | tuple[int, ...], rng: RNGLike = None) -> np.ndarray:
    """Vectorised sampler: ``size`` totals of ``expr`` drawn with ``rng``."""
    from .errors import check_integer

    if isinstance(size, tuple):
        size = tuple(check_integer("size", s, min=0) for s in size)
    else:
        size = check_integer("size", size, min=0)
    return parse(expr).sample(size, rng)
