"""Stable identities of the table rows that catalogue metrics read (issue 11, item 7).

Metric names stay readable ("treatment.chance@C12,Weak,light", "economy.price.longsword"),
and the row a name gives is found in a variant's table by that **name** (its ``en``; the
``die`` of ``economy.dice_values``, the ``key`` of the percentile weapons), matched as
:func:`balance.rules.tables.matched_rows` matches rows: a variant that removes or merges a
row before Bleeding still measures Bleeding, not the row that slid into its place; a row
renamed or translated in place ("Weak" -> "Weakened", a table of as many rows) is followed and
compares. A named section is identified by its key (``treatment.light``), not by its name.

A metric whose row the variant removed (or renamed while changing the table's length) is
never measured on another row: :func:`row` raises :class:`RowRemoved`, one line naming the
metric, the table and the row. Under rules that make the metric undefined (caps that forbid
the Longsword) it is refused with one line too (:func:`defined`).
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import lru_cache

from ..rules import Rules, resolve
from ..rules.tables import matched_rows

__all__ = ["row", "row_name", "position", "section_name", "defined", "Unmeasurable",
           "RowRemoved", "MetricUndefined"]


class Unmeasurable(ValueError):
    """A metric a rule set cannot measure: it is never measured on something else, and a
    comparison says so in its row (:func:`balance.regression.compare`). ``metric``, ``table``
    and ``why``, a short phrase for a table ("no injuries.table row 'Weak'")."""

    def __init__(self, message: str, metric: str, table: str, why: str) -> None:
        super().__init__(message)
        self.metric, self.table, self.why = metric, table, why


class RowRemoved(Unmeasurable):
    """A metric reads a table row that a rule set does not have (removed, or renamed while
    the table changed length): the metric is not measured there, never on another row.
    ``metric``, ``table`` and ``row`` (the bundled row's name) say which."""

    def __init__(self, message: str, metric: str, table: str, row: str) -> None:
        super().__init__(message, metric, table, f"no {table} row {row!r}")
        self.row = row


class MetricUndefined(Unmeasurable):
    """A metric the rule set's values rule out (caps that forbid the Longsword): ``what`` it
    would measure is not possible there (:func:`defined`)."""

    def __init__(self, message: str, metric: str, table: str, what: str) -> None:
        super().__init__(message, metric, table, f"undefined ({what})")
        self.what = what


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
    """The row of ``rules``' ``table`` that is the bundled row whose ``column`` is ``bundled``,
    matched by ``column`` (:func:`balance.rules.tables.matched_rows`); a row this rule set
    does not have is a one-line :class:`RowRemoved` naming ``metric``.

    >>> import balance as bl
    >>> rows = [dict(r) for r in bl.load_rules()["injuries"]["table"]]
    >>> rows[0]["high"] = 20; del rows[1]                 # Dazed and Feeble merged
    >>> merged = bl.load_rules().updated({"injuries": {"table": rows}})
    >>> row(merged, "injuries.table", "Bleeding", "treatment.days_to_cure@C12,Bleeding")["low"]
    141
    """
    i = position(table, bundled, column)
    rows = rules.get(table)
    names = [r.get(column) for r in resolve(None).get(table)]
    j = matched_rows(names, [r.get(column) for r in rows]).get(i)
    if j is None:
        raise RowRemoved(f"metric {metric!r} reads {table} row {bundled!r} (row {i + 1} of "
                         f"the bundled rules), which this rule set's table of {len(rows)} "
                         f"row{'s' if len(rows) != 1 else ''} does not have (rows are "
                         f"matched by their {column!r}): removed, or renamed while the table "
                         "changed length", metric, table, bundled)
    return rows[j]


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
    """Turn a ``ValueError`` of the engines inside the block into one line
    (:class:`MetricUndefined`) saying that ``metric`` is undefined under these rules: ``what`` it measures and the ``table`` whose
    values rule it out (an error that already names a metric passes unchanged)."""
    try:
        yield
    except ValueError as exc:
        if str(exc).startswith("metric "):
            raise
        raise MetricUndefined(f"metric {metric!r} is undefined under this rule set: {what} "
                              f"({table}: {exc})", metric, table, what) from None
