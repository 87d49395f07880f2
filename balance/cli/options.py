"""What every ``balance`` command shares: the parser that fails in one line, the options
(``--format``, ``--lang``, ``--rules``, trials, workers, paths) and the printing of tables."""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

import pandas as pd

from ..labels import LANGS
from ..text import plain_text

__all__ = ["FORMATS", "Parser", "one_line", "add_format", "add_lang", "path_arg", "trials_arg",
           "workers_arg", "add_rules", "load", "emit"]


FORMATS = ("table", "json", "csv")


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``balance: error: ...`` and exit code 2."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"balance: error: {message} (see '{self.prog} --help')\n")


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


def workers_arg(text: str) -> int:
    """argparse ``type=`` of ``--workers``: a whole number of processes, at most the cores
    this machine lets the command use."""
    from ..budgets import max_workers

    return _whole(text, max_workers(), "the cores of this machine")


def add_rules(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rules", action="append", default=[], metavar="FILE",
                   type=path_arg,
                   help="variant rules file, or the name of a bundled variant "
                        "(repeatable, applied in order; default: the bundled rules)")


def load(files: Sequence[str]):
    """The rules of ``--rules`` (bundled defaults when none)."""
    from ..rules import load_rules

    return load_rules(*files)


def _plain(value):
    if isinstance(value, float) and value != value:
        return None
    if hasattr(value, "item"):
        return _plain(value.item())
    return value


def emit(frame: pd.DataFrame, fmt: str, *, title: str | None = None) -> None:
    """Print a result frame as a table, JSON records or CSV (stdout); names from a rules file
    are printed without their control characters (:func:`balance.text.plain_text`)."""
    frame = frame.reset_index(drop=isinstance(frame.index, pd.RangeIndex))
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
            for col in shown.columns[shown.isna().any()]:  # a missing value prints blank
                shown[col] = shown[col].astype(object).where(shown[col].notna(), "")
            print(shown.to_string(index=False))
