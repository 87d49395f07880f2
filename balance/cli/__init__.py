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
import sys
import traceback
from collections.abc import Sequence

from ..errors import RulesError
from .options import (Parser, add_format, add_lang, add_rules, as_options, emit,
                      forget_rules, load, one_line, path_arg, rule_files, trials_arg,
                      workers_arg)

__all__ = ["main", "build_parser", "COMMAND_MODULES", "emit", "add_format", "add_lang",
           "add_rules", "path_arg", "trials_arg", "workers_arg", "load", "Parser"]

#: modules adding subcommands (``register(subparsers)``); an absent optional one is skipped
COMMAND_MODULES = ("balance.cli.queries", "balance.cli.rules", "balance.cli.regression",
                   "balance.cli.dice", "balance.cli.matches", "balance.cli.tuning")
#: command modules that may be missing (written separately): skipped when not importable
OPTIONAL_MODULES = ("balance.cli.regression",)

def _report(args) -> int:
    from ..report import build_report

    import time
    from pathlib import Path

    start = time.perf_counter()
    entries = args.rules  # --rules files and --set values, in the order given
    rules = load(entries) if entries else None
    out = args.out or Path("reports") / report_folder(entries, rules)
    baseline = None
    if args.baseline:
        from ..report.bundle import resolve_baseline
        baseline = resolve_baseline(args.baseline)  # a bad file fails before any work
    from ..budgets import max_workers

    workers = max_workers() if args.workers is None else args.workers
    path = build_report(rules, out=out, lang=args.lang, trials=args.trials, seed=args.seed,
                        workers=workers, progress=False if args.quiet else None,
                        topics=args.sections, force=args.force,
                        what="--out", baseline=baseline)  # the default folder is --out too
    print(f"{path / 'index.html'}  (seed {args.seed}, {args.trials:,} trials; "
          f"{time.perf_counter() - start:.1f} s)")
    return 0


def report_folder(entries: Sequence[str], rules) -> str:
    """The default folder of ``balance report`` under ``reports/``: ``default`` (the bundled
    rules), the rules file's stem (one ``--rules`` file: rerun it after editing the file and
    its report is brought up to date), else the files' stems joined by ``+`` (``variant``
    for ``--set`` alone) and the ``rules``' fingerprint: every house rule tried with
    ``--set`` has its own folder, so a second one never replaces the first one's report."""
    from ..report.build import report_name

    files = rule_files(entries)
    if not entries:
        return "default"
    if len(entries) == 1 and files:
        return report_name(files[0])
    stems = "+".join(report_name(f) for f in files) if files else "variant"
    return f"{stems[:100]}-{rules.fingerprint}"


def _register_report(sub) -> None:
    from ..report.bundle import DEFAULT_SEED, DEFAULT_TRIALS
    from ..report.topics import TOPICS

    p = sub.add_parser(
        "report", help="write the balance report (HTML + Markdown) of a rule set",
        description="Compute every section (exact answers and Monte Carlo figures with their "
                    "intervals) and write index.html (self-contained, opens offline), "
                    "report.md and figures/ into a folder, atomically. A variant (--rules) is "
                    "compared with the bundled rules, or with --baseline: the report opens "
                    "with what it changes.")
    add_rules(p)
    p.add_argument("--out", metavar="DIR", type=path_arg,
                   help="report folder: absent, empty or an earlier report (default: "
                        "reports/default, reports/<rules file stem> for one --rules file, "
                        "else reports/<stems or 'variant'>-<rules fingerprint>: one folder "
                        "per variant)")
    p.add_argument("--force", action="store_true",
                   help="write into a folder holding other files: only the report's own "
                        "files are replaced, the others stay")
    add_lang(p, "language of the report")
    p.add_argument("--trials", type=trials_arg, default=DEFAULT_TRIALS,
                   help=f"Monte Carlo trials per simulated quantity (default {DEFAULT_TRIALS:,})")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED,
                   help=f"seed of every Monte Carlo figure (default {DEFAULT_SEED})")
    p.add_argument("--workers", type=workers_arg, default=None,
                   help="worker processes: the sections are computed and drawn side by side "
                        "(default: the machine's cores; the numbers do not depend on it)")
    p.add_argument("--baseline", metavar="FILE|SNAPSHOT", type=path_arg,
                   help="compare the rules with these: a rules file, a bundled variant's name "
                        "or a snapshot (.json, 'balance snapshot'); default: the bundled rules")
    p.add_argument("--sections", nargs="+", choices=TOPICS, metavar="SECTION",
                   help=f"only these sections ({', '.join(TOPICS)}; default: all)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_report)


def _register_bench(sub) -> None:
    sub.add_parser("bench", add_help=False,
                   help="benchmark the vectorised kernels on this machine "
                        "(see 'balance bench --help')")


def build_parser(command: str | None = None) -> Parser:
    """The full ``balance`` parser with every available command group.

    ``command``: the command about to run; the report's options (which import the report
    package: pandas, matplotlib) are only registered for ``report`` or when None, so a
    query starts fast. Any other command sees a placeholder ``report``."""
    from .. import __version__

    parser = Parser(prog="balance", description="What tabletop-RPG rules really do: exact "
                    "answers, Monte Carlo simulations with intervals, balance reports.",
                    epilog="Run 'balance COMMAND --help' for the options of a command.")
    parser.add_argument("--version", action="version", version=f"balance {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="on an error, print the Python traceback too (also BALANCE_DEBUG=1)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    if command in (None, "report"):
        _register_report(sub)
    else:
        sub.add_parser("report", add_help=False, help="write the balance report")
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
        from .bench import main as bench_main

        return bench_main(plain[1:])
    parser = build_parser(plain[0] if plain and not plain[0].startswith("-") else None)
    if plain and plain[0].startswith("-"):
        _misplaced(plain, parser)  # balance --lang fr death: one line saying where it goes
    args = parser.parse_args(argv)
    forget_rules()  # a command names only the rules it loaded itself
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2 if not argv else 0
    try:
        code = args.func(args)
    except BrokenPipeError:  # pragma: no cover - output piped into e.g. head
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except ValueError as exc:  # a library's parameter name -> the command's option
        text = one_line(exc)
        named = text if isinstance(exc, RulesError) else \
            as_options(text, _command_parser(parser, args.func))
        if named != text:
            raise ValueError(named) from exc
        raise
    finally:  # nor does what runs after it in the same process (a notebook, a test)
        forget_rules()
    return 0 if code is None else int(code)


#: the options of ``balance`` itself (before the command); every other option is a command's
GLOBAL_OPTIONS = ("-h", "--help", "--version", "--debug")


def _misplaced(argv: list[str], parser: argparse.ArgumentParser) -> None:
    """Refuse a command's option given before the command (``balance --lang fr death``) in
    one line naming where it goes: ``balance death --lang fr ...``."""
    option = argv[0].partition("=")[0]
    if option in GLOBAL_OPTIONS:
        return
    commands = _subcommands(parser)
    at = next((i for i, a in enumerate(argv) if a in commands), None)
    if at is None:
        raise ValueError(f"{option} is an option of a command: put it after the command, e.g. "
                         f"'balance COMMAND {' '.join(argv)}' (see 'balance --help')")
    command = argv[at]
    takes = any(option in a.option_strings for a in commands[command]._actions)
    if not takes:
        raise ValueError(f"{option} is an option of a command, given after it, and 'balance "
                         f"{command}' has none (see 'balance {command} --help')")
    raise ValueError(f"{option} goes after the command: 'balance {command} "
                     f"{' '.join(argv[:at] + argv[at + 1:])}' (see 'balance {command} --help')")


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    return {name: p for a in parser._actions if isinstance(a, argparse._SubParsersAction)
            for name, p in a.choices.items()}


def _command_parser(parser: argparse.ArgumentParser, func) -> argparse.ArgumentParser:
    """The (sub)parser of the command whose handler is ``func``."""
    todo = [parser]
    while todo:
        p = todo.pop()
        if p._defaults.get("func") is func:
            return p
        todo.extend(c for a in p._actions if isinstance(a, argparse._SubParsersAction)
                    for c in a.choices.values())
    return parser


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
