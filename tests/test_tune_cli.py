"""balance tune / sensitivity / recalibrate: answers, files, and one-line errors (exit 2)."""
from __future__ import annotations

import json

import pytest
from cli_run import in_process

import balance as bl
from balance.regression.registry import catalogue
from balance.tune.objective import Objective


def never(*args, **kwargs):
    """A metric or a sweep that must not run: the arguments are refused before any work."""
    raise AssertionError("computed before the arguments were checked")

TUNE = ("tune", "--metric", "death.p@40s,6hp,1w", "--target", "0.10",
        "--vary", "injuries.death_threshold")


def test_tune_prints_the_value_and_saves_the_variant(tmp_path):
    path = tmp_path / "tuned.toml"
    code, out, err = in_process(*TUNE, "--save", path, "--format", "json")
    assert code == 0, err
    row = json.loads(out[:out.rindex("]") + 1])[0]
    assert (row["value"], row["reachable"]) == (183, True)
    assert bl.load_rules(path)["injuries"]["death_threshold"] == 183
    code, _, err = in_process(*TUNE, "--save", path)
    assert code == 2 and "--force" in err and err.count("\n") == 1
    assert in_process(*TUNE, "--save", path, "--force")[0] == 0


def test_tune_curve_lists_every_value_scanned():
    code, out, _ = in_process(*TUNE, "--bounds", "176", "200", "--curve", "--format", "csv")
    assert code == 0
    lines = out.strip().splitlines()
    assert lines[0] == "value,metric" and len(lines) == 1 + 25


@pytest.mark.parametrize("extra, fragment", [
    (("--bounds", "1", "300"), "[limits]"),
    (("--bounds", "300", "200"), "argument --bounds: low must be below high, got 300 200"),
    (("--bounds", "170", "175"), "argument --bounds: no valid value of injuries.death_threshold"),
    (("--bounds", "176.5", "200"), "argument --bounds: injuries.death_threshold is an integer"),
    (("--bounds", "x", "200"), "finite number"),
    (("--target", "inf"), "finite number"),
    (("--vary", "injuries.nope"), "argument --vary: 'injuries.nope' is not a numeric rules key"),
    (("--metric", "nope"), "argument --metric: must be a catalogue name, got 'nope'; "
                           "'balance metrics' lists"),
    (("--metric", "injuries.outcomes@60s,5hp,0w"), "argument --metric: "
                                                   "'injuries.outcomes@60s,5hp,0w' is a distribution"),
    (("--save", ""), "path is needed"),
    (("--trials", "0"), "--trials"),
])
def test_tune_bad_arguments_exit_2_with_one_line(extra, fragment, tmp_path, monkeypatch):
    monkeypatch.setattr(Objective, "__call__", never)  # no metric evaluated
    code, out, err = in_process(*TUNE, *extra)
    assert code == 2 and fragment in err and err.count("\n") == 1
    assert err.startswith("balance: error:") and "Traceback" not in err


def test_sensitivity_table_and_plot(tmp_path):
    png = tmp_path / "tornado.png"
    code, out, err = in_process("sensitivity", "--metric", "death.p@40s,6hp,1w", "--vary",
                                "injuries.death_threshold", "injuries.die", "--plot", png)
    assert code == 0, err
    assert "injuries.die" in out and png.stat().st_size > 0
    code, _, err = in_process("sensitivity", "--metric", "death.p@40s,6hp,1w", "--vary",
                              "injuries.die", "--method", "sobol", "--n", "12")
    assert code == 2 and "power of two" in err


def test_recalibrate_writes_a_loadable_variant(tmp_path):
    path = tmp_path / "ratios.toml"
    code, out, err = in_process("recalibrate", "--levels", "5", "--trials", "100", "--save", path)
    assert code == 0, err
    assert "held-out" in out and "Goblin" in out
    assert out.count("seed 20260101, trials 100") == 2  # under each table's title
    assert bl.load_rules(path)["encounters"]["creature_ratios"]
    code, _, err = in_process("recalibrate", "--levels", "0")
    assert code == 2 and "party level" in err


def test_tune_prints_the_seed_and_trials_of_a_monte_carlo_metric():
    mc = ("tune", "--metric", "mc.death@60s,10hp,1w", "--target", "0.3", "--vary",
          "injuries.death_threshold", "--bounds", "209", "213", "--trials", "300", "--seed", "5")
    code, out, err = in_process(*mc)
    assert code == 0, err
    assert out.splitlines()[0] == "seed 5, trials 300"
    code, out, err = in_process(*mc, "--format", "json")
    row = json.loads(out)[0]
    assert (row["seed"], row["trials"]) == (5, 300)
    code, out, _ = in_process(*TUNE, "--bounds", "176", "200", "--format", "json")
    assert "seed" not in json.loads(out)[0]  # an exact metric has none


def test_tune_curve_rows_are_distinct_and_a_jumped_target_is_said():
    code, out, err = in_process("tune", "--metric", "economy.price.longsword", "--target", "100",
                                "--vary", "economy.scale_prices", "--curve")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[1].startswith("no value of economy.scale_prices gives exactly 100")
    rows = [line.split() for line in lines[3:]]
    values = [r[0] for r in rows]
    assert len(set(values)) == len(values) > 40  # brentq's iterates each told apart
    assert values == sorted(values, key=float)
    code, out, _ = in_process(*TUNE[:4], "0.105", *TUNE[5:], "--format", "json")
    row = json.loads(out)[0]  # 182 and 183 give 0.11 and 0.10: a tie, 182 nearer 176
    assert (row["value"], row["reachable"], row["attained"]) == (182, True, False)
    assert row["note"].startswith("no value of injuries.death_threshold gives exactly 0.105")


def test_metrics_lists_the_catalogue_the_metric_option_takes():
    code, out, err = in_process("metrics")
    assert code == 0, err
    body = out.splitlines()[2:]
    expected = catalogue()
    assert [line.split()[0] for line in body] == [m.name for m in expected]
    for line, m in zip(body, expected):
        assert line.endswith(m.description)
        assert line.split()[3] == ("false" if m.shape == "distribution" else "true")
    code, out, _ = in_process("metrics", "--format", "json")
    assert len(json.loads(out)) == len(expected)
    code, help_text, _ = in_process("tune", "--help")
    assert "'balance metrics' lists them" in " ".join(help_text.split())


SENS = ("sensitivity", "--metric", "death.p@40s,6hp,1w", "--vary", "injuries.death_threshold")


@pytest.mark.parametrize("extra, fragment", [
    (("--step", "0"), "argument --step: must be a number from 1e-09 to 10, got '0'"),
    (("--step", "1e9"), "argument --step: must be a number from 1e-09 to 10"),
    (("--vary", "injuries.die", "injuries.die"), "argument --vary: name each key once"),
    (("--vary", "nope"), "argument --vary: 'nope' is not a numeric rules key"),
    (("--metric", "nope"), "argument --metric: must be a catalogue name"),
    (("--plot", "chart.toml"), "--plot chart.toml: the file name must end in .png, .svg or .pdf"),
    (("--plot", "chart"), "--plot chart: the file name must end in"),
    (("--plot", "missing/chart.png"), "--plot missing/chart.png: the folder missing does not"),
    (("--plot", "exists.png"), "--plot exists.png: already exists; pass --force"),
])
def test_sensitivity_refuses_before_any_computation(extra, fragment, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "exists.png").write_bytes(b"mine")
    monkeypatch.setattr(bl.tune, "sensitivity", never)
    code, _, err = in_process(*SENS, *extra)
    assert code == 2 and fragment in err and err.count("\n") == 1, err
    assert (tmp_path / "exists.png").read_bytes() == b"mine"


def test_sensitivity_plot_replaces_a_file_only_with_force(tmp_path):
    png = tmp_path / "tornado.svg"
    png.write_bytes(b"mine")
    code, out, err = in_process(*SENS, "--plot", png, "--force")
    assert code == 0, err
    assert png.read_bytes().startswith(b"<?xml")


def test_help_texts_state_the_ranges_and_print_no_double_percent():
    rules = bl.load_rules()
    low, high = rules["creatures"]["level_min"], rules["creatures"]["level_max"]
    code, out, _ = in_process("recalibrate", "--help")
    assert f"{low} to {high} in the bundled rules" in " ".join(out.split())
    code, _, err = in_process("recalibrate", "--levels", str(high + 1))
    assert code == 2 and f"argument --levels: a party level from {low} to {high}" in err
    from balance.tune.sensitivity import STEP_RANGE
    for command in ("tune", "sensitivity", "recalibrate", "metrics"):
        code, out, _ = in_process(command, "--help")
        assert code == 0 and "%%" not in out
    code, out, _ = in_process("sensitivity", "--help")
    assert f"from {STEP_RANGE[0]:g} to {STEP_RANGE[1]:g}" in " ".join(out.split())


@pytest.mark.parametrize("argv, message", [
    (["--families", "Wolf", "--held-out", "Wolf"],
     "argument --held-out: Wolf is also a training family; a held-out family must be one the "
     "fit does not see"),
    (["--families", "Bogus"], "argument --families: unknown creature 'Bogus'"),
    (["--held-out", "Ogre+Bogus"], "argument --held-out: unknown creature 'Bogus'"),
])
def test_recalibrate_names_the_option_of_a_bad_family(argv, message, capsys):
    from balance import cli
    assert cli.main(["recalibrate", *argv, "--trials", "100"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"balance: error: {message}"), err
