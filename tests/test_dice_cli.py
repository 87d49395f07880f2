"""``balance dice``: the header's range and moments, the table's columns, the options'
refusals (--trials, --plot) and the help, against closed forms and enumeration.

In-process (tests/cli_run.in_process), small expressions: the whole file takes about a second.
"""
from __future__ import annotations

import itertools
import json
import math
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from cli_run import in_process


def json_rows(*argv):
    code, out, err = in_process(*argv, "--format", "json")
    assert code == 0, err
    return json.loads(out)


def header(*argv) -> dict[str, str]:
    """The table output's first line ``dice X, mean M, sd S, min A, max B`` as a dict."""
    code, out, err = in_process(*argv)
    assert code == 0, err
    first = out.splitlines()[0]
    return dict(part.split(" ", 1) for part in first.split(", "))


def table_lines(*argv) -> list[str]:
    code, out, err = in_process(*argv)
    assert code == 0, err
    return out.splitlines()[1:]


# --- a constant total: every die rerolled up to its highest face -------------------------
@pytest.mark.parametrize("expr, total", [("10d10000rr9999", 100_000), ("1000d100rr99", 100_000),
                                         ("1000d10000rr9999", 10_000_000)])
def test_a_die_rerolled_to_its_highest_face_is_a_constant(expr, total):
    """rrN with N = faces - 1 leaves one face: the total is count x faces, sd 0, one row
    (FFT rounding noise once showed hundreds of rows; the last one took 31 s and 912 MB)."""
    head = header("dice", expr)
    assert head["mean"] == str(total) and head["sd"] == "0"
    assert head["min"] == head["max"] == str(total)
    (row,) = json_rows("dice", expr)
    assert row["value"] == total and row["probability"] == 1.0
    assert row["at_least"] == row["at_most"] == 1.0


def test_header_min_and_max_are_the_expressions_range():
    """1000d6 can show 1000 (mass 6**-1000 underflows to 0): the header gives the range."""
    head = header("dice", "1000d6")
    assert (head["min"], head["max"]) == ("1000", "6000")
    assert float(head["mean"]) == 3500
    assert float(head["sd"]) == pytest.approx(math.sqrt(1000 * 35 / 12), abs=1e-4)
    head = header("dice", "2d6rr2+1d4!")  # each rerolled die 3..6; 1d4! 1..84 (20 explosions)
    assert (head["min"], head["max"]) == ("7", str(12 + 4 * 21))


def test_sampled_header_gives_the_range_too():
    head = header("dice", "1000d6", "--trials", "200")
    assert (head["min"], head["max"]) == ("1000", "6000")


# --- one set of columns whatever the expression ------------------------------------------
@pytest.mark.parametrize("expr", ["4d6kh3", "1d6r1!", "2d6kh1+1d6!", "10d10000rr9999", "1000d6"])
def test_table_columns_do_not_depend_on_the_expression(expr):
    columns = table_lines("dice", expr)[0].split()
    assert columns == ["value", "probability", "at_least", "at_most", "bar"]
    assert list(json_rows("dice", expr)[0])[:4] == ["value", "probability", "at_least",
                                                    "at_most"]


def test_long_tables_show_the_likeliest_totals_with_their_own_values():
    """1d6r1! has 126 totals; the 60 likeliest (and those tied with the 60th) are shown,
    each line starting with its value (no leaked row number), with the exact probability."""
    exact = {}
    once = {f: Fraction(1, 36) if f == 1 else Fraction(7, 36) for f in range(1, 7)}
    def walk(total, p, extra):
        for face, q in once.items():
            if face == 6 and extra < 20:
                walk(total + 6, p * q, extra + 1)
            else:
                exact[total + face] = exact.get(total + face, 0) + p * q
    walk(0, Fraction(1), 0)
    *lines, note = table_lines("dice", "1d6r1!")[1:]
    cut = sorted(exact.values(), reverse=True)[59]
    kept = sum(p >= cut for p in exact.values())        # ties with the 60th are shown too
    assert note == (f"(the {kept} likeliest of {len(exact)} totals shown; every total: "
                    "--format csv or json)")
    assert [int(line.split()[0]) for line in lines] == sorted(v for v, p in exact.items()
                                                              if p >= cut)
    for line in lines:
        value, probability = line.split()[:2]
        assert float(probability) == pytest.approx(float(exact[int(value)]), abs=5e-5)


# --- expressions starting with '-' --------------------------------------------------------
@pytest.mark.parametrize("argv", [("dice", "-1d6", "--format", "json"),
                                  ("dice", "--format", "json", "--", "-1d6"),
                                  ("dice", "--seed", "3", "-1d6", "--format", "json")])
def test_an_expression_may_start_with_a_minus(argv):
    code, out, err = in_process(*argv)
    assert code == 0, err
    rows = json.loads(out)
    assert [r["value"] for r in rows] == [-6, -5, -4, -3, -2, -1]
    assert all(r["probability"] == pytest.approx(1 / 6) for r in rows)


def test_a_negative_keep_expression_is_the_enumeration():
    counts = Counter(-max(a, b) + 3 for a, b in itertools.product(range(1, 7), repeat=2))
    rows = json_rows("dice", "-2d6kh1+3")
    assert {r["value"]: r["probability"] for r in rows} == pytest.approx(
        {v: c / 36 for v, c in counts.items()})


def test_a_bad_expression_with_a_minus_is_refused_as_dice():
    code, _, err = in_process("dice", "-1d6x")
    assert code == 2 and err.count("\n") == 1 and "'x'" in err and "modifier" in err


# --- --trials ------------------------------------------------------------------------------
@pytest.mark.parametrize("trials", ["1e9", "100000001", "0", "-5", "1.5", "lots"])
def test_trials_outside_the_dice_range_is_refused_by_the_option(trials):
    code, _, err = in_process("dice", "4d6kh3", "--trials", trials)
    assert code == 2 and err.count("\n") == 1
    assert "argument --trials:" in err and "1 to 100,000,000 for dice" in err
    assert "balance.montecarlo" not in err


# --- --plot --------------------------------------------------------------------------------
@pytest.mark.parametrize("name, says", [
    ("x.txt", "'.txt' is not a figure format; use .png, .svg or .pdf"),
    ("x", "has no suffix; use .png, .svg or .pdf"),
    ("missing/x.png", "the folder missing does not exist"),
    ("x.png/", "names a folder; give a file name ending in .png, .svg or .pdf"),
])
def test_plot_file_checked_before_any_work(tmp_path, monkeypatch, name, says):
    """Refused naming --plot, before the distribution is computed: 100d100kh50 would be
    refused by the dice budget, so the --plot message shows the file was checked first."""
    monkeypatch.chdir(tmp_path)
    code, out, err = in_process("dice", "100d100kh50", "--plot", name)
    assert code == 2 and err.count("\n") == 1 and out == ""
    assert f"--plot {name}: {says}" in err
    assert list(tmp_path.iterdir()) == []


def test_plot_writes_pdf_and_refuses_to_replace_without_force(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = in_process("dice", "2d20kh1", "--plot", "adv.PDF")
    assert code == 0, err
    assert Path("adv.PDF").read_bytes()[:5] == b"%PDF-"
    code, _, err = in_process("dice", "2d20kh1", "--plot", "adv.PDF")
    assert code == 2 and "--plot adv.PDF: already exists; pass --force" in err


# --- help ----------------------------------------------------------------------------------
def test_help_states_the_reroll_meaning_the_trials_range_and_no_doubled_percent():
    code, out, _ = in_process("dice", "--help")
    assert code == 0
    text = " ".join(out.split())
    assert "%%" not in text and "95 % intervals" in text
    assert "rN rerolls faces 1 to N once" in text and "rrN rerolls them until" in text
    assert "1 to 100,000,000" in text
    assert "-- -1d6" in text or "balance dice -1d6" in text
    docs = " ".join((Path(__file__).parents[1] / "docs/how-to/dice.md").read_text().split())
    assert "rerolls faces 1 to N once" in docs and "`2d20kh` means `2d20kh1`" in docs


def test_a_symmetric_expression_has_mean_zero_not_a_rounding_residue():
    # printed "mean -1.67e-16" (1d6-1d6) and "mean 8.17e-17" (3d6-3d6)
    for expr in ("1d6-1d6", "3d6-3d6"):
        rows = json_rows("dice", expr)
        assert {r["mean"] for r in rows} == {0}
        code, out, _ = in_process("dice", expr)
        assert code == 0 and out.splitlines()[0].startswith(f"dice {expr}, mean 0, ")


def test_a_long_table_says_which_rows_it_shows():
    # 1d6! has 106 possible totals: the table shows the 60 likeliest and says so
    code, out, _ = in_process("dice", "1d6!")
    lines = out.splitlines()
    assert code == 0
    assert lines[-1] == "(the 60 likeliest of 106 totals shown; every total: --format csv or json)"
    assert len(lines) == 2 + 60 + 1
    assert len(json_rows("dice", "1d6!")) == 106
