"""Stable identities of the table rows that catalogue metrics read (issue 11, item 7).

Metric names stay readable ("treatment.chance@C12,Weak,light"), but the row they name is
identified by its **position** in the bundled table ("Weak" is the 6th row of
``injuries.table``), not by its name: a variant that renames or translates the row
("Weak" -> "Weakened") is measured on the row at the same position and compares, instead of
failing with "unknown injury 'Weak'". A variant whose table is too short for a metric's row
is refused with one line naming the metric, the table and the row.
"""
from __future__ import annotations

from functools import lru_cache

from ..rules import Rules, resolve

__all__ = ["row_name", "position"]


@lru_cache(maxsize=None)
def position(table: str, bundled: str) -> int:
    """Index of the row named ``bundled`` (English) in the bundled rules' ``table``
    (a dotted key such as ``"injuries.table"``)."""
    rows = resolve(None).get(table)
    for i, row in enumerate(rows):
        if row["en"] == bundled:
            return i
    raise LookupError(f"the bundled {table} has no row {bundled!r}")  # a catalogue bug


def row_name(rules: Rules, table: str, bundled: str, metric: str) -> str:
    """The English name, in ``rules``, of the row that is ``bundled`` in the bundled rules.

    >>> import balance as bl
    >>> rows = [dict(r) for r in bl.load_rules()["injuries"]["table"]]
    >>> rows[5]["en"] = "Weakened"
    >>> row_name(bl.load_rules().updated({"injuries": {"table": rows}}), "injuries.table",
    ...          "Weak", "treatment.chance@C12,Weak,light")
    'Weakened'
    """
    i = position(table, bundled)
    rows = rules.get(table)
    if i >= len(rows):
        raise ValueError(f"metric {metric!r} reads {table} row {i + 1} ({bundled!r} in the "
                         f"bundled rules; metrics name rows by position), but this rule set's "
                         f"table has {len(rows)} row{'s' if len(rows) != 1 else ''}")
    return rows[i]["en"]
