"""Every error that reaches a user is one line naming the argument, file or table.

Hostile command lines run in subprocesses under an address-space and CPU limit.
"""
import math
import re

import numpy as np
import pytest

import balance as bl
from balance import cli
from balance.errors import RulesError, check_integer, check_integer_array, check_number

from test_budgets import one_line_error, run_cli


def one_line(exc_info) -> str:
    text = str(exc_info.value)
    assert "\n" not in text
    return text


# --- numbers the checks are given ----------------------------------------------------------
def test_death_probability_reports_the_value_given():
    with pytest.raises(ValueError) as info:
        bl.injuries.death_probability(seconds=1e30, negative_hp=1)
    text = one_line(info)
    assert text.startswith("seconds must be integers between 0 and ")
    assert text.endswith("got 1e+30")


@pytest.mark.parametrize("value, shown", [(1e30, "1e+30"), (2.0**63, "9.223372036854776e+18"),
                                          (np.uint64(2**64 - 1), "18446744073709551615")])
def test_integer_array_outside_int64_refused_with_the_value(value, shown):
    with pytest.raises(ValueError, match=rf"^x must be integers .*got {re.escape(shown)}$"):
        check_integer_array("x", value)


def test_integer_outside_int64_refused():
    with pytest.raises(ValueError, match=r"^n must be an integer between -9223372036854775808 "
                                         r"and 9223372036854775807, got 10000000000000000000000"):
        check_integer("n", 10**22)
    assert check_integer("n", 2**63 - 1) == 2**63 - 1


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
def test_number_must_be_finite(value):
    with pytest.raises(ValueError, match=r"^h must be a finite number, got"):
        check_number("h", value, min=0)


# --- rules files ---------------------------------------------------------------------------
def test_nan_in_parry_block_refused_at_load():
    with pytest.raises(RulesError, match=r"^<updated>: percentile.combat.sizes.parry_block\.1 "
                                         r"must be a finite number, got nan"):
        bl.load_rules().updated({"percentile": {"combat": {"sizes": {
            "parry_block": [float("nan"), 0.5]}}}})


def test_inf_in_a_table_cell_refused_at_load(tmp_path):
    path = tmp_path / "inf.toml"
    path.write_text("[percentile.combat.sizes]\nparry_block = [1.0, inf]\n", encoding="utf-8")
    with pytest.raises(RulesError, match=r"inf.toml: percentile.combat.sizes.parry_block\.2 "
                                         r"must be a finite number, got inf"):
        bl.load_rules(path)


def test_latin1_variant_names_the_file_and_the_byte(tmp_path):
    path = tmp_path / "variant.toml"
    path.write_bytes("# Règles\n[injuries]\ndeath_threshold = 180\n".encode("latin-1"))
    with pytest.raises(RulesError) as info:
        bl.load_rules(path)
    assert one_line(info) == (f"{path}: not UTF-8 text (byte 0xe8 at position 3); save it as "
                              "UTF-8")


@pytest.mark.parametrize("text", [
    "x = " + "[" * 1000 + "]" * 1000 + "\n",
    "x = " + "{a = " * 1000 + "1" + "}" * 1000 + "\n",
])
def test_toml_nested_deep_is_refused_without_recursion(tmp_path, text):
    path = tmp_path / "deep.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RulesError, match=r"deep.toml: nested more than 32 levels deep"):
        bl.load_rules(path)


def test_in_memory_overlay_nested_deep_is_refused():
    deep: dict = {}
    node = deep
    for _ in range(5000):
        node["a"] = {}
        node = node["a"]
    with pytest.raises(RulesError, match=r"^<updated>: nested more than 32 levels deep"):
        bl.load_rules().updated(deep)


@pytest.mark.parametrize("key, path", [
    ("hit_locations.roll", {"hit_locations": {"roll": "1d20+99999999999999999999"}}),
    ("combat.initiative_roll", {"combat": {"initiative_roll": "1d10+99999999999999999999"}}),
    ("combat.stun_roll", {"combat": {"stun_roll": "99999999999999999999d3"}}),
])
def test_huge_dice_constants_in_rules_refused_at_load(key, path):
    with pytest.raises(RulesError, match=rf"^<updated>: percentile.{key} = '.*': "):
        bl.load_rules().updated({"percentile": path})


def test_malformed_dice_in_rules_refused_at_load():
    with pytest.raises(RulesError, match=r"^<updated>: percentile.humans.STR = '3d6\+2d': '\+2d' "
                                         r"is not NdM \(e.g. 2d6\) or an integer$"):
        bl.load_rules().updated({"percentile": {"humans": {"STR": "3d6+2d"}}})


# --- the command line --------------------------------------------------------------------
def test_cli_huge_arrival_is_one_line():
    one_line_error(run_cli("rescue", "--arrival", "99999999999999999999999999"), "arrival")


def test_cli_deep_variant_is_one_line(tmp_path):
    path = tmp_path / "deep.toml"
    path.write_text("x = " + "[" * 1000 + "]" * 1000 + "\n", encoding="utf-8")
    one_line_error(run_cli("rules", "check", str(path)), "deep.toml", "nested")


def _boom(args):
    raise RuntimeError("the kernel\nbroke")


def _interrupted(args):
    raise KeyboardInterrupt


@pytest.fixture
def failing_test_command(monkeypatch):
    """`balance test 10` whose handler is replaced by ``request.param``."""
    real = cli.build_parser

    def patched(handler):
        def build(*args, **kwargs):
            parser = real(*args, **kwargs)
            sub = next(a for a in parser._actions if a.dest == "command")
            sub.choices["test"].set_defaults(func=handler)
            return parser
        monkeypatch.setattr(cli, "build_parser", build)
    return patched


def test_unexpected_exception_is_one_line_and_exit_1(failing_test_command, capsys, monkeypatch):
    monkeypatch.delenv("BALANCE_DEBUG", raising=False)
    failing_test_command(_boom)
    assert cli.main(["test", "10"]) == 1
    err = capsys.readouterr().err
    assert err == ("balance: error: internal error: RuntimeError: the kernel broke "
                   "(run with --debug for the traceback)\n")


def test_debug_flag_shows_the_traceback(failing_test_command, capsys, monkeypatch):
    monkeypatch.delenv("BALANCE_DEBUG", raising=False)
    failing_test_command(_boom)
    assert cli.main(["--debug", "test", "10"]) == 1
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "_boom" in err
    assert err.rstrip().splitlines()[-1] == ("balance: error: internal error: RuntimeError: "
                                             "the kernel broke")


def test_debug_environment_variable_shows_the_traceback(failing_test_command, capsys,
                                                        monkeypatch):
    monkeypatch.setenv("BALANCE_DEBUG", "1")
    failing_test_command(_boom)
    assert cli.main(["test", "10"]) == 1
    assert "Traceback (most recent call last)" in capsys.readouterr().err


def test_bad_input_stays_exit_2_one_line_and_debug_adds_the_traceback(capsys, monkeypatch):
    monkeypatch.delenv("BALANCE_DEBUG", raising=False)
    assert cli.main(["test", "10", "--rules", "no_such_file.toml"]) == 2
    assert capsys.readouterr().err.startswith(
        "balance: error: no_such_file.toml: no such rules file")
    assert cli.main(["--debug", "test", "10", "--rules", "no_such_file.toml"]) == 2
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err
    assert err.rstrip().splitlines()[-1].startswith("balance: error: no_such_file.toml")


def test_keyboard_interrupt_exits_130_with_one_line(failing_test_command, capsys):
    failing_test_command(_interrupted)
    assert cli.main(["test", "10"]) == 130
    assert capsys.readouterr().err == "balance: interrupted\n"


def test_cli_latin1_variant_is_one_line(tmp_path):
    (tmp_path / "variant.toml").write_bytes(b"[injuries]\n# \xff\ndeath_threshold = 180\n")
    line = one_line_error(run_cli("rules", "check", "variant.toml", cwd=tmp_path))
    assert line == ("balance: error: variant.toml: not UTF-8 text (byte 0xff at position 13); "
                    "save it as UTF-8")


# --- values written into messages (balance.errors.shown) -----------------------------------
def test_a_shown_value_is_one_line_cut_to_its_width():
    from balance.errors import shown
    assert shown("2d6" * 40, 20) == "'" + ("2d6" * 40)[:16] + "..."     # 20 characters
    text = shown(np.eye(3))                     # numpy writes arrays over several lines
    assert "\n" not in text and len(text) <= 60 and text.startswith("array([[1., 0., 0.], [0.")


def test_an_array_given_as_special_effects_is_refused_in_one_line():
    with pytest.raises(ValueError) as info:
        bl.economy.weapon_cost(damage="1d6", special=np.eye(2))
    assert one_line(info).startswith("special must be an integer or a list of integers")


def test_a_rules_value_of_a_thousand_items_is_named_not_written_out():
    with pytest.raises(RulesError) as info:
        bl.load_rules().updated({"d20": {"die": list(range(1000))}})
    text = one_line(info)
    assert text == "<updated>: d20.die must be an integer, got list of 1,000 values (a list)", text


def test_whole_numbers_beyond_int64_are_named_by_value_not_as_an_object_array():
    big = 10**30
    with pytest.raises(ValueError) as info:
        check_integer_array("negative_hp", np.array([5, big], dtype=object), min=1, max=10**6)
    assert one_line(info) == f"negative_hp must be integers between 1 and 1000000, got {big}"
    # whole numbers held as objects but within int64 are those integers
    assert check_integer_array("x", np.array([5, 7], dtype=object)).tolist() == [5, 7]
    r = run_cli("death", "--seconds", "5", "--negative-hp", str(big))
    assert one_line_error(r).endswith(f"got {big}")


def test_rescue_names_its_ap_option(capsys):
    assert cli.main(["rescue", "--ap", "-1"]) == 2
    assert capsys.readouterr().err.strip() == (
        "balance: error: argument --ap: must be an integer between 0 and 1000, got -1")


@pytest.mark.parametrize("argv", [["calibrate", "-1/2"], ["calibrate", "3/1", "-1/2"]])
def test_a_negative_ratio_is_refused_as_a_ratio_not_as_an_unknown_option(argv, capsys):
    # read as an option: "the following arguments are required" / "unrecognized arguments"
    assert cli.main(argv) == 2
    assert capsys.readouterr().err.strip() == (
        "balance: error: argument ratios: '-1/2' is not an adversity ratio; expected a "
        "fraction such as '3/1' or '1/2', a Fraction, an integer or a creature sheet")


def test_a_huge_unknown_name_is_cut_in_the_message(capsys):
    # a 100,000-character --injury was written back whole
    assert cli.main(["treat", "--cunning", "10", "--injury", "A" * 100_000,
                     "--level", "light"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and len(err) < 400 and "AAA..." in err, err[:500]
