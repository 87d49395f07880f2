"""Dice expressions: exact distributions and vectorised samplers.

An expression is a sum of signed terms, each ``NdM`` (``dM`` means ``1dM``) or an integer:
``1d100``, ``3d6``, ``2d6+6``, ``1d8+1d6``, ``-1d4``, ``0``.

>>> import balance as bl
>>> float(bl.dice.distribution("2d6")[7])
0.16666666666666666
>>> bl.dice.parse("2d6+6").mean
13.0
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from .rng import RNGLike, as_generator

__all__ = ["Dice", "parse", "distribution", "sample", "MAX_DICE", "MAX_FACES"]

MAX_DICE = 1000
MAX_FACES = 10_000
_TERM = re.compile(r"^(?:(\d*)[dD](\d+)|(\d+))$")
_ENUMERATE_LIMIT = 1 << 16  # sample N dice of M faces with one draw when M**N is this small


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
        """Draw ``size`` totals (int64) with ``rng`` (int, SeedSequence, Generator or None)."""
        gen = as_generator(rng, "rng")
        out = np.full(size, self.constant, dtype=np.int64)
        for sign, count, faces in self.terms:
            if faces ** count <= _ENUMERATE_LIMIT:
                table = _sum_table(count, faces)
                draw = table[gen.integers(0, table.size, size=size)]
            else:
                draw = gen.integers(1, faces + 1, size=(*np.atleast_1d(size), count)).sum(-1)
                draw = draw.reshape(size)
            out += sign * draw
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
        raise ValueError(f"dice expression must be text such as '2d6+6', got {expr!r}")
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
            raise ValueError(f"bad dice expression {expr!r}: '{token}' is not NdM "
                             "(e.g. 2d6) or an integer")
        count, faces, number = match.groups()
        if number is not None:
            constant += sign * int(number)
            continue
        count = int(count) if count else 1
        faces = int(faces)
        if not 1 <= count <= MAX_DICE:
            raise ValueError(f"bad dice expression {expr!r}: '{body}' must roll 1 to "
                             f"{MAX_DICE} dice")
        if not 1 <= faces <= MAX_FACES:
            raise ValueError(f"bad dice expression {expr!r}: '{body}' must have 1 to "
                             f"{MAX_FACES} faces")
        terms.append((sign, count, faces))
    return Dice(tuple(terms), constant)


@lru_cache(maxsize=512)
def _distribution(dice: Dice) -> pd.Series:
    # integer counts while they fit in int64 (exact), floats beyond
    exact = sum(c * np.log2(f) for _, c, f in dice.terms) < 62
    dtype = np.int64 if exact else np.float64
    probs = np.ones(1, dtype=dtype)
    low = dice.constant
    for sign, count, faces in dice.terms:
        die = np.ones(faces, dtype=dtype) if exact else np.full(faces, 1.0 / faces)
        term = np.ones(1, dtype=dtype)
        for _ in range(count):
            term = np.convolve(term, die)
        if sign < 0:
            term = term[::-1]
            low -= count * faces
        else:
            low += count
        probs = np.convolve(probs, term)
    values = np.arange(low, low + probs.size)
    series = pd.Series(probs / probs.sum(), index=pd.Index(values, name="value"),
                       name="probability")
    return series[series > 0]


def distribution(expr: str | int | Dice) -> pd.Series:
    """Exact distribution of a dice expression: Series value -> probability."""
    return parse(expr).distribution()


def sample(expr: str | int | Dice, size: int | tuple[int, ...], rng: RNGLike = None) -> np.ndarray:
    """Vectorised sampler: ``size`` totals of ``expr`` drawn with ``rng``."""
    from .errors import check_integer

    if isinstance(size, tuple):
        size = tuple(check_integer("size", s, min=0) for s in size)
    else:
        size = check_integer("size", size, min=0)
    return parse(expr).sample(size, rng)
