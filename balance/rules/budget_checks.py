"""The work budgets of :mod:`balance.budgets`, applied to merged rules data before anything
is computed from them (run by :func:`balance.rules.validate`): table sizes, the dice
expressions written in the data, and the percentile tier lookup."""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from ..budgets import MAX_GRID_CELLS, check_grid, check_rows, check_support
from ..dice import parse
from ..dice.notation import _shown
from ..errors import RulesError
from .tables import row_key

__all__ = ["check_rules", "check_rules_grids"]


_DICE_CHARS = frozenset(" \t0123456789dD+-khlrKHLR!")  # with keep, reroll, explode
_DIE = re.compile(r"[dD]\d")


def _dice_like(text: str) -> bool:
    """Text that reads as a dice expression (linear time, whatever the text)."""
    return _DIE.search(text) is not None and set(text) <= _DICE_CHARS


def _leaves(data: Mapping):
    """``(table path, where, value)`` of every list and text of merged rules data, iteratively;
    ``where`` names a row as validation does (``table t, row 3 (Name): column``)."""
    stack: list = [("", "", data)]
    while stack:
        table, where, node = stack.pop()
        if isinstance(node, Mapping):
            stack.extend((table, f"{where}.{k}" if where else str(k), v)
                         for k, v in node.items())
        elif isinstance(node, (list, tuple)):
            yield where, where, node
            for i, item in enumerate(node):
                if isinstance(item, Mapping):
                    name = item.get("en", item.get("name"))
                    label = f"table {where}, row {i + 1}" + (
                        f" ({name})" if isinstance(name, str) else "")
                    stack.extend((where, f"{label}: {k}", v) for k, v in item.items())
                else:
                    stack.append((where, row_key(where, i), item))
        elif isinstance(node, str):
            yield table or where, where, node


def check_rules(data: Mapping, source_of: Callable[[str], str]) -> None:
    """Budgets of merged rules data, checked before anything is computed from them: every
    table or list within :data:`MAX_TABLE_ROWS`; every text that reads as a dice expression
    parses, within the dice budgets; the percentile tier lookup within
    :data:`MAX_GRID_CELLS`. ``source_of(path)`` names the file that set a value."""
    for table, where, value in _leaves(data):
        if isinstance(value, (list, tuple)):
            check_rows(where, value, source_of(table))
        elif _dice_like(value):
            try:
                d = parse(value)
                check_support(value, d.max - d.min + 1)
            except ValueError as exc:
                text = str(exc)
                if text.startswith("bad dice expression "):  # the expression is named once
                    text = text.split(": ", 1)[1]
                raise RulesError(f"{source_of(table)}: {where} = {_shown(value)}: {text}") \
                    from None


def check_rules_grids(data: Mapping, source_of: Callable[[str], str]) -> None:
    """The percentile tier lookup of :func:`balance.percentile.rolls.tier_lookup` within
    :data:`MAX_GRID_CELLS`: ``(cap + 1) x (die + 1)`` cells, ``cap = max(die *
    critical_divisor, high_skill + 1, die)`` (``rolls._skill_cap``). Run after the per-key
    ``[limits]``, so a value out of its own range is refused as such first; the message names
    the key a variant set (``source_of`` differs from the section's bundled file)."""
    try:
        die = data["percentile"]["die"]
        roll = data["percentile"]["roll"]
        divisor, high_skill = roll["critical_divisor"], roll["high_skill"]
    except (KeyError, TypeError):
        return

    def cap(d: int) -> int:  # the lookup's highest skill with a die of d faces
        return max(d * divisor, high_skill + 1, d)

    def cells(d: int) -> int:
        return (cap(d) + 1) * (d + 1)

    try:
        check_grid("the percentile tier lookup", (cap(die) + 1, die + 1),
                   "percentile.die, percentile.roll.critical_divisor and high_skill")
    except ValueError as exc:
        low, high = 0, die  # the largest die within the budget: cells() grows with d
        while low < high:
            mid = (low + high + 1) // 2
            low, high = (mid, high) if cells(mid) <= MAX_GRID_CELLS else (low, mid - 1)
        fix = f"; use a die of at most {low:,} faces" if low >= 2 else ""
        keys = {"percentile.die": die, "percentile.roll.critical_divisor": divisor,
                "percentile.roll.high_skill": high_skill}
        bundled = source_of("percentile")
        key = next((k for k in keys if source_of(k) != bundled), "percentile.die")
        if key != "percentile.die":
            fix = ""
        raise RulesError(f"{source_of(key)}: {key} = {keys[key]}: {exc}{fix}") from None
