"""Rules tables as spreadsheets: a table of the rules as a DataFrame, a DataFrame back as a
validated variant, and the CSV and TOML text of both (``balance rules export/import``).

A *table* is a list of rows in the rules data (``injuries.table``, ``bestiary.creatures``,
``percentile.weapons.table``...). A cell holding a list or a mapping (a creature's ``stats``)
is written in CSV as a TOML inline value (``{ STR = 2, DEX = 1 }``) and read back as one.

>>> import balance as bl
>>> frame = bl.load_rules().table("injuries.table")
>>> list(frame.columns)
['low', 'high', 'modifier', 'en', 'fr']
>>> frame.loc[0, "high"] = 12
>>> frame.loc[1, "low"] = 13
>>> bl.load_rules().with_table("injuries.table", frame).get("injuries.table")[0]["high"]
12
"""
from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import RulesError, did_you_mean

if TYPE_CHECKING:
    import pandas as pd

#: a :class:`balance.Rules` (not imported: the loader imports this module)
Rules = Any

__all__ = ["table_keys", "row_key", "nested", "matched_rows", "moved_rows", "table",
           "with_table", "read_csv", "to_csv", "variant_text"]


def nested(path: str, value: Any) -> dict:
    """The overlay that sets the dotted ``path`` to ``value``: ``{"a": {"b": value}}`` for
    ``"a.b"`` (what ``Rules.updated`` and :func:`balance.rules.loader.merged` take).

    >>> nested("injuries.death_threshold", 180)
    {'injuries': {'death_threshold': 180}}
    """
    out: dict = {}
    node = out
    *parents, leaf = path.split(".")
    for part in parents:
        node = node.setdefault(part, {})
    node[leaf] = value
    return out


def row_key(table: str, index: int) -> str:
    """The key of row ``index`` (counted from 0) of the table ``table`` as ``--set`` takes it:
    rows counted from 1, as the validator's "row 1 (Dazed)" counts them; a column follows
    after a dot. The form ``balance rules check`` and the report give a changed value.

    >>> row_key("injuries.table", 28) + ".high"
    'injuries.table.29.high'
    """
    return f"{table}.{index + 1}"


def matched_rows(old: Sequence[object], new: Sequence[object]) -> dict[int, int]:
    """Which row of a new table is which row of an old one, given each row's name (its
    ``en``; anything but a string counts as no name): ``{old index: new index}``, rows
    counted from 0. A row of ``old`` missing from the result was removed, a row of ``new``
    missing from it was added.

    Rows are matched by name, so that removing or merging a row does not pair every later
    row with its neighbour. A name gone from ``new`` is followed to the row at its place
    only when that is safe: both tables have as many rows, and the row there bears a name
    ``old`` does not have (a row renamed or translated in place). Tables without a unique
    name on every row, on either side, are matched by position.

    >>> matched_rows(["Dazed", "Feeble", "Broken"], ["Dazed", "Broken"])    # merged
    {0: 0, 2: 1}
    >>> matched_rows(["Dazed", "Feeble"], ["Dazed", "Weakened"])            # renamed
    {0: 0, 1: 1}
    >>> matched_rows(["Dazed", "Feeble", "Broken"], ["Broken", "Feeble", "Dazed v2"])
    {1: 1, 2: 0}
    """
    named = all(isinstance(n, str) for n in (*old, *new)) \
        and len(set(old)) == len(old) and len(set(new)) == len(new)
    if not named:
        return {i: i for i in range(min(len(old), len(new)))}
    where = {name: j for j, name in enumerate(new)}
    out = {i: where[name] for i, name in enumerate(old) if name in where}
    if len(old) == len(new):
        known = set(old)
        out.update({i: i for i, name in enumerate(old)
                    if name not in where and new[i] not in known})
    return dict(sorted(out.items()))


def moved_rows(matched: Mapping[int, int]) -> set[int]:
    """The old indices of the rows :func:`matched_rows` found out of their order: the fewest
    rows whose moves explain the new order (all but a longest run kept in order). Rows that
    only shifted because a row before them was added or removed have not moved.

    >>> sorted(moved_rows({0: 1, 1: 0, 2: 2}))        # two rows swapped: one of them moved
    [0]
    >>> moved_rows({0: 0, 2: 1})                      # a row removed: nothing moved
    set()
    """
    import bisect

    pairs = sorted(matched.items())
    tails: list[int] = []                 # tails[k]: smallest new index ending a run of k+1
    ends: list[int] = []                  # the pair index ending that run
    back: list[int] = [-1] * len(pairs)   # the pair before it in its run
    for p, (_, j) in enumerate(pairs):
        k = bisect.bisect_left(tails, j)
        back[p] = ends[k - 1] if k else -1
        tails[k:k + 1], ends[k:k + 1] = [j], [p]
    kept, p = set(), ends[-1] if ends else -1
    while p >= 0:
        kept.add(pairs[p][0])
        p = back[p]
    return {i for i, _ in pairs if i not in kept}

def table_keys(rules: Rules) -> list[str]:
    """Dotted keys of every table (list of rows) of ``rules``."""
    out: list[str] = []
    stack: list[tuple[str, Any]] = [("", rules)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, Mapping):
            stack.extend((f"{path}.{k}" if path else str(k), v) for k, v in node.items())
        elif isinstance(node, tuple) and node and all(isinstance(r, Mapping) for r in node):
            out.append(path)
    return sorted(out)


def _plain_rows(rules: Rules, key: str) -> list[dict]:
    """The rows of the table at ``key`` as plain dicts and lists."""
    _rows(rules, key)
    node: Any = rules.to_dict()
    for part in key.split("."):
        node = node[part]
    return node


def _rows(rules: Rules, key: str) -> tuple:
    try:
        value = rules.get(key)
    except KeyError:
        value = None
    if not (isinstance(value, tuple) and value and all(isinstance(r, Mapping) for r in value)):
        keys = table_keys(rules)
        raise RulesError(f"{key!r} is not a table of the rules{did_you_mean(key, keys)}; "
                         f"tables: {', '.join(keys)}")
    return value


def _columns(rows) -> list[str]:
    columns: list[str] = []
    for row in rows:
        columns += [k for k in row if k not in columns]
    return columns


def table(rules: Rules, key: str) -> pd.DataFrame:
    """The table at ``key`` as a DataFrame: one row per table row, one column per key (a
    row without a key reads NaN there); list and mapping cells as plain lists and dicts.

    Raises RulesError naming the key (and the tables) when ``key`` is not a table.
    """
    import pandas as pd

    rows = _plain_rows(rules, key)
    columns = _columns(rows)
    return pd.DataFrame([{c: row.get(c) for c in columns} for row in rows], columns=columns)


def _hints(rows) -> dict[str, type]:
    """The type of each column's cells in the current table (int, float, bool, str, list,
    dict) when they all agree."""
    hints: dict[str, type] = {}
    mixed: set[str] = set()
    for row in rows:
        for k, v in row.items():
            t = dict if isinstance(v, Mapping) else list if isinstance(v, tuple) else type(v)
            if hints.setdefault(k, t) is not t:
                mixed.add(k)
    return {k: t for k, t in hints.items() if k not in mixed}


#: a decimal number as a spreadsheet writes it, with a point or a comma (French): 0,25
_DECIMAL = re.compile(r"[+-]?(\d+([.,]\d*)?|[.,]\d+)([eE][+-]?\d+)?")


def _cell(value: Any, hint: type | None, where: str) -> Any:
    """One spreadsheet cell as a rules value; None when empty (the key is left out)."""
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        value = value.item()
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, str) and hint in (list, dict):
        try:
            return tomllib.loads(f"v = {value}")["v"]
        except tomllib.TOMLDecodeError:
            kind = "array (e.g. [1, 2])" if hint is list else "inline table (e.g. { STR = 2 })"
            raise RulesError(f"{where}: {value!r} is not a TOML {kind}") from None
    if hint is bool and isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    if hint is int and isinstance(value, float) and value.is_integer():
        return int(value)
    if hint is int and isinstance(value, str) and re.fullmatch(r"[+-]?\d+", value.strip()):
        return int(value)
    if hint is float and isinstance(value, str) and _DECIMAL.fullmatch(value.strip()):
        return float(value.strip().replace(",", "."))  # a column holding a decimal comma
    if hint is str and not isinstance(value, str) and not isinstance(value, bool):
        return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
    return value


def with_table(rules: Rules, key: str, frame: pd.DataFrame, *, source: str | None = None
               ) -> Rules:
    """``rules`` with the table at ``key`` replaced by the rows of ``frame``, validated as
    a variant file is (a RulesError names the table, the row and the column).

    Empty cells leave the key out of that row; integral floats in an integer column (as
    pandas reads them next to empty cells) become integers.
    """
    import pandas as pd

    rows = _rows(rules, key)
    if not isinstance(frame, pd.DataFrame):
        raise RulesError(f"table {key}: expected a pandas DataFrame, got {type(frame).__name__}")
    hints = _hints(rows)
    known = _columns(rows)
    required = {c for c in known if all(c in row for row in rows)}
    for column in frame.columns:
        if not isinstance(column, str) or column not in known:
            raise RulesError(f"{source + ': ' if source else ''}table {key}: unknown column "
                             f"{column!r}"
                             f"{did_you_mean(str(column), known)}; columns: {', '.join(known)}")
    out = []
    for i, record in enumerate(frame.to_dict(orient="records")):
        row = {}
        for label, value in record.items():
            column = str(label)  # every column was checked to be a known name above
            cell = _cell(value, hints.get(column), f"table {key}, row {i + 1}: {column}")
            if cell is None and column in required and hints.get(column) is str:
                cell = ""  # an empty text cell of a column every row has
            if cell is not None:
                row[column] = cell
        out.append(row)
    return rules.updated(nested(key, out), source=source or "with_table()")


# --- text: CSV and a variant file -----------------------------------------------------
def to_csv(rules: Rules, key: str) -> str:
    """The table at ``key`` as CSV text: full precision, list and mapping cells as TOML, an
    integer column with empty cells still as integers (``99``, not pandas' ``99.0``)."""
    from .variant_file import _value

    frame = table(rules, key)
    hints = _hints(_rows(rules, key))
    for column in frame.columns:
        if hints.get(column) is int and frame[column].isna().any():
            frame[column] = frame[column].astype("Int64")
        if frame[column].map(lambda v: isinstance(v, (list, dict))).any():
            frame[column] = frame[column].map(
                lambda v: _value(v) if isinstance(v, (list, dict)) else v)
    return frame.to_csv(index=False)


def read_csv(path: str) -> pd.DataFrame:
    """A spreadsheet saved as CSV (UTF-8, a header row): only empty cells are missing (a
    name such as ``None`` or ``NA`` stays text). Cells are separated by commas, or by
    semicolons or tabs when the header row holds no comma (a spreadsheet set to French
    saves CSV with semicolons). What a spreadsheet leaves around a table is no data and is
    dropped: rows whose cells are all empty, columns with neither a header nor a value."""
    import io

    import pandas as pd

    with open(path, "rb") as file:
        data = file.read()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RulesError(f"{path}: not UTF-8 text (byte 0x{data[exc.start]:02x} at position "
                         f"{exc.start}); save it as CSV UTF-8") from None
    header = text.split("\n", 1)[0]
    sep = next((s for s in (",", ";", "\t") if s in header), ",")
    try:
        frame = pd.read_csv(io.StringIO(text), sep=sep, keep_default_na=False, na_values=[""])
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise RulesError(f"{path}: not a CSV table ({' '.join(str(exc).split())})") from None
    unnamed = [c for c in frame.columns  # pandas names a column without a header so
               if str(c).startswith("Unnamed: ") and frame[c].isna().all()]
    return frame.drop(columns=unnamed).dropna(how="all").reset_index(drop=True)


def variant_text(rules: Rules, key: str, comment: str = "") -> str:
    """A variant file holding only the table at ``key`` of ``rules`` (written as
    :meth:`balance.Rules.save` writes tables)."""
    from .variant_file import variant_text as text

    node: dict = {}
    overlay = node
    parts = key.split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = _plain_rows(rules, key)
    return text(overlay, {}, header=comment)
