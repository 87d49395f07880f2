"""``balance rules``: check a variant file, show the rules in effect, list variants and
assumptions, and move a table to and from a spreadsheet (``export`` / ``import``).
Registered by :mod:`balance.cli`."""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .options import (add_format, add_rules, check_output, emit, load, path_arg, rules_line,
                      rules_used)
from ..errors import did_you_mean
from ..rules import plain
from ..rules.tables import row_key
from ..text import plain_data, plain_text

__all__ = ["register"]

#: widest cell of ``rules show`` in table output (longer values end with "…"; JSON and CSV
#: keep them whole)
CELL = 40
#: widest line of ``rules show`` in table output: a wide table is printed in blocks of
#: columns, each block repeating the table's first column
WIDTH = 100
#: narrowest a wrapped column (a note, a description) is made beside the others; with less
#: room it starts a block of its own
WRAP = 30


def rules_value_text(value: Any) -> str:
    """A rules value as one line of text (the report's form)."""
    from ..report.data import rules_value_text as text

    return text(value)


def _change_text(value: Any) -> str:
    """One side of a change as ``rules check`` prints it: a row only one side has as the
    report shows it (``low 151 · high 175 · ...``, an em dash on the side without it)."""
    from ..report.compare import value_shown

    return value_shown(value) if value is None or isinstance(value, Mapping) else \
        rules_value_text(value)


def _check(args) -> int:
    from ..rules import default_rules

    from ..report.data import rule_changes

    rules = load(args.files, named=False)  # its title names them
    base = default_rules()
    frame = rule_changes(rules, base)  # keys as --set takes them: injuries.table.1.high
    frame["bundled"] = frame["bundled"].map(_change_text)
    frame["variant"] = frame["variant"].map(_change_text)
    title = (f"ok: {' + '.join(args.files)}\nfingerprint {rules.fingerprint} "
             f"(bundled {base.fingerprint}); {len(frame)} "
             f"{'value' if len(frame) == 1 else 'values'} changed")
    if args.format == "table" and frame.empty:
        print(title)
        return 0
    header = None if args.format == "table" else {  # the title's values, on every row
        "fingerprint": rules.fingerprint, "bundled_fingerprint": base.fingerprint}
    emit(frame, args.format, title=title, header=header)
    return 0


def _flatten(value: Any, path: str) -> list[tuple[str, str]]:
    """``(key, value)`` of every value under ``path``, keyed as ``--set`` takes them: a table
    row by its number (``injuries.table.4.low``)."""
    if isinstance(value, Mapping):
        out = []
        for k, v in value.items():
            out += _flatten(v, f"{path}.{k}" if path else k)
        return out
    if _is_table(value):
        return [cell for i, row in enumerate(value) for cell in _flatten(row, row_key(path, i))]
    return [(path, rules_value_text(value))]


def _value_at(rules, key: str) -> Any:
    """The value at ``key`` as ``--set`` and the messages name it: dotted, a number selecting
    a table row or a list item (from 1), then a column (``injuries.table.4.low``)."""
    parts = key.split(".")
    for i in range(len(parts)):
        node = rules.get(".".join(parts[:i + 1]))
        if isinstance(node, tuple):
            break
    where = ".".join(parts[:i + 1])
    for part in parts[i + 1:]:
        if isinstance(node, tuple):
            if not part.isdigit() or not 1 <= int(part) <= len(node):
                raise KeyError(f"no rule '{key}': {where} has "
                               f"{'rows' if _is_table(node) else 'items'} 1 to {len(node)}, "
                               f"got {part!r}")
            node = node[int(part) - 1]
        elif isinstance(node, Mapping) and part in node:
            node = node[part]
        else:
            columns = list(node) if isinstance(node, Mapping) else []
            raise KeyError(f"no rule '{key}': {where} has no column {part!r}"
                           f"{did_you_mean(part, columns)}; columns: {', '.join(columns)}")
        where = f"{where}.{part}"
    return node


def _is_table(value: Any) -> bool:
    return (isinstance(value, tuple) and bool(value)
            and all(isinstance(row, Mapping) for row in value))


def _cut(text: str, width: int = CELL) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def _spread(frame):
    """A table's columns of mappings (a creature's ``stats``) as one column per key
    (``stats.STR``...), in the mappings' order."""
    import pandas as pd

    columns = {}
    for name in frame.columns:
        cells = list(frame[name])
        if cells and all(isinstance(v, Mapping) for v in cells if v is not None) \
                and any(isinstance(v, Mapping) for v in cells):
            keys = list(dict.fromkeys(k for v in cells if v is not None for k in v))
            for k in keys:
                columns[f"{name}.{k}"] = [None if v is None else v.get(k) for v in cells]
        else:
            columns[name] = cells
    return pd.DataFrame(columns, dtype=object)  # cells as they are: 99 stays 99


def _cells(frame, wrap: tuple[str, ...] = ()) -> list[tuple[str, list[str], bool]]:
    """Each column as (header, its cells as text of at most :data:`CELL` characters, or
    whole for a column named in ``wrap``; right-aligned: numbers)."""
    out = []
    for name in frame.columns:
        whole = name in wrap
        cells = ["" if v is None or v != v else
                 plain_text(rules_value_text(v)) if whole else
                 _cut(plain_text(rules_value_text(v))) for v in frame[name]]
        numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool)
                      for v in frame[name] if v is not None)
        out.append((plain_text(str(name)), cells, numeric))
    return out


def table_lines(frame, width: int = WIDTH, wrap: tuple[str, ...] = ()) -> list[str]:
    """A table as aligned text lines of at most ``width`` characters (cells cut at
    :data:`CELL`): as many columns as fit, then the next block of columns, each block starting
    with the first column again. A column named in ``wrap`` (a note, a description) is not
    cut: it takes the room left on the line (at least :data:`WRAP` characters, else it starts
    a block) and each of its cells runs over as many lines as it needs."""
    import textwrap

    columns = _cells(frame, wrap)
    sized = [(h, c, num, max([len(h), *map(len, c)])) for h, c, num in columns]
    if not sized:
        return []
    first, rest = sized[0], sized[1:]
    blocks: list[list] = [] if rest else [[first]]
    for column in rest:
        used = sum(w + 2 for *_, w in blocks[-1]) if blocks else width
        if used + column[3] <= width:
            blocks[-1].append(column)
        elif column[0] in wrap and width - used >= WRAP:
            blocks[-1].append((*column[:3], width - used))
        else:
            room = width - first[3] - 2
            blocks.append([first, column if column[0] not in wrap or column[3] <= room
                           else (*column[:3], max(room, WRAP))])
    lines: list[str] = []
    for i, block in enumerate(blocks):
        if i:
            lines.append("")

        def cell(text: str, numeric: bool, w: int) -> str:
            return text.rjust(w) if numeric else text.ljust(w)

        def parts(text: str, w: int) -> list[str]:
            return textwrap.wrap(text, w, break_on_hyphens=False) or [""] if len(text) > w \
                else [text]
        lines.append("  ".join(cell(h, num, w) for h, _, num, w in block).rstrip())
        for r in range(len(first[1])):
            row = [parts(c[r], w) for _, c, _, w in block]
            for k in range(max(map(len, row))):
                lines.append("  ".join(cell(p[k] if k < len(p) else "", num, w)
                                       for p, (_, _, num, w) in zip(row, block)).rstrip())
    return lines


def _show(args) -> int:
    import pandas as pd

    rules = load(args.rules, named=False)  # its title names them
    node = _value_at(rules, args.section) if args.section else rules
    if args.format == "json":
        print(json.dumps(plain_data(plain(node)), ensure_ascii=False, indent=2))
        return 0
    title = rules_line(rules)
    if args.format == "csv":
        rows = _flatten(node, args.section or "")
        emit(pd.DataFrame(rows, columns=["key", "value"]), args.format)
        return 0
    # table output: the plain values as key/value rows, then each table of rows as a table
    values: list[tuple[str, str]] = []
    tables: list[tuple[str, Any]] = []
    stack: list[tuple[str, Any]] = [(args.section or "", node)]
    while stack:
        path, value = stack.pop(0)
        if isinstance(value, Mapping):
            stack[:0] = [(f"{path}.{k}" if path else k, v) for k, v in value.items()]
        elif _is_table(value):
            tables.append((path, value))
        else:
            values.append((path, rules_value_text(value)))
    print(plain_text(title))
    if values:
        key_width = max(len("key"), *(len(k) for k, _ in values))
        room = max(WIDTH - key_width - 2, CELL // 2)
        print(f"{'key':<{key_width}}  value")
        for key, value in values:
            print(f"{plain_text(key):<{key_width}}  {_cut(plain_text(value), room)}")
    if tables:
        print("\n(each table as CSV: balance rules export KEY --csv FILE)")
    for path, rows in tables:
        print(f"\n{plain_text(path)} ({len(rows)} rows)")
        columns = rules.table(path).columns  # each cell as the rules hold it: 99, not 99.0
        frame = pd.DataFrame({c: [row.get(c) for row in rows] for c in columns}, dtype=object)
        print("\n".join(table_lines(_spread(frame))))
    return 0


def _description(name: str) -> str:
    """The leading comment of a bundled variant file, on one line."""
    from importlib import resources

    text = (resources.files("balance.rules") / "variants" / f"{name}.toml").read_text(
        encoding="utf-8")
    lines = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("#").strip())
    words = " ".join(lines)
    return words.removeprefix("Example variant: ")


def _variants(args) -> int:
    import pandas as pd

    from ..rules import bundled_variants

    names = bundled_variants()
    frame = pd.DataFrame({"variant": names, "description": [_description(n) for n in names]})
    if args.format == "table":  # each description whole, wrapped within WIDTH
        print("\n".join(table_lines(frame, wrap=("description",))))
        return 0
    emit(frame, args.format)
    return 0


def _write(path: str, text: str, force: bool, what: str) -> None:
    from .._atomic import write_file

    try:
        write_file(path, text, replace=force, what=what)
    except FileExistsError:
        raise ValueError(f"{what} {path}: already exists; pass --force to replace it") \
            from None


def _export(args) -> int:
    from ..rules.tables import to_csv

    rules = load(args.rules)
    text = to_csv(rules, args.key)
    if args.csv is None:
        print(text, end="")
        return 0
    check_output("--csv", args.csv, args.force)
    _write(args.csv, text, args.force, "--csv")
    rows = text.count("\n") - 1
    print(f"{args.csv}: {args.key}, {rows} rows (rules {rules.fingerprint})")
    return 0


def _import(args) -> int:
    from ..rules.tables import read_csv, variant_text

    base = load(args.rules)
    check_output("--out", args.out, args.force)
    rules = base.with_table(args.key, read_csv(args.file), source=str(args.file))
    comment = (f"Variant written by: balance rules import {args.key} {args.file}\n"
               f"It holds only the table {args.key}; fingerprint {rules.fingerprint} over "
               f"{' + '.join(base.sources)}.")
    _write(args.out, variant_text(rules, args.key, comment), args.force, "--out")
    print(f"{args.out}: {args.key} from {args.file} (fingerprint {rules.fingerprint}; "
          f"check it with: balance rules check {args.out})")
    return 0


def _assumptions(args) -> int:
    rules = load(args.rules)
    frame = rules.assumptions
    frame["value"] = frame["value"].map(rules_value_text)
    if args.format == "table":  # whole tables (the bestiary...) cut; each note whole, wrapped
        frame["value"] = frame["value"].map(lambda v: _cut(v, CELL // 2))
        lines = [rules_line(rules)] if rules_used() else []  # as emit names them
        print("\n".join([*lines, *table_lines(frame, wrap=("note",))]))
        return 0
    emit(frame, args.format)
    return 0


def register(sub) -> None:
    """Add ``balance rules check|show|variants|assumptions``."""
    rules = sub.add_parser("rules", help="check a variant file, show the rules in effect",
                           description="Rules files: validate a variant, show the rules, "
                                       "list the bundled variants and the assumed values.")
    group = rules.add_subparsers(dest="rules_command", metavar="ACTION", required=True)

    p = group.add_parser("check", help="validate a variant file: fingerprint and what it changes",
                         description="Load FILE over the bundled rules (several files are "
                                     "applied in order), validate it, and list every value it "
                                     "changes. Exit code 2 with a one-line message naming "
                                     "the file, table and row when it is unusable.")
    p.add_argument("files", nargs="+", metavar="FILE", type=path_arg,
                   help="variant rules file(s) (TOML)")
    add_format(p)
    p.set_defaults(func=_check)

    p = group.add_parser("show", help="print the rules in effect (a section or all)",
                         description="Print the rules in effect as dotted key = value rows "
                                     "(or JSON), optionally only SECTION (e.g. injuries, "
                                     "injuries.death_threshold).")
    p.add_argument("section", nargs="?", help="a section or dotted key (default: everything)")
    add_rules(p)
    add_format(p)
    p.set_defaults(func=_show)

    p = group.add_parser("variants", help="list the bundled example variants",
                         description="Names usable as --rules NAME, each with its "
                                     "description.")
    add_format(p)
    p.set_defaults(func=_variants)

    p = group.add_parser("export", help="write a table of the rules as CSV (a spreadsheet)",
                         description="Write the table KEY (e.g. injuries.table) of the rules "
                                     "in effect as CSV, full precision; list and mapping "
                                     "cells as TOML inline values. Without --csv, to stdout.")
    p.add_argument("key", metavar="KEY", help="a table of the rules, e.g. injuries.table")
    p.add_argument("--csv", metavar="FILE", type=path_arg, default=None,
                   help="CSV file to write (refused when it exists, unless --force)")
    p.add_argument("--force", action="store_true", help="overwrite an existing --csv file")
    add_rules(p)
    p.set_defaults(func=_export)

    p = group.add_parser("import", help="turn an edited CSV table into a checked variant file",
                         description="Read FILE (CSV with a header row, as 'rules export' "
                                     "writes it) as the table KEY, validate the rules with "
                                     "it, and write a variant file holding only that table.")
    p.add_argument("key", metavar="KEY", help="the table FILE replaces, e.g. injuries.table")
    p.add_argument("file", metavar="FILE", type=path_arg, help="the CSV file")
    p.add_argument("--out", metavar="VARIANT", type=path_arg, required=True,
                   help="variant file to write (.toml; refused when it exists, unless --force)")
    p.add_argument("--force", action="store_true", help="overwrite an existing --out file")
    add_rules(p)
    p.set_defaults(func=_import)

    p = group.add_parser("assumptions", help="list the assumed values in effect",
                         description="Values our reading of the rule documents marks (assumed), "
                                     "with their notes (docs: readings).")
    add_rules(p)
    add_format(p)
    p.set_defaults(func=_assumptions)
