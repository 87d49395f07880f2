"""The ``balance`` command line: exit codes, one-line errors, formats, help for every command."""
from __future__ import annotations

import io
import json
import re
import subprocess
import sys

import pandas as pd
import pytest

from balance import cli


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def command_paths() -> list[list[str]]:
    parser = cli.build_parser()
    paths = []
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, p in sub.choices.items():
        paths.append([name])
        for action in p._actions:
            if action.__class__.__name__ == "_SubParsersAction":
                paths += [[name, child] for child in action.choices]
    return paths


def test_death_query_matches_the_closed_form(capsys):
    code, out, err = run(capsys, "death", "--seconds", "40", "--negative-hp", "6", "--wounds",
                         "1", "--format", "json")
    assert code == 0 and err == ""
    (row,) = json.loads(out)
    # k = 2 * 46 = 92; P = (100 - (176 - 92) + 1) / 100 = 0.17
    assert row == {"seconds": 40, "negative_hp": 6, "wounds": 1, "death_probability": 0.17}


def test_death_query_answers_every_combination_in_csv(capsys):
    code, out, _ = run(capsys, "death", "--seconds", "0", "175", "--negative-hp", "1", "10",
                       "--format", "csv")
    frame = pd.read_csv(io.StringIO(out))
    assert code == 0 and len(frame) == 4
    assert list(frame.loc[frame.seconds == 175, "death_probability"]) == [1.0, 1.0]
    assert list(frame.loc[frame.seconds == 0, "death_probability"]) == [0.0, 0.0]


def test_death_query_with_a_variant(capsys):
    code, out, _ = run(capsys, "death", "--seconds", "40", "--negative-hp", "6", "--wounds",
                       "1", "--rules", "death_threshold_180", "--format", "json")
    assert code == 0 and json.loads(out)[0]["death_probability"] == pytest.approx(0.13)


def test_injuries_exact_and_simulated(capsys):
    code, out, _ = run(capsys, "injuries", "--seconds", "5", "--negative-hp", "3",
                       "--format", "csv")
    frame = pd.read_csv(io.StringIO(out))
    assert code == 0 and frame["probability"].sum() == pytest.approx(1.0)
    # k = 8: faces 1..100 -> totals 9..108; Dazed (1..10) gets faces 1, 2
    assert frame.set_index("injury").loc["Dazed", "probability"] == pytest.approx(0.02)
    code, out, _ = run(capsys, "injuries", "--seconds", "5", "--negative-hp", "3", "--trials",
                       "5000", "--seed", "1", "--format", "json")
    rows = json.loads(out)
    assert code == 0 and all(r["ci_low"] <= r["probability"] <= r["ci_high"] for r in rows)


def test_test_and_negotiate(capsys):
    code, out, _ = run(capsys, "test", "12", "--modifier", "2", "--format", "json")
    assert code == 0 and json.loads(out)[0]["success_chance"] == pytest.approx(0.7)
    code, out, _ = run(capsys, "test", "12", "--points", "--format", "csv")
    frame = pd.read_csv(io.StringIO(out))
    assert list(frame["points"]) == list(range(12 - 20, 12))
    code, out, _ = run(capsys, "negotiate", "--psychology", "12", "--format", "json")
    rows = json.loads(out)
    best = [r["ask"] for r in rows if r["best"]]
    assert code == 0 and best == [16.0]
    code, out, _ = run(capsys, "negotiate", "--psychology", "12", "--ask", "20")
    assert code == 0 and out.startswith("best ask: X = 16 %")


def test_guide_and_percentile_queries(capsys):
    code, out, err = run(capsys, "calibrate", "3/1", "1/2", "1/2", "--pcs", "4", "--format",
                         "json")
    assert code == 0
    assert json.loads(out)[0]["calibration"] == "0" and json.loads(out)[0]["challenge"] == \
        "Demanding"
    code, out, _ = run(capsys, "tiers", "65", "--format", "json")
    tiers = {r["tier"]: r["probability"] for r in json.loads(out)}
    # rolls 1..100 at 65 %: critical 1..7, success 8..65, failure 66..98, fumble 99-100
    assert tiers == pytest.approx({"critical": 0.07, "success": 0.58, "failure": 0.33,
                                   "fumble": 0.02})


def test_rest_query_follows_the_documents_examples(capsys):
    code, out, _ = run(capsys, "rest", "3:13", "5:12", "--format", "json")
    rows = json.loads(out)
    assert code == 0 and [r["regeneration"] for r in rows] == [39, 60]  # cave: 99
    code, out, _ = run(capsys, "rest", "14:adequate")
    assert code == 0 and out.startswith("regeneration: 180")  # 12 counted hours x 15


def test_rest_query_says_what_the_hp_cap_lets_through(capsys):
    """Core rules, rest: regeneration is capped at the maximum when it is given. 8 h at 15 is
    120, but from 100 HP of 150 only 50 come back (a review found the total said 120)."""
    code, out, _ = run(capsys, "rest", "8:15", "--hp", "100", "--max-hp", "150")
    assert code == 0 and out.splitlines()[0] == \
        "regeneration: 120; HP 100 -> 150 (+50, capped at 150)"
    code, out, _ = run(capsys, "rest", "3:13", "5:12", "--hp", "20", "--max-hp", "80",
                       "--format", "json")
    rows = json.loads(out)
    assert [r["hp_gained"] for r in rows] == [39, 21] and {r["hp_regained"] for r in rows} == {60}
    code, out, _ = run(capsys, "rest", "8:15", "--hp", "10", "--format", "json")
    assert {r["hp_regained"] for r in json.loads(out)} == {120}  # no maximum: no cap
    code, out, _ = run(capsys, "rest", "8:15", "--hp", "5", "--max-hp", "500")
    assert out.splitlines()[0] == "regeneration: 120; HP 5 -> 125 (+120)"  # the cap not reached
    code, out, _ = run(capsys, "rest", "--set", "rest.min_score=-10", "8:-5", "--hp", "50",
                       "--max-hp", "60")  # a variant whose rest wounds (first line: its rules)
    assert "regeneration: -40; HP 50 -> 10 (-40)" in out.splitlines()


def test_rules_check_lists_what_a_variant_changes(capsys, tmp_path):
    variant = tmp_path / "v.toml"
    variant.write_text("[injuries]\ndeath_threshold = 180\nautomatic_death_seconds = 170\n")
    code, out, err = run(capsys, "rules", "check", str(variant), "--format", "json")
    assert code == 0 and err == ""
    import balance as bl
    fingerprints = {"fingerprint": bl.load_rules(variant).fingerprint,
                    "bundled_fingerprint": bl.load_rules().fingerprint}
    assert json.loads(out) == [
        {"key": "injuries.death_threshold", "bundled": "176", "variant": "180", **fingerprints},
        {"key": "injuries.automatic_death_seconds", "bundled": "175", "variant": "170",
         **fingerprints}]
    code, out, _ = run(capsys, "rules", "check", str(variant))
    assert bl.load_rules(variant).fingerprint in out


def test_rules_show(capsys):
    code, out, _ = run(capsys, "rules", "show", "injuries.death_threshold", "--format", "json")
    assert code == 0 and json.loads(out) == 176
    code, out, _ = run(capsys, "rules", "show", "negotiation", "--format", "csv")
    frame = pd.read_csv(io.StringIO(out))
    assert dict(zip(frame.key, frame.value))["negotiation.partial_divisor"] == "4"


@pytest.mark.parametrize("argv, fragment", [
    (["death", "--seconds", "40", "--negative-hp", "0"], "--negative-hp"),
    (["death", "--seconds", "-1", "--negative-hp", "3"], "seconds"),
    (["test", "twelve"], "characteristic"),
    (["negotiate", "--psychology", "12", "--ask", "0"], "ask"),
    (["treat", "--cunning", "12", "--injury", "Wek"], "Weak"),
    (["tiers", "65", "--grade", "impossible"], "grade"),
    (["calibrate", "3/0", "--pcs", "4"], "3/0"),
    (["rules", "show", "injuries.nope"], "nope"),
    (["report", "--lang", "de"], "lang"),
    (["rest", "8-15"], "HOURS:SCORE"),
    (["rest", "8:superb"], "superb"),
    (["nosuchcommand"], "nosuchcommand"),
])
def test_bad_input_exits_2_with_one_line(capsys, argv, fragment):
    with pytest.raises(SystemExit) as exc_info:
        raise SystemExit(cli.main(argv))
    assert exc_info.value.code == 2
    out, err = capsys.readouterr()
    assert err.startswith("balance: error: ") and err.count("\n") == 1
    assert fragment in err and "Traceback" not in err


def test_broken_rules_file_is_one_line_naming_the_file(capsys, tmp_path):
    bad = tmp_path / "broken.toml"
    bad.write_text("[injuries]\ndeath_treshold = 180\n")
    code, out, err = run(capsys, "rules", "check", str(bad))
    assert code == 2 and err.count("\n") == 1
    assert "broken.toml" in err and "death_threshold" in err  # did-you-mean


def test_help_for_every_command(capsys):
    paths = command_paths()
    names = {p[0] for p in paths}
    assert {"report", "death", "injuries", "test", "negotiate", "tiers", "calibrate",
            "rules"} <= names
    for path in paths:
        with pytest.raises(SystemExit) as exc_info:
            cli.main([*path, "--help"])
        assert exc_info.value.code == 0, path
        out, _ = capsys.readouterr()
        assert out.startswith("usage: balance " + " ".join(path)), path
        # the help is read in a terminal: no docstring markup (``code``, :func:`name`)
        assert not re.search(r"``|:(func|mod|class|data|meth|attr):`", out), (path, out)


def test_main_help_and_no_command(capsys):
    with pytest.raises(SystemExit) as exc_info:
        cli.main(["--help"])
    assert exc_info.value.code == 0
    assert cli.main([]) == 2


def test_missing_regression_module_is_skipped(monkeypatch):
    monkeypatch.setitem(sys.modules, "balance.cli.regression", None)
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    assert "report" in sub.choices and "snapshot" not in sub.choices


def test_other_import_errors_are_not_hidden(monkeypatch):
    monkeypatch.setattr(cli, "COMMAND_MODULES", cli.COMMAND_MODULES + ("balance._no_such_cli",))
    with pytest.raises(ModuleNotFoundError):
        cli.build_parser()


def test_report_command_writes_the_report(capsys, tmp_path):
    code, out, err = run(capsys, "report", "--out", str(tmp_path / "r"), "--trials", "200",
                         "--seed", "3", "--quiet", "--lang", "fr", "--sections", "death", "rescue")
    assert code == 0 and (tmp_path / "r" / "index.html").is_file()
    assert "index.html" in out
    page = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    assert "<section id='rescue'>" in page and "<section id='d20'>" not in page


def test_console_script_entry_point():
    result = subprocess.run([sys.executable, "-c", "import sys; from balance.cli import main; "
                             "sys.exit(main(['test', '25']))"], capture_output=True, text=True)
    assert result.returncode == 0 and "1.0" in result.stdout


@pytest.mark.parametrize("value", ["1e18", "0", "-1", "2.5", "abc", "nan", "1e10000"])
def test_trials_outside_the_budget_name_the_option_and_the_range(capsys, value):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["injuries", "--seconds", "30", "--negative-hp", "5", "--trials", value])
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert err.count("\n") == 1 and err.startswith(
        f"balance: error: argument --trials: must be a whole number from 1 to 10,000,000,000 "
        f"(the trials budget), got '{value}'")


def test_trials_in_exponent_form_are_the_same_run(capsys):
    argv = ["injuries", "--seconds", "30", "--negative-hp", "5", "--seed", "3", "--format", "csv"]
    assert cli.main(argv + ["--trials", "2e3"]) in (0, None)
    short = capsys.readouterr().out
    assert cli.main(argv + ["--trials", "2000"]) in (0, None)
    assert capsys.readouterr().out == short


def test_workers_past_the_cores_name_the_option_and_the_cores(capsys):
    from balance.budgets import max_workers

    with pytest.raises(SystemExit) as exit_:
        cli.main(["rescue", "--trials", "100", "--workers", str(max_workers() + 1)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.startswith(
        f"balance: error: argument --workers: must be a whole number from 1 to {max_workers()} "
        "(the cores of this machine)")
