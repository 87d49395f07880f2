"""Invariants over every table: finite numbers, names that identify one row."""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ...names import normalise
from ..tables import row_key
from .registry import invariant
from ._tools import Source, fail, row_name


def _walk(node: Any, path: str = ""):
    if isinstance(node, Mapping):
        for key, value in node.items():
            yield from _walk(value, f"{path}.{key}" if path else str(key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _walk(value, row_key(path, i))
    else:
        yield path, node


@invariant("numbers.finite", "every number")
def finite_numbers(data: dict, source_of: Source) -> None:
    """Every number of the rules is finite: TOML's ``nan``, ``inf`` and ``-inf`` are refused
    everywhere (a NaN fraction in ``percentile.combat.sizes.parry_block`` made
    ``parry_blocked`` return -9223372036854775808).

    Fix: write a finite number.
    """
    for path, value in _walk(data):
        if isinstance(value, float) and not math.isfinite(value):
            raise fail(source_of, [path],
                       f"{path} = {value} is not a finite number; write a finite number")


def _tables(node: Any, path: str = ""):
    """(path, list) of every list in the rules."""
    if isinstance(node, Mapping):
        for key, value in node.items():
            yield from _tables(value, f"{path}.{key}" if path else str(key))
    elif isinstance(node, list):
        yield path, node


@invariant("names.unique", "every named table", "every list of names")
def unique_names(data: dict, source_of: Source) -> None:
    """A name identifies one row: within a table, no two rows share an English or French name
    (compared without case or accents, as lookups do) nor a ``key``; a list of names
    (``design.stats``, ``percentile.characteristics.names``...) holds each name once.

    Fix: rename one of the two rows (or drop the repeated name).
    """
    for path, rows in _tables(data):
        if all(isinstance(r, str) for r in rows):
            seen: dict[str, int] = {}
            for i, name in enumerate(rows):
                if name in seen:
                    raise fail(source_of, [path],
                               f"{path} names {name!r} twice (items {seen[name] + 1} and "
                               f"{i + 1}); drop the repeated name")
                seen[name] = i
            continue
        if not all(isinstance(r, Mapping) for r in rows):
            continue
        _unique_column(rows, path, "key", source_of, normalise=str)
        if any("en" in r for r in rows):
            _unique_names(rows, path, source_of)


def _unique_column(rows, path, column, source_of, normalise) -> None:
    seen: dict[str, int] = {}
    for i, row in enumerate(rows):
        if not isinstance(row.get(column), str):
            continue
        k = normalise(row[column])
        if k in seen:
            raise fail(source_of, [path],
                       f"table {path}: rows {seen[k] + 1} and {i + 1} share the {column} "
                       f"{row[column]!r}; give each row its own {column}")
        seen[k] = i


def _unique_names(rows, path, source_of) -> None:
    seen: dict[str, tuple[int, str]] = {}
    for i, row in enumerate(rows):
        for lang in ("en", "fr"):
            name = row.get(lang)
            if not isinstance(name, str):
                continue
            k = normalise(name)
            if k in seen and seen[k][0] != i:
                j, other = seen[k]
                raise fail(source_of, [path],
                           f"table {path}: rows {j + 1} ({other}) and {i + 1} "
                           f"({row_name(row, i)}) share the name {name!r}, so it could only "
                           f"find row {j + 1}; rename one of them")
            seen.setdefault(k, (i, row_name(row, i)))
