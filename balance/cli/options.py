"""What every ``balance`` command shares: the parser that fails in one line, the options
(``--format``, ``--lang``, ``--rules`` and ``--set``, ``--trials``/``--seed``/``--workers``,
paths) and the printing of tables.

One style across commands: what the question is about is positional (``balance tiers 65``,
``balance dice 4d6kh3``, ``balance rules show injuries``), everything else is a long option
with a default (``--seconds``, ``--trials``...). Numbers in table output: every fraction with
4 decimals (``0.1700``); JSON and CSV carry full precision and the header values (seed,
trials, skill, best ask...) as columns of every row.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from ..labels import LANGS
from ..rng import DEFAULT_SEED
from ..text import plain_text

if TYPE_CHECKING:  # pandas is imported when a table is printed (a fast start)
    import pandas as pd

__all__ = ["FORMATS", "DEFAULT_SEED", "DIGITS", "Parser", "MinusParser", "Setting", "one_line", "as_options",
           "check_output", "wrote", "add_format",
           "add_lang", "path_arg", "trials_arg", "seed_arg", "natural_arg", "workers_arg", "add_rules", "add_mc", "load", "rules_used", "rules_line", "forget_rules", "check_distinct",
           "rule_files", "emit"]


FORMATS = ("table", "json", "csv")
#: decimals of the fractions of table output (JSON and CSV: full precision)
DIGITS = 4


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``balance: error: ...`` and exit code 2."""

    def error(self, message: str):
        self.exit(2, f"balance: error: {message} (see '{self.prog} --help')\n")


#: a negative number (``-3``, ``-0.5``): argparse already reads it as a value
_NEGATIVE_NUMBER = re.compile(r"-\d+(?:\.\d*)?|-\.\d+")


class MinusParser(Parser):
    """A command whose positional values may start with '-' (``balance dice -1d6+4``,
    ``balance rest -1:15``): an argument that :attr:`minus` matches (a plain negative number
    aside) is moved after ``--``, where argparse takes it as a value, so the value's own check
    says what is accepted instead of argparse reading an unknown option."""

    minus: re.Pattern = re.compile(r"(?!)")

    def parse_known_args(self, args=None, namespace=None):
        if args is not None and "--" not in args:
            args = list(args)
            moved = [a for a in args if self.minus.match(a) and not _NEGATIVE_NUMBER.fullmatch(a)]
            if moved:
                args = [a for a in args if a not in moved] + ["--", *moved]
        return super().parse_known_args(args, namespace)


#: a library message's leading parameter name (``negative_hp must``, ``arrival: bad dice``)
_LEADING_NAME = re.compile(r"([a-z][a-z0-9_]*)(?:: | (?=must ))")


def as_options(message: str, parser: argparse.ArgumentParser) -> str:
    """A library's message that starts with a parameter of the command (``negative_hp must
    never be below 1``) as argparse names it: ``argument --negative-hp: must never be below
    1``; another option it names with an underscore (``max_hp``) becomes the option
    (``--max-hp``). Any other message is returned as it is.

    >>> p = argparse.ArgumentParser()
    >>> _ = p.add_argument("--hp"), p.add_argument("--max-hp")
    >>> as_options("hp must be at most max_hp (3), got 5", p)
    'argument --hp: must be at most --max-hp (3), got 5'
    """
    names = {a.dest: argparse._get_action_name(a) for a in parser._actions
             if a.dest not in (argparse.SUPPRESS, "help")}
    found = _LEADING_NAME.match(message)
    if found is None or not names.get(found.group(1)):
        return message
    rest = message[found.end():]
    for dest, name in names.items():
        if "_" in dest and name and name.startswith("--"):
            rest = re.sub(rf"\b{dest}\b", name, rest)
    return f"argument {names[found.group(1)]}: {rest}"


def one_line(exc: BaseException) -> str:
    """An exception's message on one line (KeyError's quotes and OSError's ``[Errno n]``
    removed, no control characters)."""
    if isinstance(exc, KeyError) and exc.args:
        text = exc.args[0]
    elif isinstance(exc, OSError) and exc.strerror:
        text = f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
    else:
        text = str(exc)
    return " ".join(plain_text(text).split()) or type(exc).__name__


def add_format(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=FORMATS, default="table",
                   help="output: an aligned table (default), JSON records or CSV")


def add_lang(p: argparse.ArgumentParser, help: str) -> None:
    p.add_argument("--lang", choices=LANGS, default="en", help=f"{help} (default en)")


def check_output(option: str, path: str | None, force: bool,
                  suffixes: tuple[str, ...] = ()) -> None:
    """Refuse an output file before any work: a path that is not a regular file, one that
    exists (unless --force), a folder that does not exist or is not writable, a suffix not
    among ``suffixes``."""
    from pathlib import Path

    from .._atomic import check_output_file

    if not path:
        return
    target = check_output_file(option, path)
    if suffixes and target.suffix.lower() not in suffixes:
        raise ValueError(f"{option} {path}: the file name must end in "
                         f"{', '.join(suffixes[:-1])} or {suffixes[-1]}")
    if target.exists() and not force:
        raise ValueError(f"{option} {path}: already exists; pass --force to replace it")
    folder = Path(target).parent
    if not folder.is_dir():
        raise ValueError(f"{option} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"{option} {path}: the folder {folder} is not writable")


def check_distinct(*outputs: tuple[str, str | None]) -> None:
    """Refuse two output options that name the same file, before any work: the second would
    silently replace the first.

    Parameters
    ----------
    *outputs : (str, str or None)
        ``(option, path)`` pairs; a path of None (the option not given) is skipped.

    Raises
    ------
    ValueError
        ``"--html PATH: the same file as --csv; give each output its own file"``.

    Examples
    --------
    >>> check_distinct(("--csv", "moved.csv"), ("--html", None), ("--json", "moved.json"))
    >>> check_distinct(("--csv", "moved.csv"), ("--html", "./moved.csv"))
    Traceback (most recent call last):
    ...
    ValueError: --html ./moved.csv: the same file as --csv; give each output its own file
    """
    from pathlib import Path

    seen: dict[Path, str] = {}
    for option, path in outputs:
        if not path:
            continue
        target = Path(path).resolve()
        if target in seen:
            raise ValueError(f"{option} {path}: the same file as {seen[target]}; give each "
                             f"output its own file")
        seen[target] = option


def wrote(path: object, fmt: str) -> None:
    """Say that ``path`` was written: on stdout after a table, on stderr after JSON or CSV
    (stdout then holds only the one document, for a pipe or a file)."""
    print(f"wrote {path}", file=sys.stdout if fmt == "table" else sys.stderr)


def path_arg(text: str) -> str:
    """argparse ``type=`` of every file or folder argument: an empty path is refused (it would
    otherwise read as "not given" and silently skip the output the user asked for)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("a path is needed, got an empty one")
    return text


def _whole(text: str, most: int, budget: str) -> int:
    """``text`` as a whole number from 1 to ``most``, written as digits or in exponent form
    (``1e6``, ``2.5e5``); else argparse's one-line error naming the ``budget``."""
    from decimal import Decimal, InvalidOperation

    try:
        value = Decimal(text.strip().replace("_", ""))
    except InvalidOperation:
        value = Decimal("NaN")
    if not value.is_finite() or value != value.to_integral_value() or not 1 <= value <= most:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to {most:,} "
                                         f"({budget}), got {text!r}")
    return int(value)


def trials_arg(text: str) -> int:
    """argparse ``type=`` of ``--trials``: a whole number within the trials budget (``1e6``
    is accepted as 1,000,000)."""
    from ..budgets import MAX_TRIALS

    return _whole(text, MAX_TRIALS, "the trials budget")


def natural_arg(text: str) -> int:
    """argparse ``type=`` of a whole number from 0 (``--seed``, a skill in %)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0, got {text!r}")
    return value


#: ``--seed``: a whole number from 0 (numpy's SeedSequence)
seed_arg = natural_arg


def workers_arg(text: str) -> int:
    """argparse ``type=`` of ``--workers``: a whole number of processes, at most the cores
    this machine lets the command use."""
    from ..budgets import max_workers

    return _whole(text, max_workers(), "the cores of this machine")


class Setting(str):
    """One ``--set KEY=VALUE`` (the text as given), kept in ``args.rules`` in command-line
    order with the ``--rules`` files; ``key`` dotted, ``value`` parsed as a TOML value."""

    key: str
    value: Any


_WORD = __import__("re").compile(r"[A-Za-z_][\w' -]*")


def setting_arg(text: str) -> Setting:
    """argparse ``type=`` of ``--set``: ``KEY=VALUE``, VALUE a TOML value (``180``, ``0.5``,
    ``"text"``, ``[1, 2]``, ``true``); a bare word (``Hard``) is read as text."""
    import tomllib

    key, sep, raw = text.partition("=")
    key, raw = key.strip(), raw.strip()
    if not sep or not key or not raw:
        raise argparse.ArgumentTypeError(f"takes KEY=VALUE, e.g. injuries.death_threshold=180, "
                                         f"got {text!r}")
    parts = key.split(".")
    if any(not part for part in parts):
        raise argparse.ArgumentTypeError(f"{key!r}: a dotted rules key such as "
                                         "injuries.death_threshold")
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        if not _WORD.fullmatch(raw):
            raise argparse.ArgumentTypeError(
                f"{key}: {raw!r} is not a TOML value (write 180, 0.5, \"text\", [1, 2] or "
                "true)") from None
        value = raw
    setting = Setting(f"{key}={raw}")
    setting.key, setting.value = key, value
    return setting


def add_rules(p: argparse.ArgumentParser) -> None:
    """``--rules FILE`` and ``--set KEY=VALUE``, both repeatable, applied in the order given."""
    p.add_argument("--rules", action="append", default=[], metavar="FILE",
                   type=path_arg,
                   help="variant rules file, or the name of a bundled variant "
                        "(repeatable, applied in order; default: the bundled rules)")
    p.add_argument("--set", action="append", dest="rules", metavar="KEY=VALUE",
                   type=setting_arg,
                   help="change one rule value without a file, e.g. --set "
                        "injuries.death_threshold=180 or --set injuries.table.3.modifier=-5 "
                        "(rows count from 1; the value is TOML: 180, 0.5, \"text\", [1, 2]); "
                        "repeatable, applied in order with --rules")


def rule_files(entries: Sequence[str]) -> list[str]:
    """The files among ``args.rules`` (without the ``--set`` values)."""
    return [e for e in entries if not isinstance(e, Setting)]


def _overlay(data: Any, setting: Setting) -> dict:
    """The nested overrides of one ``--set`` on ``data`` (the rules as a plain dict, edited in
    place so that the next ``--set`` of a run sees this one): dotted keys, a number selects a
    table row (from 1), and the whole table is replaced by its edited copy."""
    from ..errors import RulesError, did_you_mean

    parts = setting.key.split(".")
    root: dict = {}
    node: Any = root
    for i, part in enumerate(parts[:-1]):
        if isinstance(data, list):
            break
        if isinstance(data, dict) and isinstance(data.get(part), list):
            table = data[part]
            node[part] = table
            data = table
            rest = parts[i + 1:]
            break
        node = node.setdefault(part, {})
        data = data.get(part) if isinstance(data, dict) else None
    else:
        node[parts[-1]] = setting.value
        if isinstance(data, dict):
            data[parts[-1]] = setting.value
        return root
    where = ".".join(parts[:len(parts) - len(rest)])
    target: Any = data
    for j, part in enumerate(rest):
        last = j == len(rest) - 1
        if isinstance(target, list):
            if not part.isdigit() or not 1 <= int(part) <= len(target):
                raise RulesError(f"--set {setting.key}: {where} has rows 1 to {len(target)}, "
                                 f"got {part!r}")
            if last:
                target[int(part) - 1] = setting.value
            else:
                target = target[int(part) - 1]
        elif isinstance(target, dict):
            if part not in target:
                raise RulesError(f"--set {setting.key}: {where} has no column {part!r}"
                                 f"{did_you_mean(part, target)}; columns: {', '.join(target)}")
            if last:
                target[part] = setting.value
            else:
                target = target[part]
        else:
            raise RulesError(f"--set {setting.key}: {where} is a value, not a table")
        where = f"{where}.{part}"
    return root


#: the rules the running command resolved from --rules/--set, as (JSON field, table line);
#: None: the bundled rules as they are. Named by :func:`emit` (once in table output)
_RULES_USED: ContextVar[tuple[dict[str, Any], str] | None] = ContextVar("balance_rules_used",
                                                                       default=None)


def rules_used() -> dict[str, Any] | None:
    """What :func:`load` resolved for the running command: ``sources`` (the ``--rules`` files
    as typed), ``set`` (the ``--set`` values as typed) and ``fingerprint``; None when the
    bundled rules ran unchanged."""
    used = _RULES_USED.get()
    return None if used is None else used[0]


def forget_rules() -> None:
    """Start a command with no rules named (:func:`balance.cli.main`, before each command)."""
    _RULES_USED.set(None)


def rules_line(rules) -> str:
    """The line naming ``rules`` as ``balance rules show`` does, in the order applied:
    ``rules 59e988c9213a (bundled + house.toml + --set injuries.death_threshold=180)``."""
    return f"rules {rules.fingerprint} ({' + '.join(rules.sources)})"


def load(entries: Sequence[str], *, named: bool = True):
    """The rules of ``--rules`` files and ``--set`` values, in the order given (bundled
    defaults when none). ``named``: when ``entries`` change the rules, :func:`emit` names
    them in the output (False: the command names them itself, as ``rules show``)."""
    rules = _resolve(entries)
    if entries and named:
        _RULES_USED.set(({"sources": [str(e) for e in rule_files(entries)],
                          "set": [str(e) for e in entries if isinstance(e, Setting)],
                          "fingerprint": rules.fingerprint}, rules_line(rules)))
    return rules


def _resolve(entries: Sequence[str]):
    from ..rules import load_rules
    from ..rules.loader import merged

    rules = load_rules()
    run: list[Setting] = []
    for entry in [*entries, None]:
        if isinstance(entry, Setting):
            run.append(entry)
            continue
        if run:  # consecutive --set values: one overlay, validated once (a row boundary moves)
            data, overlay = rules.to_dict(), dict[str, Any]()
            for setting in run:
                overlay = merged(overlay, _overlay(data, setting))
            rules = rules.updated(overlay, source=" ".join(f"--set {s}" for s in run))
            run = []
        if entry is not None:
            rules = load_rules(entry, base=rules)
    return rules


def add_mc(p: argparse.ArgumentParser, trials: int | None, *, workers: bool = True) -> None:
    """``--trials`` (default ``trials``; None: exact unless given), ``--seed`` (default
    :data:`DEFAULT_SEED`, printed with the result) and ``--workers``."""
    p.add_argument("--trials", type=trials_arg, default=trials,
                   help="Monte Carlo trials" + (f" (default {trials:,})" if trials else
                                                ": simulate instead of the exact answer"))
    p.add_argument("--seed", type=seed_arg, default=DEFAULT_SEED,
                   help=f"seed (default {DEFAULT_SEED}: the same command gives the same output)")
    if workers:
        p.add_argument("--workers", type=workers_arg, default=1,
                       help="worker processes (default 1, at most the machine's cores)")


def _plain(value):
    if isinstance(value, float) and value != value:
        return None
    if hasattr(value, "item"):
        return _plain(value.item())
    return value


def _header_text(header: Mapping[str, Any]) -> str:
    return ", ".join(f"{k.replace('_', ' ')} {_shown(v)}" for k, v in header.items())


def _titled(title: str | None, header: Mapping[str, Any], line: str | None) -> str:
    """The table's first lines: the rules ``line`` (once a command), the title, the header."""
    return "\n".join(text for text in (line, title, _header_text(header)) if text)


def _with_rules(header: Mapping[str, Any] | None, fmt: str
                ) -> tuple[dict[str, Any] | None, str | None]:
    """(``header``, the rules line) with the rules :func:`load` resolved from --rules/--set:
    a ``rules`` field of every JSON record; the line once in table output (the first table
    a command prints); nothing in CSV (data only)."""
    used = _RULES_USED.get()
    if used is None or fmt == "csv":
        return (dict(header) if header else None), None
    if fmt == "table":
        _RULES_USED.set(None)
        return (dict(header) if header else None), used[1]
    return {**(header or {}), "rules": used[0]}, None


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return f"{value}"
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return str(value)
        return _number(value) if value != int(value) or abs(value) < 1 else f"{value:g}"
    return str(value)


def emit(frame: pd.DataFrame | Mapping[str, Iterable[Any]], fmt: str, *,
         title: str | None = None, header: Mapping[str, Any] | None = None) -> None:
    """Print a result frame as a table, JSON records or CSV (stdout); names from a rules file
    are printed without their control characters (:func:`balance.text.plain_text`).

    ``header``: the values the question was asked with (seed, trials, skill, best ask...):
    the table's first line (after ``title``), and columns of every JSON/CSV row. Table
    output shows fractions with :data:`DIGITS` decimals; JSON and CSV keep full precision.
    ``frame`` may be a mapping column -> values (ints, floats, strings): printed the same
    way without importing pandas, so a quick query starts fast.
    """
    if isinstance(frame, Mapping):
        columns = {k: list(v) for k, v in frame.items()}
        if columns and len({len(v) for v in columns.values()}) == 1 and \
                len(next(iter(columns.values()))) > 0:
            return _emit_columns(columns, fmt, title=title, header=header)
    import pandas as pd

    if isinstance(frame, Mapping):  # no rows, or columns of different lengths: pandas says
        frame = pd.DataFrame(frame)
    frame = frame.reset_index(drop=isinstance(frame.index, pd.RangeIndex))
    header, line = _with_rules(header, fmt)
    if header and fmt != "table":
        frame = frame.assign(**{k: [v] * len(frame) for k, v in header.items()
                                if k not in frame.columns})
    elif header or line:
        title = _titled(title, header or {}, line)
    frame = frame.rename(columns=lambda c: plain_text(c) if isinstance(c, str) else c).map(
        lambda v: plain_text(v) if isinstance(v, str) else v)
    title = plain_text(title) if title else title
    if fmt == "json":
        records = [{str(k): _plain(v) for k, v in row.items()}
                   for row in frame.to_dict(orient="records")]
        print(json.dumps(records, ensure_ascii=False, indent=2, default=str))
    elif fmt == "csv":
        sys.stdout.write(frame.to_csv(index=False))
    else:
        if title:
            print(title)
        with pd.option_context("display.max_rows", 500, "display.width", 200,
                               "display.max_columns", 50):
            shown = frame.copy()
            for col in shown.columns:
                if pd.api.types.is_float_dtype(shown[col]):  # one number format
                    shown[col] = shown[col].map(_number)
            for col in shown.columns[shown.isna().any()]:  # a missing value prints blank
                shown[col] = shown[col].astype(object).where(shown[col].notna(), "")
            print(shown.to_string(index=False))


def _kind(values: list) -> str:
    """The column type pandas would give ``values``: int, float, bool or object."""
    import numpy as np

    def every(types) -> bool:
        return all(isinstance(v, types) and not isinstance(v, (bool, np.bool_)) for v in values)

    if all(isinstance(v, (bool, np.bool_)) for v in values):
        return "bool"
    if every((int, np.integer)):
        return "int"
    if every((float, np.floating)):
        return "float"
    return "object"


def _number(v: float) -> str:
    """``v`` as tables show a fraction: :data:`DIGITS` decimals; blank if missing; a value
    that is not zero but below 0.001 (a rare total of 500d6, a campaign's 5 deaths in
    100,000) in scientific notation with three digits, so a possible outcome never reads as
    impossible and a small one is not rounded to twice its size (5e-05 was 0.0001).

    >>> _number(0.17), _number(5e-05), _number(0.00077), _number(0.0), _number(0.001)
    ('0.1700', '5.00e-05', '7.70e-04', '0.0000', '0.0010')
    """
    if v != v:
        return ""
    if 0 < abs(v) < 10 ** (1 - DIGITS):
        return f"{v:.2e}"
    return f"{v:.{DIGITS}f}" if abs(v) < 1e15 else f"{v:.4g}"


def _emit_columns(columns: dict[str, list], fmt: str, *, title: str | None,
                  header: Mapping[str, Any] | None) -> None:
    """:func:`emit` of columns of plain values, written as pandas writes them (tested)."""
    import csv
    import io

    rows = len(next(iter(columns.values())))
    header, line = _with_rules(header, fmt)
    if header and fmt != "table":
        columns.update({k: [v] * rows for k, v in header.items() if k not in columns})
    elif header or line:
        title = _titled(title, header or {}, line)
    columns = {plain_text(k): [plain_text(v) if isinstance(v, str) else v for v in values]
               for k, values in columns.items()}
    title = plain_text(title) if title else title
    if fmt == "json":
        records = [{str(k): _plain(values[i]) for k, values in columns.items()}
                   for i in range(rows)]
        print(json.dumps(records, ensure_ascii=False, indent=2, default=str))
        return
    kinds = {k: _kind(values) for k, values in columns.items()}
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        for i in range(rows):
            writer.writerow(["" if v is None or (kinds[k] == "float" and v != v) else
                             repr(float(v)) if kinds[k] == "float" else
                             str(_plain(v)) for k, v in ((k, c[i]) for k, c in columns.items())])
        sys.stdout.write(out.getvalue())
        return
    if title:
        print(title)
    cells, heads = [], []
    for k, values in columns.items():
        kind = kinds[k]
        heads.append(f" {k}" if kind in ("int", "bool") else k)  # pandas: room for a sign
        cells.append([_number(v) if kind == "float" else "" if v is None else str(_plain(v))
                      for v in values])
    widths = [max(len(h), *(len(c) for c in col)) for h, col in zip(heads, cells)]
    print(" ".join(h.rjust(w) for h, w in zip(heads, widths)))
    for i in range(rows):
        print(" ".join(col[i].rjust(w) for col, w in zip(cells, widths)))
