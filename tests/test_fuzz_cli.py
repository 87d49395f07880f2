"""CLI fuzzing (issue 10 item 3, issue 11 "Tests"): every subcommand x every option x hostile
values. A refusal is exit code 2 with exactly one ``balance: error:`` line on stderr (any other
line must be a ``balance:`` advice), no traceback, and no file left behind in the working folder
(a user's files there untouched). Values a command may legitimately answer are listed per
option kind (:data:`KINDS`): those must succeed (``ok``) or may either succeed or be refused
cleanly (``either``).

The table is built from ``balance.cli.build_parser()``: a new subcommand or option is fuzzed
automatically once its kind is named in :data:`KIND_OF` (``test_every_option_has_a_kind``
fails until then) and the command has a cheap invocation in tests/cli_table.py.

Most cases run in-process (``balance.cli.main``) under a 30 s alarm; the heavy ones (huge trials
and workers, huge dice, rules inside [limits] that are expensive) in subprocesses under
``RLIMIT_AS`` 2 GiB and ``RLIMIT_CPU`` 20 s.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from balance.cli import main
from cli_run import reused_parser
from cli_table import BASE, BENCH_OPTIONS, ONE_METRIC, commands

HUGE = "1000000000000000000"
MISSING = None  # the option given last, without its value
NUMBERS = ["-1", "0", "1e18", HUGE, "nan", "inf", "-inf", "", "abc", "é☃"]
TEXT = ["", "abc", "é☃", "\x1b[2J\x00", MISSING]

#: option kind -> (hostile values, values that must succeed, values that may succeed)
KINDS: dict[str, tuple[list, set, set]] = {
    "count": (NUMBERS + [MISSING], set(), set()),               # >= 1, bounded by a budget
    "natural": (NUMBERS + [MISSING], {"0"}, {HUGE}),            # >= 0
    "signed": (NUMBERS + [MISSING], {"-1", "0"}, {HUGE}),       # any integer
    "skill": (NUMBERS + [MISSING], {"0"}, {"-1", HUGE}),        # a percentage
    "positive_float": (NUMBERS + [MISSING], set(), {"1e18", HUGE}),
    "alpha": (NUMBERS + ["1", "0.999999999999999999", MISSING], set(), set()),  # 0 < a < 1
    "name": (TEXT + ["-1", "0"], set(), set()),
    "choice": (TEXT, set(), set()),
    "path_in": (TEXT + [".", "/dev/null", "missing.toml"], set(), set()),
    "path_out": (["", ".", "..", "notes", "notes/thesis.txt", "mine.txt", MISSING], set(),
                 set()),                                       # never replaces a user's file
    "csv_out": (["", ".", "..", "notes", MISSING], set(), {"mine.txt", "notes/thesis.txt"}),
    "pattern": (TEXT, set(), set()),
    "dice_number": (NUMBERS + ["1d0", "0d6", "-1d6", "2d6+", MISSING], {"0"}, {"1e18"}),  # >= 0
    "dice_count": (NUMBERS + ["1d0", "0d6", "-1d6", "2d6+", MISSING], set(), {"1e18"}),  # >= 1
    "natural_either": (NUMBERS + [MISSING], set(), {"0", HUGE}),  # >= 0; 0 may be refused
    "segment": (["-1", "", "abc", "é☃", "8", "-1:15", "8:abc", "8:nan", "nan:15", "8:",
                 "8:-99999999999999999999", f"{HUGE}:15"], {"0:15"}, {f"8:{HUGE}"}),
    "ratio": (["-1", "0", "1/0", "-1/2", "nan", "inf", "", "abc", "é☃", "1e18", HUGE], set(),
              {"0", "1e18", HUGE}),
    "tol": (["", "abc", "x=1", f"{ONE_METRIC}=nan", f"{ONE_METRIC}=-1", f"{ONE_METRIC}=inf",
             "nope=0.1", MISSING], set(), set()),
    "section": (["abc", "é☃", "injuries.die.x", "\x1b[2J"], set(), {""}),
    "dice_expr": (NUMBERS + ["1d0", "0d6", "2d6+", "4d6kx3", "1d1!", "1000d1000!"],
                  {"-1", "0"}, set()),
    "fraction": (NUMBERS + [MISSING, "1.5"], {"0"}, set()),   # a probability 0..1
    "skill_pair": (NUMBERS + [MISSING], {"0"}, {"-1", HUGE, MISSING}),  # two positionals
    "real": (NUMBERS + [MISSING], {"-1", "0"}, {"1e18", HUGE}),  # any finite number
}

#: (command, dest) -> kind; a dest alone applies to every command
KIND_OF = {
    "trials": "count", "workers": "count", "seed": "natural", "rules": "path_in",
    "format": "choice", "lang": "choice", "sections": "choice", "action": "choice",
    "out": "path_out", "csv": "csv_out", "html": "csv_out",
    "tolerances": "path_in", "baseline": "path_in", "files": "path_in", "base": "path_in",
    "variant": "path_in", "only": "pattern", "tol": "tol", "alpha": "alpha",
    ("death", "seconds"): "natural", ("death", "negative_hp"): "count",
    ("death", "wounds"): "natural",
    ("injuries", "seconds"): "natural", ("injuries", "negative_hp"): "count",
    ("injuries", "wounds"): "natural",
    ("test", "characteristic"): "signed", ("test", "modifier"): "signed",
    ("negotiate", "psychology"): "signed", ("negotiate", "ask"): "positive_float",
    ("negotiate", "modifier"): "signed",
    ("treat", "cunning"): "signed", ("treat", "injury"): "name", ("treat", "level"): "name",
    ("rescue", "arrival"): "dice_number", ("rescue", "negative_hp"): "dice_count",
    ("rescue", "wounds"): "natural", ("rescue", "action_ap"): "natural_either",
    ("rescue", "heal"): "count",
    ("rest", "segments"): "segment", ("rest", "hp"): "signed",
    ("rest", "max_hp"): "natural_either",
    ("calibrate", "ratios"): "ratio", ("calibrate", "pcs"): "count",
    ("fight", "creatures"): "name", ("fight", "party"): "name", ("fight", "level"): "count",
    ("charisma", "price"): "natural", ("charisma", "charisma"): "signed",
    ("charisma", "difficulty"): "signed",
    ("tiers", "skill"): "skill", ("tiers", "grade"): "name",
    ("opposed", "first"): "skill", ("opposed", "second"): "skill",
    ("opposed", "first_grade"): "name", ("opposed", "second_grade"): "name",
    ("rules show", "section"): "section",
    ("rules export", "key"): "section", ("rules import", "key"): "section",
    ("rules import", "file"): "path_in", "plot": "csv_out",
    ("dice", "expression"): "dice_expr",
    ("duel", "skill"): "skill_pair", ("duel", "other_skill"): "skill_pair", ("duel", "weapon"): "name",
    ("duel", "armour"): "natural", ("duel", "shield"): "name", ("duel", "other_weapon"): "name",
    ("duel", "other_shield"): "name", ("duel", "other_armour"): "natural",
    ("duel", "surprise"): "choice", ("duel", "charge"): "choice", ("duel", "policy"): "name",
    ("duel", "other_policy"): "name",
    ("weapons", "skill"): "skill", ("weapons", "against"): "skill",
    ("weapons", "weapons"): "name", ("weapons", "armour"): "natural",
    ("campaign", "fights"): "count", ("campaign", "knockout_chance"): "fraction",
    ("campaign", "negative_hp"): "dice_count", ("campaign", "arrival"): "dice_number",
    ("campaign", "cunning"): "signed", ("campaign", "hours_between"): "natural",
    ("campaign", "policy"): "choice",
    ("bench", "only"): "name",
    ("tune", "metric"): "name", ("tune", "target"): "real", ("tune", "vary"): "name",
    ("tune", "bounds"): "choice", ("tune", "save"): "path_out",
    ("sensitivity", "metric"): "name", ("sensitivity", "vary"): "name",
    ("sensitivity", "method"): "choice", ("sensitivity", "step"): "positive_float",
    ("sensitivity", "n"): "count",
    ("recalibrate", "levels"): "count", ("recalibrate", "model"): "choice",
    ("recalibrate", "save"): "path_out", ("recalibrate", "families"): "name",
    ("recalibrate", "held_out"): "name",
}

#: heavy cases (option, value), run in a subprocess under resource limits
HEAVY_VALUES = {HUGE, f"{HUGE}:15", f"8:{HUGE}"}
HEAVY_OPTIONS = {"trials", "workers", "arrival", "negative_hp", "segments", "ap", "action_ap"}
EXTRA_HEAVY = [
    ["rescue", "--arrival", "1000000d1000000", "--trials", "1000"],
    ["rescue", "--negative-hp", "100000d100000", "--trials", "1000"],
    ["rescue", "--arrival", "99999999999999999999999999", "--trials", "1000"],
    ["injuries", "--seconds", "10", "--negative-hp", "3", "--trials", HUGE, "--workers", HUGE],
    ["rescue", "--arrival", "1000d10000", "--trials", "1000"],   # dice at the budgets
    ["rescue", "--arrival", "1000d1000", "--negative-hp", "1000d1000", "--trials", "1000"],
    ["injuries", "--seconds", "10", "--negative-hp", "3", "--trials", "1000",
     "--workers", str((os.cpu_count() or 1) + 1)],
]


def kind_of(path: tuple, dest: str) -> str | None:
    return KIND_OF.get((" ".join(path), dest), KIND_OF.get(dest))


def value_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The actions taking a value (flags and --help have nothing to fuzz)."""
    return [a for a in parser._actions if a.nargs != 0 and not isinstance(
        a, (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction))]


def _with(path: tuple, action: argparse.Action | str, value) -> list[str]:
    """The command's cheap invocation with one option (or positional) set to ``value``."""
    args = list(BASE[path])
    option = action if isinstance(action, str) else (action.option_strings or [None])[0]
    if option is None:  # a positional: replace the first one BASE gives
        positionals = [i for i, a in enumerate(args) if not a.startswith("--")
                       and (i == 0 or not args[i - 1].startswith("--"))]
        index = _positional_index(path, action)
        if value is MISSING:
            del args[positionals[index]]
        else:
            args[positionals[index]] = value
        return list(path) + args
    if option in args:  # drop its current value(s)
        i = args.index(option)
        j = i + 1
        while j < len(args) and not args[j].startswith("--"):
            j += 1
        del args[i:j]
    return list(path) + args + ([option] if value is MISSING else [option, value])


def _positional_index(path: tuple, action: argparse.Action) -> int:
    positionals = [a for a in commands()[path]._actions
                   if not a.option_strings and a.nargs != 0
                   and not isinstance(a, argparse._SubParsersAction)]
    return positionals.index(action)


def cases() -> list:
    out = []
    table = commands()
    for path, parser in table.items():
        actions = value_actions(parser) if path != ("bench",) else \
            [o for o, kind in BENCH_OPTIONS.items() if kind]
        for action in actions:
            dest = action if isinstance(action, str) else action.dest
            dest = dest.lstrip("-").replace("-", "_")
            kind = kind_of(path, dest)
            if kind is None:
                continue  # test_every_option_has_a_kind names it
            hostile, ok, either = KINDS[kind]
            for value in hostile + sorted((ok | either) - set(hostile)):
                argv = _with(path, action, value)
                heavy = dest in HEAVY_OPTIONS and (
                    value in HEAVY_VALUES or kind.startswith("dice") and value == "1e18")
                expect = "ok" if value in ok else "either" if value in either else "refused"
                out.append(pytest.param(argv, expect, heavy,
                                        id=f"{' '.join(path)} {dest}={value!r}"))
        # no option is skipped: a flag given a value, and an option that does not exist
        flags = [a.option_strings[0] for a in parser._actions if a.nargs == 0 and
                 a.option_strings and not isinstance(a, argparse._HelpAction)] \
            if path != ("bench",) else [o for o, kind in BENCH_OPTIONS.items() if not kind]
        for flag in flags + ["--no-such-option"]:
            out.append(pytest.param(list(path) + BASE[path] + [f"{flag}=abc"], "refused",
                                    False, id=f"{' '.join(path)} {flag}=abc"))
    for argv in (["no-such-command"], ["--no-such-option"], ["é☃"], [""], ["rules"]):
        out.append(pytest.param(argv, "refused", False, id=f"balance {argv}"))
    return out


CASES = cases()


def test_every_option_has_a_kind():
    missing = [f"{' '.join(path)} {a.dest}" for path, parser in commands().items()
               if path != ("bench",) for a in value_actions(parser)
               if kind_of(path, a.dest) is None]
    assert not missing, f"name the kind of these options in KIND_OF: {missing}"
    assert set(commands()) == set(BASE), "give each command a cheap invocation in BASE"


def test_bench_options_listed():
    code, out, _ = run_inprocess(["bench", "--help"])
    import re
    assert code == 0 and set(re.findall(r"--[a-z][a-z-]+", out)) - {"--help"} == \
        set(BENCH_OPTIONS)


def test_the_base_invocations_succeed(user_files, baseline):
    for path in BASE:
        if path == ("bench",):
            continue  # timed kernels: seconds, run once in test_bench (tests/test_cli.py)
        argv = [a.replace("{baseline}", baseline) for a in list(path) + BASE[path]]
        code, _, err = run_inprocess(argv)
        assert code in (0, 1) and "Traceback" not in err, (argv, code, err)


# --- running one case ---------------------------------------------------------------------------
class Hang(BaseException):
    """Raised by the alarm: an in-process case ran past its time."""


def _alarm(signum, frame):
    raise Hang("still running after 30 s")


def run_inprocess(argv: list[str], seconds: float = 30) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        with reused_parser(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 2
            except Hang:
                raise
            except BaseException as exc:  # what the console script would show as a traceback
                import traceback
                err.write("Traceback (uncaught in main):\n" + "".join(
                    traceback.format_exception_only(type(exc), exc)))
                code = "exception"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return code, out.getvalue(), err.getvalue()


def _limits():  # pragma: no cover - runs in the child
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    resource.setrlimit(resource.RLIMIT_CPU, (20, 20))


def run_limited(argv: list[str], cwd: Path) -> tuple[int, str, str]:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONWARNINGS="")
    try:
        proc = subprocess.run([sys.executable, "-m", "balance", *argv], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=180, preexec_fn=_limits)
    except subprocess.TimeoutExpired:  # the CPU limit is the bound; wall time only a backstop
        return "timeout (180 s wall)", "", ""
    code = proc.returncode
    if code < 0:
        code = f"killed by signal {signal.Signals(-code).name} (resource limit)"
    return code, proc.stdout, proc.stderr


def check(argv, expect, code, err: str) -> None:
    lines = err.splitlines()
    assert "Traceback" not in err, f"traceback: {argv}: {err[-500:]}"
    assert all(line.startswith("balance: ") for line in lines), f"stray stderr: {argv}: {err}"
    errors = [line for line in lines if line.startswith("balance: error:")]
    if expect == "ok":
        assert code in (0, 1) and not errors, (argv, code, err)
    elif expect == "either":
        assert code in (0, 1) and not errors or code == 2 and len(errors) == 1, (argv, code, err)
    else:
        assert code == 2 and len(errors) == 1, f"not refused: {argv}: exit {code}: {err}"


# --- the working folder: a user's files that must survive ------------------------------------
USER_FILES = {"mine.txt": "my notes\n", "notes/thesis.txt": "chapter 1\n"}


def _listing(folder: Path) -> dict:
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*"))}


@pytest.fixture
def user_files(tmp_path, monkeypatch) -> Path:
    for name, text in USER_FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("argv, expect, heavy", CASES)
def test_hostile_value(argv, expect, heavy, user_files, baseline):
    argv = [a.replace("{baseline}", baseline) for a in argv]
    before = _listing(user_files)
    code, _, err = run_limited(argv, user_files) if heavy else run_inprocess(argv)
    check(argv, expect, code, err)
    if code == 2:
        assert _listing(user_files) == before, f"files changed by a refused command: {argv}"


@pytest.mark.parametrize("argv", EXTRA_HEAVY, ids=" ".join)
def test_heavy_inputs_bounded(argv, user_files):
    """Huge dice and arrival times: answered or refused within 2 GiB and 20 s of CPU."""
    code, _, err = run_limited(argv, user_files)
    check(argv, "either", code, err)


HEAVY_RULES = {
    "percentile die 10000": "[percentile]\ndie = 10000\n",
    "humans STR 1000d10000": '[percentile.humans]\nSTR = "1000d10000"\n',
    "injury table of 99,999 rows": "[injuries]\ndeath_threshold = 100000\ntable = [" + ", ".join(
        f'{{ low = {i}, high = {i}, modifier = 0, en = "I{i}" }}' for i in range(1, 100000))
        + "]\n",
}


HEAVY_RULES.update({
    "injury table of 1,000 rows, d100000": "[injuries]\ndie = 100000\ndeath_threshold = 100000\n"
    "automatic_death_seconds = 100000\ntable = [" + ", ".join(
        f'{{ low = {1 + 100 * i}, high = {100 * (i + 1)}, modifier = -100, en = "I{i}", '
        f'fr = "B{i}" }}' for i in range(999))
    + ', { low = 99901, modifier = -100, en = "I999", fr = "B999" }]\n',
    # the largest die under the grid budget (a lookup of 10 x die x die cells)
    "percentile die 1400": "[percentile]\ndie = 1400\n[percentile.contest]\nskill_cap = 1400\n",
    "humans STR 30d1000": '[percentile.humans]\nSTR = "30d1000"\n'
    "[percentile.characteristics]\nmaximum = 100000\n",
})
HEAVY_COMMANDS = {
    "percentile die 10000": ["tiers", "65"],
    "humans STR 1000d10000": ["report", "--sections", "percentile", "--trials", "200", "--quiet",
                              "--out", "r"],
    "injury table of 99,999 rows": ["snapshot", "--out", "s.json", "--trials", "200"],
    "injury table of 1,000 rows, d100000": ["snapshot", "--out", "s.json", "--trials", "200"],
    "percentile die 1400": ["opposed", "1400", "700"],
    "humans STR 30d1000": ["report", "--sections", "percentile", "--trials", "200", "--quiet",
                             "--out", "r"],
}


@pytest.mark.parametrize("variant", sorted(HEAVY_RULES))
def test_expensive_rules_inside_limits_bounded(variant, user_files):
    """Rules inside [limits] that cost the most: answered or refused, bounded."""
    (user_files / "heavy.toml").write_text(HEAVY_RULES[variant], encoding="utf-8")
    argv = HEAVY_COMMANDS[variant] + ["--rules", "heavy.toml"]
    code, _, err = run_limited(argv, user_files)
    check(argv, "either", code, err)


def test_fifo_output_refused(user_files):
    """An output path that is a FIFO is refused, not opened (it would block) nor replaced."""
    os.mkfifo(user_files / "pipe")
    for argv in (["snapshot", "--out", "pipe", "--force", "--trials", "200", "--only",
                  ONE_METRIC],
                 ["diff", "bundled", "death_threshold_180", "--trials", "200", "--only",
                  ONE_METRIC, "--csv", "pipe"],
                 ["report", "--sections", "death", "--trials", "1000", "--quiet", "--out",
                  "pipe"]):
        code, _, err = run_limited(argv, user_files)
        check(argv, "refused", code, err)
        assert (user_files / "pipe").is_fifo(), argv
