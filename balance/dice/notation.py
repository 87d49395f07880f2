"""The dice notation: ``2d6+6``, ``4d6kh3``, ``1d20r1``, ``1d6!`` read into a :class:`Dice`.

What an expression may hold, and in what order its modifiers come, is written in
:mod:`balance.dice`; :func:`parse` reads it, and a malformed expression raises a one-line
``ValueError`` naming the bad part and what is accepted.
"""
from __future__ import annotations

import re
from functools import lru_cache, partial

import numpy as np

from ..budgets import MAX_CONSTANT, MAX_DICE, MAX_FACES
from ..errors import shown
from .expressions import Dice
from .pools import Pool

__all__ = ["parse"]

_TERM = re.compile(r"^(?:(\d*)[dD](\d+)|(\d+))$")
_POOL = re.compile(r"^(\d*)[dD](\d+)(.+)$")
_MODIFIER = re.compile(r"(rr|r)(\d+)|(!)|(kh|kl|dh|dl|k)(\d*)")
_MODIFIERS_HELP = ("rN reroll once, rrN reroll until above N, ! explode, khK klK keep, "
                   "dhK dlK drop")
#: an expression in a message, cut to 40 characters
_shown = partial(shown, width=40)


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
    parsed = Dice(tuple(terms), constant, tuple(pools))
    if parsed.dice_count > MAX_DICE:
        raise ValueError(f"bad dice expression {_shown(expr)}: rolls "
                         f"{parsed.dice_count:,} dice; at most {MAX_DICE} in all")
    if abs(constant) > MAX_CONSTANT:
        raise ValueError(f"bad dice expression {_shown(expr)}: constant {constant} must be "
                         f"between -{MAX_CONSTANT} and {MAX_CONSTANT}")
    return parsed


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
