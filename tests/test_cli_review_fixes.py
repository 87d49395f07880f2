"""Fixes of the review's findings on the command line (dice, duel/weapons/campaign, --set,
rules check): each test failed before its fix."""
from __future__ import annotations

from balance.cli import options
from tests.cli_run import in_process


def _sets(*texts):
    return [options.setting_arg(t) for t in texts]


def test_consecutive_sets_move_a_row_boundary():
    rules = options.load(_sets("injuries.table.1.high=12", "injuries.table.2.low=13"))
    table = rules.to_dict()["injuries"]["table"]
    assert (table[0]["high"], table[1]["low"]) == (12, 13)
    # either order: the run is validated once, after both edits
    rules = options.load(_sets("injuries.table.2.low=13", "injuries.table.1.high=12"))
    assert rules.to_dict()["injuries"]["table"][1]["low"] == 13


def test_consecutive_sets_through_the_command():
    code, out, err = in_process("death", "--seconds", 40, "--negative-hp", 6, "--wounds", 1,
                                "--set", "injuries.table.1.high=12",
                                "--set", "injuries.table.2.low=13")
    assert code == 0, err


def test_one_set_alone_still_refuses_the_overlap():
    code, _, err = in_process("death", "--seconds", 40, "--negative-hp", 6, "--wounds", 1,
                              "--set", "injuries.table.1.high=12")
    assert code == 2 and "overlap" in err and err.count("\n") == 1


def test_a_rules_file_between_sets_splits_them(tmp_path):
    variant = tmp_path / "v.toml"
    variant.write_text("[injuries]\ndeath_threshold = 180\n")
    code, _, err = in_process("death", "--seconds", 40, "--negative-hp", 6, "--wounds", 1,
                              "--set", "injuries.table.1.high=12", "--rules", variant,
                              "--set", "injuries.table.2.low=13")
    assert code == 2 and "overlap" in err
