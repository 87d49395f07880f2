"""A quick answer imports no pandas, scipy, matplotlib or numba (issue 14: a query starts fast;
issue 16: the first exact answers in a fresh process).

One subprocess (a fresh interpreter is the only place the imports show) runs the library
calls and the ``death``/``tiers``/``dice`` commands and reports what got imported; no timing here
(the figures are in docs/explanation/performance.md). The pandas-free table printer is
checked against pandas itself, in process.
"""
from __future__ import annotations

import contextlib
import io
import json
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from balance.cli.options import emit

HEAVY = ("pandas", "scipy", "matplotlib", "numba")

SCRIPT = r"""
import contextlib, io, json, sys
HEAVY = %r
seen = {}
def note(step):
    seen[step] = [m for m in HEAVY if m in sys.modules]
import balance as bl
note("import balance")
p = bl.injuries.death_probability(seconds=40, negative_hp=6, wounds=1)
note("death_probability")
from balance.cli import main
out = {}
for name, argv in {"death": ["death", "--seconds", "40", "--negative-hp", "6", "--wounds", "1",
                             "--format", "json"],
                   "tiers": ["tiers", "65", "--format", "json"],
                   "dice": ["dice", "4d6kh3", "--format", "json"]}.items():
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(argv)
    out[name] = (code, json.loads(buf.getvalue()))
    note(name)
three = bl.dice.parse("3d6")
mean, low, high = three.mean, three.min, three.max
note("dice.parse")
dist = bl.dice.distribution("3d6")  # numpy inside: no pandas
ten, tail = dist[10], dist.at_least(15)
note("dice.distribution")
series = dist.to_series()  # a pandas Series: the caller asked for one
note("to_series")
print(json.dumps({"seen": seen, "p": float(p), "out": out,
                  "three": [mean, low, high, ten, float(series.loc[10]), tail]}))
""" % (HEAVY,)


@pytest.fixture(scope="module")
def fresh() -> dict:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout)


@pytest.mark.parametrize("step", ["import balance", "death_probability", "death", "tiers",
                                  "dice", "dice.parse", "dice.distribution"])
def test_quick_answers_import_no_pandas_scipy_matplotlib(fresh, step):
    assert fresh["seen"][step] == []


def test_a_series_imports_pandas_only(fresh):
    # to_series() imports pandas; it needs no scipy (no FFT for 3d6) nor plots
    assert fresh["seen"]["to_series"] == ["pandas"]


def test_the_quick_answers_are_right(fresh):
    # core rules, critical injuries: the d100 roll + k kills from 176, k = (wounds + 1) x
    # (seconds + negative HP) = 92, so rolls 84 to 100 kill: 17 in 100
    k = (1 + 1) * (40 + 6)
    death = sum(roll + k >= 176 for roll in range(1, 101)) / 100
    assert death == 0.17 and fresh["p"] == pytest.approx(death)
    code, rows = fresh["out"]["death"]
    assert code == 0 and rows == [{"seconds": 40, "negative_hp": 6, "wounds": 1,
                                   "death_probability": pytest.approx(death)}]
    # percentile rules, skill roll at 65 on a d100: fumble 99-00, critical 01-07 (65 // 10,
    # rounded up), success 08-65, failure 66-98
    code, rows = fresh["out"]["tiers"]
    assert code == 0
    assert [(r["tier"], r["probability"]) for r in rows] == [
        ("fumble", 0.02), ("failure", 0.33), ("success", 0.58), ("critical", 0.07)]
    assert {(r["skill"], r["grade"]) for r in rows} == {(65, "Standard")}
    # 4d6kh3: the ways of each total among the 1,296 rolls, by enumeration
    code, rows = fresh["out"]["dice"]
    kept = [sum(sorted((a, b, c, d))[1:]) for a in range(1, 7) for b in range(1, 7)
            for c in range(1, 7) for d in range(1, 7)]
    assert code == 0 and [r["value"] for r in rows] == list(range(3, 19))
    assert [r["probability"] for r in rows] == [pytest.approx(kept.count(t) / 1296)
                                                for t in range(3, 19)]
    # 3d6: mean 10.5, 3 to 18, P(10) = 27 / 216 and P(15 or more) = 20 / 216 by enumeration
    rolls = [a + b + c for a in range(1, 7) for b in range(1, 7) for c in range(1, 7)]
    ten, tail = rolls.count(10) / 216, sum(r >= 15 for r in rolls) / 216
    assert fresh["three"] == [10.5, 3, 18, pytest.approx(ten), pytest.approx(ten),
                              pytest.approx(tail)]


def _printed(frame, fmt: str, **kw) -> str:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        emit(frame, fmt, **kw)
    return buf.getvalue()


COLUMNS = [
    ({"seconds": np.array([40, 100]), "negative_hp": np.array([6, 6]),
      "wounds": np.array([1, 1]), "death_probability": np.array([0.17, 1.0])}, {}),
    ({"tier": ["fumble", "Réussite critique"], "probability": np.array([0.02, 1 / 3])},
     {"header": {"skill": 65, "grade": "Standard"}}),
    ({"a": [-4, 1], "b": ["x,y", 'q"u'], "c": [math.nan, 1e16], "d": [True, False],
      "e": [None, "z"]}, {"title": "T"}),
    ({"x": [0.1 + 0.2, -0.0, math.inf, 1e-20]}, {"header": {"seed": 1, "p": 0.5}}),
    ({"n": list(range(-3, 600)), "p": [i / 7 for i in range(-3, 600)]}, {}),
]


@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
@pytest.mark.parametrize("columns, kw", COLUMNS)
def test_columns_print_as_pandas_prints_the_frame(columns, kw, fmt):
    assert _printed(columns, fmt, **kw) == _printed(pd.DataFrame(columns), fmt, **kw)


def test_the_bundled_rules_pass_the_checks_a_start_skips():
    # default_rules() does not validate the bundled data again in every process: this does
    from balance.rules.loader import check_bundled

    check_bundled()


def test_check_bundled_fails_on_bundled_data_out_of_their_limits(monkeypatch):
    import copy

    from balance.errors import RulesError
    from balance.rules import loader

    data, limits, assumed, origin = copy.deepcopy(loader._bundled())
    low, high = limits["injuries.death_threshold"]
    data["injuries"]["death_threshold"] = high + 1
    monkeypatch.setattr(loader, "_bundled", lambda: (data, limits, assumed, origin))
    with pytest.raises(RulesError, match="injuries.death_threshold"):
        loader.check_bundled()


def test_a_command_run_in_process_leaves_no_rules_line_behind():
    # cli.main with --set (JSON output, which does not name them in a table) named its rules
    # in every table printed later in the process
    from balance import cli
    with contextlib.redirect_stdout(io.StringIO()):
        assert cli.main(["death", "--seconds", "40", "--negative-hp", "6", "--format", "json",
                         "--set", "injuries.table.1.modifier=-2"]) == 0
    columns, kw = COLUMNS[0]
    assert not _printed(columns, "table", **kw).startswith("rules ")
