"""Validation of rules data: every problem becomes one line naming file, table and row.

The bundled defaults are the schema: a variant may only name keys that exist there, with
values of the same type. Two reserved tables of a bundled file add what types cannot say:

``[limits]``
    ``"section.key" = [min, max]`` (a column of a table: ``"section.table.column"``).
``[assumed]``
    ``"section.key" = "why"``: values our reading of the rule documents marks **(assumed)**.

Any table whose rows have ``low``/``high`` columns is an *interval table*: its rows, in order,
must tile a range without gap, overlap or reversed interval, starting where the bundled table
starts; only the last row may leave ``high`` out (open-ended).

Values that must agree across tables (the death threshold and the injury table, sizes named by
other tables...) are checked last, by :mod:`balance.rules.invariants`.
"""
from __future__ import annotations

import math
from typing import Any

from .budget_checks import check_rules, check_rules_grids
from ..errors import RulesError, did_you_mean, shown
from .tables import row_key

__all__ = ["RESERVED", "check_overlay", "check_effective", "normalise_integers",
           "check_list_items"]

RESERVED = ("limits", "assumed")


def _shown(value: Any) -> str:
    """A value in a message: ``true``/``false`` as TOML writes them, anything else as
    :func:`balance.errors.shown` writes it (one line, cut; a long list named by length)."""
    return ("true" if value else "false") if isinstance(value, bool) else shown(value)


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__


def _same_kind(default: Any, value: Any) -> bool:
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(default, bool) and isinstance(value, bool)
    if isinstance(default, float):
        return isinstance(value, (int, float))
    if isinstance(default, int):
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if isinstance(default, dict):
        return isinstance(value, dict)
    if isinstance(default, list):
        return isinstance(value, list)
    return isinstance(value, type(default))


def _is_row_table(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(r, dict) for r in value)


def _row_label(row: dict, index: int) -> str:
    name = row.get("en", row.get("name"))
    return f"row {index + 1}" + (f" ({name})" if isinstance(name, str) else "")


def check_overlay(overlay: dict, defaults: dict, source: str, path: str = "") -> None:
    """Check keys and types of a variant ``overlay`` against the bundled ``defaults``."""
    if not path:
        _check_finite(overlay, source)
    for key, value in overlay.items():
        where = f"{path}.{key}" if path else str(key)
        if not path and key == "limits":
            raise RulesError(f"{source}: [limits] belongs to the bundled rules and cannot be "
                             "changed by a variant")
        if not path and key == "assumed":
            if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
                raise RulesError(f"{source}: [assumed] must map 'section.key' to a note (text)")
            continue
        if key not in defaults:
            choices = [k for k in defaults if not (not path and k in RESERVED)]
            section = f"[{path}]" if path else "the top level"
            raise RulesError(f"{source}: {section}: unknown key '{key}'"
                             f"{did_you_mean(key, choices)}; accepted: {', '.join(sorted(choices))}")
        default = defaults[key]
        if not _same_kind(default, value):
            raise RulesError(f"{source}: {where} must be {_type_name(default)}, "
                             f"got {_shown(value)} ({_type_name(value)})")
        if isinstance(default, dict):
            check_overlay(value, default, source, where)
        elif _is_row_table(default):
            _check_rows(value, default, source, where)


def _check_finite(overlay: dict, source: str) -> None:
    """Every number of a variant is finite (TOML allows ``nan`` and ``inf``)."""
    stack: list = [("", overlay)]
    while stack:
        where, node = stack.pop()
        if isinstance(node, dict):
            stack.extend((f"{where}.{k}" if where else str(k), v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((row_key(where, i), v) for i, v in enumerate(node))
        elif isinstance(node, float) and not math.isfinite(node):
            raise RulesError(f"{source}: {where} must be a finite number, got {node}")


def normalise_integers(overlay: Any, defaults: Any) -> Any:
    """``overlay`` with integral floats turned into ints where the bundled value is an integer
    (``low = 1.0`` reads as ``1``), so no consumer formats a float as an integer.

    A list of plain values takes the kind of the bundled list's first item; the items must be
    of that kind (call after :func:`check_overlay`, with the same ``source`` error wording).
    """
    if isinstance(overlay, dict) and isinstance(defaults, dict):
        return {k: normalise_integers(v, defaults.get(k)) for k, v in overlay.items()}
    if isinstance(overlay, list) and isinstance(defaults, list) and defaults:
        if _is_row_table(defaults):
            columns: dict[str, Any] = {}
            for row in defaults:
                for k, v in row.items():
                    columns.setdefault(k, v)
            return [normalise_integers(r, columns) for r in overlay]
        return [normalise_integers(v, defaults[0]) for v in overlay]
    if isinstance(defaults, int) and not isinstance(defaults, bool) \
            and isinstance(overlay, float) and overlay.is_integer():
        return int(overlay)
    return overlay


def check_list_items(overlay: dict, defaults: dict, source: str, path: str = "") -> None:
    """Items of a list of plain values must have the kind of the bundled list's items."""
    for key, value in overlay.items():
        where = f"{path}.{key}" if path else str(key)
        default = defaults.get(key) if isinstance(defaults, dict) else None
        if isinstance(value, dict) and isinstance(default, dict):
            check_list_items(value, default, source, where)
        elif isinstance(value, list) and isinstance(default, list) and default \
                and not _is_row_table(default):
            for i, item in enumerate(value):
                if not _same_kind(default[0], item):
                    raise RulesError(f"{source}: {where} item {i + 1} must be "
                                     f"{_type_name(default[0])}, got {_shown(item)} "
                                     f"({_type_name(item)})")


def _check_rows(rows: list, default_rows: list, source: str, where: str) -> None:
    if not rows:
        raise RulesError(f"{source}: table {where} must have at least one row")
    columns: dict[str, Any] = {}
    required = set(default_rows[0])
    for drow in default_rows:
        required &= set(drow)
        for k, v in drow.items():
            columns.setdefault(k, v)
    for i, row in enumerate(rows):
        label = _row_label(row, i) if isinstance(row, dict) else f"row {i + 1}"
        if not isinstance(row, dict):
            raise RulesError(f"{source}: table {where}, {label}: each row must be a table "
                             f"{{...}}, got {row!r}")
        for k, v in row.items():
            if k not in columns:
                raise RulesError(f"{source}: table {where}, {label}: unknown column '{k}'"
                                 f"{did_you_mean(k, columns)}; accepted: {', '.join(columns)}")
            if not _same_kind(columns[k], v):
                raise RulesError(f"{source}: table {where}, {label}: {k} must be "
                                 f"{_type_name(columns[k])}, got {_shown(v)} ({_type_name(v)})")
        optional_high = "high" in required and i == len(rows) - 1
        missing = [k for k in required if k not in row and not (optional_high and k == "high")]
        if missing:
            raise RulesError(f"{source}: table {where}, {label}: missing column "
                             f"{', '.join(sorted(missing))}")


def _walk_tables(data: dict, path: str = ""):
    for key, value in data.items():
        where = f"{path}.{key}" if path else key
        if isinstance(value, dict):
            yield from _walk_tables(value, where)
        elif _is_row_table(value):
            yield where, value


def _get(data: dict, dotted: str) -> Any:
    node: Any = data
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            raise KeyError(dotted)
        node = node[part]
    return node


def check_effective(data: dict, defaults: dict, limits: dict, source_of) -> None:
    """Check the merged rules: limits, interval tables, then the cross-field invariants of
    :mod:`balance.rules.invariants`. ``source_of(path)`` names the file."""
    check_rules(data, source_of)  # the budgets first (table rows, dice, grids: budgets.py)
    for dotted, bounds in limits.items():
        lo, hi = bounds
        parent, _, column = dotted.rpartition(".")
        try:
            value = _get(data, dotted)
            rows = None
        except KeyError:
            try:
                rows = _get(data, parent)
            except KeyError:
                continue
            if not _is_row_table(rows):
                continue
        if rows is None:
            if isinstance(value, (int, float)) and not isinstance(value, bool) \
                    and not lo <= value <= hi:
                raise RulesError(f"{source_of(dotted)}: {dotted} = {value} is out of range; "
                                 f"accepted: {lo} to {hi}")
            continue
        for i, row in enumerate(rows):
            v = row.get(column)
            if v is not None and not lo <= v <= hi:
                raise RulesError(f"{source_of(parent)}: table {parent}, {_row_label(row, i)}: "
                                 f"{column} = {v} is out of range; accepted: {lo} to {hi}")
    for where, rows in _walk_tables(data):
        if "low" not in rows[0]:
            continue
        default_rows = _get(defaults, where)
        _check_intervals(rows, default_rows[0]["low"], source_of(where), where)
    check_rules_grids(data, source_of)  # exact lookups sized by several keys, within budget
    from .invariants import check_invariants  # cross-field rules (docs/reference/rules-invariants.md)

    check_invariants(data, source_of)


def _check_intervals(rows: list, start: int, source: str, where: str) -> None:
    if rows[0]["low"] != start:
        raise RulesError(f"{source}: table {where}, {_row_label(rows[0], 0)}: the table must "
                         f"start at {start}, starts at {rows[0]['low']}")
    for i, row in enumerate(rows):
        label = _row_label(row, i)
        high = row.get("high")
        if high is None and i != len(rows) - 1:
            raise RulesError(f"{source}: table {where}, {label}: only the last row may leave "
                             "'high' out (open-ended)")
        if high is not None and high < row["low"]:
            raise RulesError(f"{source}: table {where}, {label}: reversed interval "
                             f"{row['low']}-{high} (low must be <= high)")
        if i:
            prev = rows[i - 1]
            expected = prev["high"] + 1
            if row["low"] > expected:
                raise RulesError(f"{source}: table {where}, {label}: gap: {expected}-"
                                 f"{row['low'] - 1} is covered by no row (previous row ends at "
                                 f"{prev['high']})")
            if row["low"] < expected:
                raise RulesError(f"{source}: table {where}, {label}: overlap: starts at "
                                 f"{row['low']} but {_row_label(prev, i - 1)} ends at "
                                 f"{prev['high']}")
