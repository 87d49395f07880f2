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

import re
from functools import lru_cache

import numpy as np

from ..budgets import MAX_CONSTANT, MAX_DICE, MAX_EXPLOSIONS, MAX_FACES
from ..rng import RNGLike
from .convolution import NOISE_FLOOR, convolve
from .distributions import Distribution, outcome_table
from .expressions import Dice
from .pools import Pool
# every memo of the package, here so that balance.bench.exact (which clears the cached helpers
# it finds in balance.dice) still times a cold answer
from .expressions import _distribution  # noqa: F401
from .pools import _die_probs, _pool_probs  # noqa: F401
from .sampling import _sum_table  # noqa: F401

__all__ = ["Dice", "Pool", "Distribution", "parse", "distribution", "sample", "convolve",
           "outcome_table", "MAX_DICE", "MAX_FACES", "MAX_EXPLOSIONS", "NOISE_FLOOR"]

_TERM = re.compile(r"^(?:(\d*)[dD](\d+)|(\d+))$")
_POOL = re.compile(r"^(\d*)[dD](\d+)(.+)$")
_MODIFIER = re.compile(r"(rr|r)(\d+)|(!)|(kh|kl|dh|dl|k)(\d*)")
_MODIFIERS_HELP = ("rN reroll once, rrN reroll until above N, ! explode, khK klK keep, "
                   "dhK dlK drop")


def _shown(expr: object) -> str:
    """``repr(expr)``, cut to 40 characters for a one-line message."""
    text = repr(expr)
    return text if len(text) <= 40 else text[:37] + "..."


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
    pools: list[Pool] = []
    constant = 0
    for i, token in enumerate(tokens):
        sign = -1 if token[0] == "-" else 1
        body = token.lstrip("+-")
        match = _TERM.match(body)
        if match is None and (len(token) - len(body)) <= 1 and _POOL.match(body):
            pool = _parse_pool(expr, sign, body, tokens[i + 1] if i + 1 < len(tokens) else "")
            if pool.reroll or pool.explode or pool.keep:
                pools.append(pool)
            else:  # every die kept and nothing else: a plain term
                terms.append((sign, pool.count, pool.faces))
            continue
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
    rolled = sum(c for _, c, _ in terms) + sum(pool.count for pool in pools)
    if rolled > MAX_DICE:
        raise ValueError(f"bad dice expression {_shown(expr)}: rolls "
                         f"{rolled:,} dice; at most {MAX_DICE} in all")
    if abs(constant) > MAX_CONSTANT:
        raise ValueError(f"bad dice expression {_shown(expr)}: constant {constant} must be "
                         f"between -{MAX_CONSTANT} and {MAX_CONSTANT}")
    return Dice(tuple(terms), constant, tuple(pools))


def _parse_pool(expr: str, sign: int, body: str, after: str = "") -> Pool:
    """A term with modifiers (``4d6kh3``, ``1d6!``, ``1d20r1``), one-line errors naming the
    bad part. ``after`` is the next term ("" for the last one): a keep/drop
    without its count is read as 1 only at the end (``2d20kh`` = ``2d20kh1``); before a sign
    it is refused (``4d6kh-1`` could be a count of -1 or ``4d6kh1-1``)."""
    match = _POOL.match(body)
    assert match is not None
    count_text, faces_text, rest = match.groups()
    where = f"bad dice expression {_shown(expr)}" + (
        f": {_shown(body)}" if body != str(expr).replace(" ", "") else "")
    count = int(count_text) if count_text and len(count_text) <= 10 else (
        1 if not count_text else MAX_DICE + 1)
    faces = int(faces_text) if len(faces_text) <= 10 else MAX_FACES + 1
    if not 1 <= count <= MAX_DICE:
        raise ValueError(f"{where} must roll 1 to {MAX_DICE} dice")
    if not 1 <= faces <= MAX_FACES:
        raise ValueError(f"{where} must have 1 to {MAX_FACES} faces")
    found: dict[str, tuple[str, int]] = {}
    pos, rest = 0, rest.lower()
    order = ("reroll", "explode", "keep")
    while pos < len(rest):
        mod = _MODIFIER.match(rest, pos)
        if mod is None:
            raise ValueError(f"{where}: {_shown(rest[pos:])} is not a modifier "
                             f"({_MODIFIERS_HELP})")
        kind = "reroll" if mod.group(1) else "explode" if mod.group(3) else "keep"
        if kind in found or any(k in found for k in order[order.index(kind) + 1:]):
            raise ValueError(f"{where}: {_shown(mod.group(0))} out of place; modifiers come "
                             "in the order reroll (r, rr), explode (!), keep/drop (k, d), "
                             "each once, e.g. 4d6r1!kh3")
        digits = mod.group(2) or mod.group(5) or ""
        if mod.group(4) and not digits and after and mod.end() == len(rest):
            op = mod.group(4)
            raise ValueError(f"{where}: {op!r} needs its count before {after[0]!r}, e.g. "
                             f"{_shown(body + '1' + after)}; only the last term may leave it "
                             f"out ({op} = {op}1)")
        if len(digits) > 10:
            digits = str(MAX_DICE * MAX_FACES + 1)
        found[kind] = (mod.group(1) or mod.group(3) or mod.group(4), int(digits or 1))
        pos = mod.end()
    reroll, until = 0, False
    if "reroll" in found:
        op, reroll = found["reroll"]
        until = op == "rr"
        if not 1 <= reroll < faces:
            raise ValueError(f"{where}: {op}{reroll} must reroll faces 1 to N with N below "
                             f"the {faces} faces (1 to {faces - 1})" if faces > 1 else
                             f"{where}: a d1 cannot be rerolled")
    explode = "explode" in found
    if explode and faces < 2:
        raise ValueError(f"{where}: a d1 cannot explode (it would always roll again)")
    keep, n = found.get("keep", ("", 0))
    keep = "kh" if keep == "k" else keep
    if keep in ("kh", "kl") and not 1 <= n <= count:
        raise ValueError(f"{where}: {keep}{n} must keep 1 to {count} of the {count} dice")
    if keep in ("dh", "dl") and not 0 <= n < count:
        raise ValueError(f"{where}: {keep}{n} must drop 0 to {count - 1} of the {count} dice")
    if keep and (n == count if keep in ("kh", "kl") else n == 0):
        keep, n = "", 0  # every die kept: a plain sum
    return Pool(sign, count, faces, reroll, until, explode, keep, n)


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
