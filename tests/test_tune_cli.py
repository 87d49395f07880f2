"""balance tune / sensitivity / recalibrate: answers, files, and one-line errors (exit 2)."""
from __future__ import annotations

import json

import pytest
from cli_run import in_process

import balance as bl

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
    (("--bounds", "300", "200"), "low < high"),
    (("--bounds", "x", "200"), "finite number"),
    (("--target", "inf"), "finite number"),
    (("--vary", "injuries.nope"), "not a numeric rules key"),
    (("--metric", "nope"), "catalogue name"),
    (("--save", ""), "path is needed"),
    (("--trials", "0"), "--trials"),
])
def test_tune_bad_arguments_exit_2_with_one_line(extra, fragment, tmp_path):
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
    assert bl.load_rules(path)["encounters"]["creature_ratios"]
    code, _, err = in_process("recalibrate", "--levels", "0")
    assert code == 2 and "party level" in err
