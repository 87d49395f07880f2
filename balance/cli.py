"""``balance``: the command line. A thin layer over the public API.

Command groups register themselves: each module of :data:`COMMAND_MODULES` exposes
``register(subparsers)``, adding subcommands whose handler (``set_defaults(func=...)``) takes
the parsed arguments and returns an exit code. Bad input exits with code 2 and one line on
stderr (``balance: error: ...``), never a traceback; any other exception is an internal error:
one line too, exit code 1 (``--debug`` or ``BALANCE_DEBUG=1`` adds the traceback).

Examples::

    balance report --lang fr
    balance death --seconds 40 --negative-hp 6 --wounds 1
    balance rules check my_variant.toml
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys
import traceback
from collections.abc import Sequence

import pandas as pd

from .report.labels import LANGS
from .text import plain_text

__all__ = ["main", "build_parser", "COMMAND_MODULES", "emit", "add_format", "add_lang",
           "add_rules", "path_arg", "trials_arg", "workers_arg", "load", "Parser"]

#: modules adding subcommands (``register(subparsers)``); an absent optional one is skipped
COMMAND_MODULES = ("balance._cli_queries", "balance._cli_rules", "balance.regression_cli")
#: command modules that may be missing (written separately): skipped when not importable
OPTIONAL_MODULES = ("balance.regression_cli",)

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
    from .budgets import MAX_TRIALS

    return _whole(text, MAX_TRIALS, "the trials budget")


def workers_arg(text: str) -> int:
    """argparse ``type=`` of ``--workers``: a whole number of processes, at most the cores
    this machine lets the command use."""
    from .budgets import max_workers

    return _whole(text, max_workers(), "the cores of this machine")


def add_rules(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rules", action="append", default=[], metavar="FILE",
                   type=path_arg,
                   help="variant rules file, or the name of a bundled variant "
                        "(repeatable, applied in order; default: the bundled rules)")


def load(files: Sequence[str]):
    """The rules of ``--rules`` (bundled defaults when none)."""
    from .rules import load_rules

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


def _report(args) -> int:
    from .report import build_report

    import time
    from pathlib import Path

    from .report.build import report_name

    start = time.perf_counter()
    files = args.rules
    out = args.out or Path("reports") / report_name(files[-1] if files else None)
    rules = load(files) if files else None
    path = build_report(rules, out=out, lang=args.lang, trials=args.trials, seed=args.seed,
                        workers=args.workers, progress=False if args.quiet else None,
                        topics=args.sections, force=args.force,
                        what="--out")  # the default folder is --out too
    print(f"{path / 'index.html'}  ({time.perf_counter() - start:.1f} s)")
    return 0


def _register_report(sub) -> None:
    from .report.bundle import DEFAULT_SEED, DEFAULT_TRIALS
    from .report.topics import TOPICS

    p = sub.add_parser(
        "report", help="write the balance report (HTML + Markdown) of a rule set",
        description="Compute every section (exact answers and Monte Carlo figures with their "
                    "intervals) and write index.html (self-contained, opens offline), "
                    "report.md and figures/ into a folder, atomically.")
    add_rules(p)
    p.add_argument("--out", metavar="DIR", type=path_arg,
                   help="report folder: absent, empty or an earlier report (default: "
                        "reports/<rules file stem> or reports/default)")
    p.add_argument("--force", action="store_true",
                   help="write into a folder holding other files: only the report's own "
                        "files are replaced, the others stay")
    add_lang(p, "language of the report")
    p.add_argument("--trials", type=trials_arg, default=DEFAULT_TRIALS,
                   help=f"Monte Carlo trials per simulated quantity (default {DEFAULT_TRIALS:,})")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED,
                   help=f"seed of every Monte Carlo figure (default {DEFAULT_SEED})")
    p.add_argument("--workers", type=workers_arg, default=1,
                   help="worker processes (default 1, at most the machine's cores)")
    p.add_argument("--sections", nargs="+", choices=TOPICS, metavar="SECTION",
                   help=f"only these sections ({', '.join(TOPICS)}; default: all)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_report)


def _register_bench(sub) -> None:
    sub.add_parser("bench", add_help=False,
                   help="benchmark the vectorised kernels on this machine "
                        "(see 'balance bench --help')")


def build_parser() -> Parser:
    """The full ``balance`` parser with every available command group."""
    from . import __version__

    parser = Parser(prog="balance", description="What tabletop-RPG rules really do: exact "
                    "answers, Monte Carlo simulations with intervals, balance reports.",
                    epilog="Run 'balance COMMAND --help' for the options of a command.")
    parser.add_argument("--version", action="version", version=f"balance {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="on an error, print the Python traceback too (also BALANCE_DEBUG=1)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    _register_report(sub)
    _register_bench(sub)
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if name in OPTIONAL_MODULES and exc.name == name:
                continue
            raise
        module.register(sub)
    return parser


def _debug(argv: Sequence[str]) -> bool:
    """``--debug`` given (before the command) or ``BALANCE_DEBUG`` set to anything but 0."""
    import os

    return "--debug" in argv or os.environ.get("BALANCE_DEBUG", "0").strip() not in ("", "0")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``balance`` console script; returns the exit code.

    Exit codes: 0 success; 2 bad input (``balance: error: <one line>``: a ValueError,
    RulesError, KeyError or OSError naming what to fix); 1 an internal error (any other
    exception, also one line, pointing to ``--debug``); 130 interrupted (Ctrl-C).
    ``--debug`` (or ``BALANCE_DEBUG=1``) prints the traceback before the line.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = _debug(argv)
    try:
        return _main(argv)
    except KeyboardInterrupt:
        if debug:
            traceback.print_exc()
        print("balance: interrupted", file=sys.stderr)
        return 130
    except (ValueError, KeyError, OSError) as exc:  # RulesError is a ValueError
        if debug:
            traceback.print_exc()
        print(f"balance: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except Exception as exc:  # the last resort: a bug, not the user's input
        if debug:
            traceback.print_exc()
        hint = "" if debug else " (run with --debug for the traceback)"
        print(f"balance: error: internal error: {type(exc).__name__}: {one_line(exc)}{hint}",
              file=sys.stderr)
        return 1


def _main(argv: list[str]) -> int:
    plain = argv[1:] if argv[:1] == ["--debug"] else argv
    if plain and plain[0] == "bench":
        from . import bench

        return bench.main(plain[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2 if not argv else 0
    try:
        code = args.func(args)
    except BrokenPipeError:  # pragma: no cover - output piped into e.g. head
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return 0 if code is None else int(code)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
