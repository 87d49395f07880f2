"""Dice expressions: exact distributions and vectorised samplers.

An expression is a sum of signed terms, each ``NdM`` (``dM`` means ``1dM``) or an integer:
``1d100``, ``3d6``, ``2d6+6``, ``1d8+1d6``, ``-1d4``, ``0``.

A dice term may carry modifiers, written the way designers (and Roll20, AnyDice) write them,
in this order, each at most once (case does not matter):

- ``rN`` rerolls faces 1 to N once (a die showing N or less is rolled again and the second
  roll stands): ``1d20r1``, ``2d6r2`` (Great Weapon Fighting); ``rrN`` rerolls them until
  the die shows more than N (``2d6rr2``: each die 3..6). N is 1 to M - 1 (``1d20r20`` is
  refused; Roll20's "reroll 20s only" is not this notation).
- ``!`` explode: a die showing its highest face is rolled again and added, at most
  :data:`~balance.budgets.MAX_EXPLOSIONS` (20) times; the last extra roll stands even on its
  highest face, so the distributions are exact for "explodes at most 20 times" and differ
  from the unbounded rule by :attr:`Dice.truncated_mass` (1d6!: 4.6e-17; 1d2!: 4.8e-7). A
  reroll applies to every roll of the die, extra rolls too.
- ``khK`` / ``klK`` keep the K highest / lowest dice (``k`` is ``kh``; K may be left out,
  meaning 1, only in the last term: ``2d20kh`` is ``2d20kh1``, but ``4d6kh-1`` is refused,
  since it could be a count of -1 as well as ``4d6kh1-1``);
  ``dhK`` / ``dlK`` drop the K highest / lowest: ``4d6kh3`` = ``4d6dl1``, ``2d20kh1``
  (advantage), ``2d20kl1`` (disadvantage). An exploded die is kept or dropped whole.

>>> import balance as bl
>>> float(bl.dice.distribution("2d6")[7])
0.16666666666666666
>>> bl.dice.parse("2d6+6").mean
13.0
>>> round(float(bl.dice.distribution("4d6kh3")[18]), 6)  # 21 of 1,296 rolls
0.016204
>>> round(bl.dice.parse("2d20kh1").mean, 4)
13.825

Budgets (:mod:`balance.budgets`): a term rolls at most :data:`MAX_DICE` dice (1,000, also in
all terms together) of at most :data:`MAX_FACES` faces (10,000); a constant is at most
``MAX_CONSTANT`` (10**9) in size. An exact distribution is refused when it has more than
``MAX_SUPPORT`` (10**6) possible totals (``1000d10000`` has 9,999,001): sample it instead.
Within that budget small expressions are convolved die by die in exact integers; larger ones
(over :data:`_DIRECT_WORK` multiply-adds) by FFT convolution of the per-die distributions,
raised to each term's count by repeated squaring: absolute error below :data:`NOISE_FLOOR`
(1e-15) per total, so an FFT result below it is rounding noise and reads 0 (totals that
rare read 0; the rest is renormalised). Modified terms are exact in floating point: per-die
distributions (reroll, explosion) taken from the die's lowest possible value to its highest
(``1000d10000rr9999`` is one value, the constant 10**7, at once) and raised to the count by
repeated squaring (FFT above :data:`_DIRECT_WORK`, with the same floor), keep/drop by a
pass over the die's values from the highest down (binomial counts of dice on each value, at
most :data:`_DIRECT_WORK` steps: ``100d100kh50`` is refused exactly, sample it; ``kh1`` and
``kl1`` read the maximum's and minimum's distribution directly, so ``1000d1000kh1`` is instant).
"""
from __future__ import annotations

import numpy as np

from ..budgets import MAX_DICE, MAX_EXPLOSIONS, MAX_FACES
from ..rng import RNGLike
# in the order the reference page shows them (members in source order): the modified term, the
# expression, its distribution, the notation, then the helpers
from .pools import Pool
from .expressions import Dice
from .distributions import Distribution
from .notation import parse
from .distributions import outcome_table
from .convolution import NOISE_FLOOR, convolve
from .sampling import _ENUMERATE_LIMIT, draw_dtype, face_counts

__all__ = ["Dice", "Pool", "Distribution", "parse", "distribution", "sample", "face_counts",
           "draw_dtype", "equal_outcomes", "sample_indices", "convolve", "outcome_table",
           "MAX_DICE", "MAX_FACES", "MAX_EXPLOSIONS", "NOISE_FLOOR"]


def equal_outcomes(expr: str | int | Dice, limit: int = _ENUMERATE_LIMIT) -> np.ndarray | None:
    """Every equally likely roll of a plain dice expression, sorted: a uniform index into this
    table is one roll (``6+1d8``: the 8 totals 7..14; ``2d6``: 36 totals, 7 six times). None
    when the expression has a modified term (reroll, explosion, keep/drop) or more than
    ``limit`` outcomes.

    Parameters
    ----------
    expr : str, int or Dice
        The expression.
    limit : int, default 65,536
        The most outcomes a table holds (1 to ``budgets.MAX_GRID_CELLS``, 2 x 10**7).

    Returns
    -------
    numpy.ndarray or None
        int64 totals, read-only (kept per expression: at most 64 tables).

    Examples
    --------
    >>> import balance as bl
    >>> bl.dice.equal_outcomes("6+1d8").tolist()
    [7, 8, 9, 10, 11, 12, 13, 14]
    >>> bl.dice.equal_outcomes("4d6kh3") is None
    True
    """
    return parse(expr).equal_outcomes(limit)


def sample_indices(expr: str | int | Dice, size: int,
                   seed: RNGLike = None) -> tuple[np.ndarray, np.ndarray]:
    """``size`` rolls of a dice expression as indices into a table of totals: ``table[index]``
    are the rolls, drawn from ``seed`` (int, SeedSequence, Generator or None).

    For a compiled loop that reads the totals itself: with a table of :func:`equal_outcomes`,
    one draw each in the integer type numpy draws fastest (:func:`draw_dtype`: 16-bit up to
    2,048 outcomes) and no array of totals; otherwise (a modified term, or more than 65,536
    outcomes) the totals of :meth:`Dice.sample`, as their distance from the lowest total into
    a table of every total in between (for a span over 2^16 totals, into the distinct ones
    drawn). The index is of that narrowest type either way, the table int64 and read-only.

    Parameters
    ----------
    expr : str, int or Dice
        The expression.
    size : int
        Number of rolls (0 to ``budgets.MAX_SAMPLE``, 10**8).
    seed : int, SeedSequence, Generator or None
        Where the draws come from.

    Returns
    -------
    tuple of numpy.ndarray
        ``(index, table)``.

    Examples
    --------
    >>> import numpy as np
    >>> import balance as bl
    >>> index, table = bl.dice.sample_indices("6+1d8", 5, np.random.default_rng(1))
    >>> index.dtype.name, bool(np.isin(table[index], range(7, 15)).all())
    ('int16', True)
    >>> index, table = bl.dice.sample_indices("4d6kh3", 5, 1)   # no table: 3..18 by distance
    >>> index.dtype.name, table.tolist() == list(range(3, 19))
    ('int16', True)
    """
    return parse(expr).sample_indices(size, seed)


def distribution(expr: str | int | Dice) -> Distribution:
    """Exact distribution of a dice expression: a :class:`Distribution`, each total and its
    probability (``.to_series()``: the pandas Series value -> probability).

    Refused (one-line ValueError) above ``budgets.MAX_SUPPORT`` (10**6) possible totals;
    large expressions within it are computed by FFT convolution (see the module docstring).

    >>> d = distribution("2d6+6")
    >>> d[13], d.totals.tolist()[:3], round(d.at_most(10), 6)
    (0.16666666666666666, [8, 9, 10], 0.166667)
    """
    return parse(expr).distribution()


def sample(expr: str | int | Dice, size: int | tuple[int, ...], seed: RNGLike = None) -> np.ndarray:
    """Vectorised sampler: ``size`` totals of ``expr`` drawn with ``seed``."""
    from ..errors import check_integer

    if isinstance(size, tuple):
        size = tuple(check_integer("size", s, min=0) for s in size)
    else:
        size = check_integer("size", size, min=0)
    return parse(expr).sample(size, seed)
