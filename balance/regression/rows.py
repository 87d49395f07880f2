"""Stable identities of the table rows that catalogue metrics read (issue 11, item 7).

Metric names stay readable ("treatment.chance@C12,Weak,light", "economy.price.longsword"),
but the row they name is identified by its **position** in the bundled table ("Weak" is the
6th row of ``injuries.table``, the Longsword's d8 the 3rd row of ``economy.dice_values``), and
a named section by its key (``treatment.light``), not by its name: a variant that renames or
translates the row ("Weak" -> "Weakened") is measured on the row at the same position and
compares, instead of failing with "unknown injury 'Weak'". A variant whose table is too short
for a metric's row, or under which the metric is undefined (caps that forbid the Longsword),
is refused with one line naming the metric, the table and what is missing (:func:`defined`).
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import lru_cache

from ..rules import Rules, resolve

__all__ = ["row", "row_name", "position", "section_name", "defined"]


@lru_cache(maxsize=None)
def position(table: str, bundled: str, column: str = "en") -> int:
    """Index of the row whose ``column`` is ``bundled`` in the bundled rules' ``table``
    (a dotted key such as ``"injuries.table"``)."""
    rows = resolve(None).get(table)
    for i, row in enumerate(rows):
        if row[column] == bundled:
            return i
    raise LookupError(f"the bundled {table} has no row {bundled!r}")  # a catalogue bug


def row(rules: Rules, table: str, bundled: str, metric: str, column: str = "en") -> Mapping:
    """The row of ``rules``' ``table`` at the position of the bundled row whose ``column`` is
    ``bundled``; a table too short for it is a one-line ``ValueError`` naming ``metric``."""
    i = position(table, bundled, column)
    rows = rules.get(table)
    if i >= len(rows):
        raise ValueError(f"metric {metric!r} reads {table} row {i + 1} ({bundled!r} in the "
                         f"bundled rules; metrics name rows by position), but this rule set's "
                         f"table has {len(rows)} row{'s' if len(rows) != 1 else ''}")
    return rows[i]


def row_name(rules: Rules, table: str, bundled: str, metric: str, column: str = "en") -> str:
    """The name (``column``, English by default), in ``rules``, of the row that is
    ``bundled`` in the bundled rules.

    >>> import balance as bl
    >>> rows = [dict(r) for r in bl.load_rules()["injuries"]["table"]]
    >>> rows[5]["en"] = "Weakened"
    >>> row_name(bl.load_rules().updated({"injuries": {"table": rows}}), "injuries.table",
    ...          "Weak", "treatment.chance@C12,Weak,light")
    'Weakened'
    """
    return row(rules, table, bundled, metric, column)[column]


def section_name(rules: Rules, key: str) -> str:
    """The English name, in ``rules``, of the named section ``key`` (``"treatment.light"``:
    its key is its stable identity, its ``en`` what the engines are asked for)."""
    return rules.get(key)["en"]


@contextmanager
def defined(metric: str, what: str, table: str) -> Iterator[None]:
    """Turn a ``ValueError`` of the engines inside the block into one line saying that
    ``metric`` is undefined under these rules: ``what`` it measures and the ``table`` whose
    values rule it out (an error that already names a metric passes unchanged)."""
    try:
        yield
    except ValueError as exc:
        if str(exc).startswith("metric "):
            raise
        raise ValueError(f"metric {metric!r} is undefined under this rule set: {what} "
                         f"({table}: {exc})") from None
