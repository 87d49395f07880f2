"""Run the ``balance`` command line in-process, the way the tests read it."""
from __future__ import annotations

import argparse
import contextlib
import copy
import io
import sys

from balance import cli

#: ``balance.cli.build_parser`` as the package defines it (a test may replace it)
_BUILD = cli.build_parser
#: parsers built for in_process, by (with the report's options, the command modules)
_PARSERS: dict[tuple, tuple[argparse.ArgumentParser, list]] = {}


def _parsers(parser: argparse.ArgumentParser):
    """The parser and all its subparsers."""
    todo = [parser]
    while todo:
        p = todo.pop()
        yield p
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                todo.extend(action.choices.values())


def _state(parser: argparse.ArgumentParser) -> list:
    """Every mutable default (``default=[0]``) of a parser, as built: what running a command
    could change in a parser it reuses."""
    return [(a, copy.deepcopy(a.default)) for p in _parsers(parser) for a in p._actions
            if isinstance(a.default, (list, dict, set))]


def _unchanged(parser: argparse.ArgumentParser, state: list) -> bool:
    """No mutable default changed, and every command function is still the one its module
    holds (a test that monkeypatches a command gets a fresh parser)."""
    for p in _parsers(parser):
        func = p._defaults.get("func")
        if func is not None and \
                getattr(sys.modules.get(func.__module__), func.__name__, None) is not func:
            return False
    return all(a.default == default for a, default in state)


def _build(command: str | None = None) -> argparse.ArgumentParser:
    """``build_parser(command)``, built once and reused: building the whole parser (some 300
    options) costs more than most commands the tests run. The only difference it makes
    between commands is whether the report's options are there."""
    key = (command in (None, "report"), tuple(cli.COMMAND_MODULES))
    if key not in _PARSERS:
        parser = _BUILD(command)
        _PARSERS[key] = (parser, _state(parser))
    return _PARSERS[key][0]


@contextlib.contextmanager
def reused_parser():
    """Within: ``balance.cli.main`` reuses the parser :func:`_build` keeps (unless a test
    replaced ``build_parser``); after: a parser a command changed (a mutable default, a
    monkeypatched command function) is dropped, so the next command gets a fresh one."""
    reuse = cli.build_parser is _BUILD
    if reuse:
        cli.build_parser = _build
    try:
        yield
    finally:
        if reuse:
            cli.build_parser = _BUILD
            for key, (parser, state) in list(_PARSERS.items()):
                if not _unchanged(parser, state):
                    del _PARSERS[key]


def in_process(*argv) -> tuple[int, str, str]:
    """``balance ARGV...`` in this process: (exit code, stdout, stderr); argparse's own
    errors (a SystemExit) give their exit code too. The parser is built once
    (:func:`reused_parser`)."""
    out, err = io.StringIO(), io.StringIO()
    with reused_parser(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main([str(a) for a in argv])
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def one_error(*argv) -> str:
    """The one ``balance: error:`` line of a refused command (exit code 2)."""
    code, out, err = in_process(*argv)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("balance: error: "), \
        (code, out, err)
    return lines[0]
