"""Issue 14 item 3, the second audit: what the first one left (tests/test_cli_audit.py): every
command names the rules it ran on, a variant's report has its own folder, one default seed,
dice CSV at full precision, per-command options named where they go."""
from __future__ import annotations

import csv
import io
import json
import itertools
import math
from fractions import Fraction

import pytest

import balance as bl
from cli_run import in_process, one_error



# --- dice: exact tails, full precision ----------------------------------------------------
def enumerated(dice: int, keep: int) -> dict[int, Fraction]:
    """P(total) of ``dice``d6 keeping the ``keep`` highest, by enumerating every roll."""
    counts: dict[int, int] = {}
    for roll in itertools.product(range(1, 7), repeat=dice):
        total = sum(sorted(roll)[dice - keep:])
        counts[total] = counts.get(total, 0) + 1
    return {t: Fraction(c, 6 ** dice) for t, c in sorted(counts.items())}


@pytest.mark.parametrize("expr, dice, keep", [("3d6", 3, 3), ("4d6kh3", 4, 3)])
def test_tails_are_exactly_one_at_the_ends_and_exact_elsewhere(expr, dice, keep):
    exact = enumerated(dice, keep)
    dist = bl.dice.distribution(expr)
    totals = list(exact)
    assert dist.at_least(totals[0]) == 1.0 and dist.at_most(totals[-1]) == 1.0
    assert dist.at_least(totals[0] - 5) == 1.0 and dist.at_most(totals[-1] + 5) == 1.0
    least, most = dist.at_least(totals), dist.at_most(totals)
    for i, t in enumerate(totals):
        up = sum(p for u, p in exact.items() if u >= t)
        down = sum(p for u, p in exact.items() if u <= t)
        assert least[i] == pytest.approx(float(up), rel=1e-15, abs=0)
        assert most[i] == pytest.approx(float(down), rel=1e-15, abs=0)
    # the far tail keeps its digits (summed from the top): P(at least 18) is P(18) itself
    assert least[-1] == dist[totals[-1]] and most[0] == dist[totals[0]]


def test_dice_csv_keeps_every_digit_of_the_mean_and_sd():
    code, out, _ = in_process("dice", "3d6", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    exact = enumerated(3, 3)
    mean = sum(t * p for t, p in exact.items())
    var = sum((t - mean) ** 2 * p for t, p in exact.items())
    assert code == 0 and float(rows[0]["sd"]) == pytest.approx(math.sqrt(var), rel=1e-15)
    assert rows[0]["sd"] != "2.95804" and float(rows[0]["at_least"]) == 1.0
    assert rows[-1]["at_most"] == "1.0"


# --- an option before the command, a value starting with '-' ------------------------------
@pytest.mark.parametrize("argv, expected", [
    (("--lang", "fr", "tiers", "65"),
     "balance: error: --lang goes after the command: 'balance tiers --lang fr 65' "
     "(see 'balance tiers --help')"),
    (("--seed=3", "duel", "60", "45"),
     "balance: error: --seed goes after the command: 'balance duel --seed=3 60 45' "
     "(see 'balance duel --help')"),
    (("--lang", "fr", "death", "--seconds", "40", "--negative-hp", "6"),
     "balance: error: --lang is an option of a command, given after it, and 'balance death' "
     "has none (see 'balance death --help')"),
    (("--format", "json"),
     "balance: error: --format is an option of a command: put it after the command, e.g. "
     "'balance COMMAND --format json' (see 'balance --help')"),
])
def test_a_command_option_before_the_command_says_where_it_goes(argv, expected):
    assert one_error(*argv) == expected


def test_the_options_of_balance_itself_still_come_first():
    code, out, _ = in_process("--version")
    assert code == 0 and out.startswith("balance ")
    code, out, _ = in_process("--debug", "tiers", "65", "--lang", "fr")
    assert code == 0 and "Réussite critique" in out


@pytest.mark.parametrize("segments, shown", [(("-1:15",), "-1:15"), (("8:15", "-2:12"), "-2:12")])
def test_rest_refuses_negative_hours_as_a_segment_not_an_unknown_option(segments, shown):
    line = one_error("rest", *segments)
    assert line == (f"balance: error: argument HOURS:SCORE: '{shown}': hours must be an integer "
                    f"between 0 and 1000000, got {shown.split(':')[0]}"), line


def test_rest_and_dice_still_read_negative_values_after_a_double_dash():
    assert in_process("rest", "--", "8:15")[0] == 0
    code, out, _ = in_process("dice", "--", "-1d6+4")
    assert code == 0 and out.startswith("dice -1d6+4, mean 0.5000")


# --- every command names the rules it ran on ----------------------------------------------
RULES_COMMANDS = [
    ("death", "--seconds", "40", "--negative-hp", "6"),
    ("injuries", "--seconds", "40", "--negative-hp", "6"),
    ("test", "12"),
    ("negotiate", "--psychology", "12"),
    ("treat", "--cunning", "10", "--injury", "Dazed", "--level", "light"),
    ("rest", "8:15"),
    ("calibrate", "1/2", "--pcs", "4"),
    ("charisma", "--price", "200", "--charisma", "2"),
    ("tiers", "65"),
    ("opposed", "60", "45"),
    ("rescue", "--trials", "300"),
    ("duel", "60", "45", "--trials", "100"),
    ("weapons", "60", "--weapons", "dagger", "broadsword", "--trials", "100"),
    ("campaign", "--fights", "1", "--trials", "100"),
    ("tune", "--metric", "death.p@40s,6hp,1w", "--target", "0.10", "--vary",
     "injuries.death_threshold"),
    ("sensitivity", "--metric", "death.p@40s,6hp,1w", "--vary", "injuries.death_threshold"),
    ("rules", "assumptions"),
]
SET = "injuries.death_threshold=180"


@pytest.fixture(scope="module")
def house(tmp_path_factory):
    path = tmp_path_factory.mktemp("rules") / "house.toml"
    path.write_text("[injuries]\nautomatic_death_seconds = 200\n", encoding="utf-8")
    return path


def expected_rules(house) -> tuple[str, str]:
    """(fingerprint, table line) of house.toml then --set, computed without the command line."""
    rules = bl.load_rules(house).updated({"injuries": {"death_threshold": 180}})
    return rules.fingerprint, f"rules {rules.fingerprint} (bundled + {house} + --set {SET})"


@pytest.mark.parametrize("argv", RULES_COMMANDS, ids=lambda a: a[0])
def test_every_command_names_the_rules_it_ran_on(argv, house):
    fingerprint, line = expected_rules(house)
    given = ("--rules", str(house), "--set", SET)
    code, out, err = in_process(*argv, *given)
    assert code == 0, err
    assert out.splitlines()[0] == line and out.count("\nrules ") == 0, out
    code, out, err = in_process(*argv, *given, "--format", "json")
    records = json.loads(out)
    assert code == 0 and records and all(
        r["rules"] == {"sources": [str(house)], "set": [SET], "fingerprint": fingerprint}
        for r in records), out
    code, out, err = in_process(*argv, *given, "--format", "csv")  # data only
    assert code == 0 and "rules" not in next(csv.reader(io.StringIO(out))) and \
        fingerprint not in out, out


@pytest.mark.parametrize("argv", RULES_COMMANDS[:3], ids=lambda a: a[0])
def test_the_bundled_rules_unchanged_add_nothing(argv):
    code, out, _ = in_process(*argv)
    assert code == 0 and not out.startswith("rules ")
    assert all("rules" not in r for r in json.loads(in_process(*argv, "--format", "json")[1]))


def test_rules_named_by_one_command_are_not_named_by_the_next():
    assert in_process("tiers", "65", "--set", SET)[1].startswith("rules ")
    assert not in_process("tiers", "65")[1].startswith("rules ")


def test_snapshot_names_the_rules_it_measured(tmp_path):
    fingerprint = bl.load_rules().updated({"injuries": {"death_threshold": 180}}).fingerprint
    code, out, err = in_process("snapshot", "--out", str(tmp_path / "s.json"), "--only",
                                "death.p*", "--set", SET)
    assert code == 0 and out.rstrip().endswith(
        f"rules {fingerprint} (bundled + --set {SET})"), (out, err)


# --- one default seed; a check reruns its baseline's ---------------------------------------
def test_snapshot_and_diff_default_to_the_seed_of_every_monte_carlo_command(tmp_path):
    from balance.cli.options import DEFAULT_SEED
    from balance.regression.diff import independent_seed

    path = tmp_path / "b.json"
    code, out, err = in_process("snapshot", "--out", str(path), "--trials", "500", "--only",
                                "mc.death*")
    assert code == 0 and json.loads(path.read_text())["seed"] == DEFAULT_SEED == 20260101, err
    assert f"seed {DEFAULT_SEED})" in out
    code, out, err = in_process("diff", "bundled", "death_threshold_180", "--trials", "500",
                                "--only", "mc.death*")
    assert out.splitlines()[0] == (f"seed {DEFAULT_SEED} (base), "
                                   f"{independent_seed(DEFAULT_SEED)} (variant); 500 trials "
                                   "per Monte Carlo metric"), (out, err)


def test_check_says_it_reruns_the_baselines_own_seed(tmp_path):
    path = tmp_path / "b.json"
    assert in_process("snapshot", "--out", str(path), "--trials", "500", "--only", "mc.death*",
                      "--seed", "3")[0] == 0
    code, out, err = in_process("check", "--baseline", str(path))
    assert code == 0 and out.splitlines()[0] == (
        "seed 3 (the baseline's; both sides: common random numbers); 500 trials per Monte "
        "Carlo metric"), (out, err)
    code, out, err = in_process("check", "--baseline", str(path), "--seed", "7")
    assert out.splitlines()[0].startswith("seed 3 (the baseline's), 7 (variant); "), out


# --- a variant's report has its own folder -------------------------------------------------
REPORT = ("report", "--sections", "d20", "--trials", "300", "--quiet")


def test_a_second_house_rule_never_replaces_the_first_ones_report(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "house.toml").write_text("[injuries]\nautomatic_death_seconds = 200\n",
                                         encoding="utf-8")
    bundled = bl.load_rules()
    runs = [(("--set", "injuries.death_threshold=180"),
             bundled.updated({"injuries": {"death_threshold": 180}}), "variant-"),
            (("--set", "injuries.death_threshold=190"),
             bundled.updated({"injuries": {"death_threshold": 190}}), "variant-"),
            (("--rules", "house.toml", "--set", "injuries.death_threshold=190"),
             bl.load_rules("house.toml").updated({"injuries": {"death_threshold": 190}}),
             "house-"),
            (("--rules", "house.toml"), bl.load_rules("house.toml"), "house")]
    for given, rules, stem in runs:
        code, out, err = in_process(*REPORT, *given)
        folder = tmp_path / "reports" / (stem + rules.fingerprint if stem.endswith("-")
                                         else stem)
        assert code == 0 and out.startswith(f"{folder / 'index.html'}  (seed "), (out, err)
    for given, rules, stem in runs:  # every report is still there, of its own rules
        folder = stem + rules.fingerprint if stem.endswith("-") else stem
        page = (tmp_path / "reports" / folder / "index.html").read_text(encoding="utf-8")
        assert rules.fingerprint in page, folder
    assert len(list((tmp_path / "reports").iterdir())) == 4


# --- a possible outcome never reads 0.0000 ------------------------------------------------
def test_a_rare_total_prints_in_scientific_notation_not_as_zero():
    """1000d1000: the likeliest total has probability ~4.4e-5, which 4 decimals rounded to
    0.0000 (the audit's 'wide dice' finding); each table cell now reads back as the JSON value
    to 3 significant digits."""
    code, table, _ = in_process("dice", "1000d1000")
    _, records, _ = in_process("dice", "1000d1000", "--format", "json")
    exact = {r["value"]: r["probability"] for r in json.loads(records)}
    lines = table.splitlines()[2:]
    assert code == 0 and lines and lines[-1].startswith("(the 60 likeliest of ")
    for line in lines[:-1]:
        value, probability = line.split()[:2]
        assert probability != "0.0000"
        assert float(probability) == pytest.approx(exact[int(value)], rel=5e-3)


@pytest.mark.parametrize("as_frame", [False, True])
def test_table_cells_round_to_four_decimals_unless_that_reads_zero(as_frame, capsys):
    import pandas as pd

    from balance.cli.options import emit

    # below 0.001, three significant digits: 6e-05 read 0.0001 (a campaign's 5 deaths in
    # 100,000 printed as 1 in 10,000), 0.00077 read 0.0008
    column = {"p": [0.0, 3e-5, 4.9e-5, 6e-5, 7.7e-4, 0.001, 0.123456, -2e-5]}
    emit(pd.DataFrame(column) if as_frame else column, "table")
    cells = [c.strip() for c in capsys.readouterr().out.splitlines()[1:]]
    assert cells == ["0.0000", "3.00e-05", "4.90e-05", "6.00e-05", "7.70e-04", "0.0010",
                     "0.1235", "-2.00e-05"]
