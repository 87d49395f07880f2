"""The command line, consistent: --set on every command with --rules, fixed default seeds,
one number format, header values in JSON, --lang, readable ``rules show``, and the new
commands (dice, duel, weapons, campaign) against independent computations."""
from __future__ import annotations

import io
import itertools
import json
import math
from collections import Counter
from fractions import Fraction
from importlib import resources

import numpy as np
import pandas as pd
import pytest

import balance as bl
from balance.cli.options import DEFAULT_SEED
from cli_run import in_process
from cli_table import commands


def json_rows(*argv):
    code, out, err = in_process(*argv, "--format", "json")
    assert code == 0, err
    return json.loads(out)


# --- --set -------------------------------------------------------------------------------
def test_every_command_with_rules_takes_set():
    for path, parser in commands().items():
        options = {o for a in parser._actions for o in a.option_strings}
        if "--rules" in options:
            assert "--set" in options, path


def death(threshold, seconds=40, negative_hp=6, wounds=1):
    """The closed form of RULES.md 1.2: clip((100 - (T - k) + 1) / 100, 0, 1)."""
    k = (wounds + 1) * (seconds + negative_hp)
    return min(1.0, max(0.0, (100 - (threshold - k) + 1) / 100))


def test_set_changes_one_value_as_a_variant_file_does():
    (row,) = json_rows("death", "--seconds", "40", "--negative-hp", "6", "--wounds", "1",
                       "--set", "injuries.death_threshold=180")
    assert row["death_probability"] == pytest.approx(death(180))
    # applied in command-line order with --rules
    (row,) = json_rows("death", "--seconds", "40", "--negative-hp", "6", "--wounds", "1",
                       "--rules", "death_threshold_180", "--set", "injuries.death_threshold=190")
    assert row["death_probability"] == pytest.approx(death(190))
    (row,) = json_rows("death", "--seconds", "40", "--negative-hp", "6", "--wounds", "1",
                       "--set", "injuries.death_threshold=190", "--rules", "death_threshold_180")
    assert row["death_probability"] == pytest.approx(death(180))


def test_set_edits_a_table_row_by_number():
    name = bl.load_rules().get("injuries.table")[0]["en"]
    (row,) = json_rows("treat", "--cunning", "10", "--injury", name, "--level", "light",
                       "--set", "injuries.table.1.modifier=-2")
    assert row["chance"] == pytest.approx((10 + 2 - 2) / 20)  # Cunning + 2 + the row's modifier


@pytest.mark.parametrize("value, fragment", [
    ("injuries.death_treshold=180", "did you mean 'death_threshold'"),
    ("injries.death_threshold=180", "did you mean 'injuries'"),
    ("injuries.death_threshold=[1,", "injuries.death_threshold"),
    ("injuries.death_threshold=-5", "injuries.death_threshold"),
    ("injuries.table.99.modifier=1", "rows 1 to"),
    ("injuries.table.1.modifer=1", "did you mean 'modifier'"),
    ("injuries.death_threshold", "KEY=VALUE"),
])
def test_set_errors_are_one_line_naming_the_key(value, fragment):
    code, out, err = in_process("death", "--seconds", "40", "--negative-hp", "6", "--set", value)
    assert code == 2 and out == ""
    assert err.startswith("balance: error: ") and err.count("\n") == 1
    assert fragment in err


def test_set_values_are_toml():
    from balance.cli.options import setting_arg
    assert setting_arg("a.b=180").value == 180
    assert setting_arg("a.b=0.5").value == 0.5
    assert setting_arg('a.b="two words"').value == "two words"
    assert setting_arg("a.b=[1, 2]").value == [1, 2]
    assert setting_arg("a.b=true").value is True
    assert setting_arg("a.b=Hard").value == "Hard"  # a bare word is text


# --- seeds, numbers, headers, languages ----------------------------------------------------
@pytest.mark.parametrize("argv", [
    ["injuries", "--seconds", "10", "--negative-hp", "3", "--trials", "2000"],
    ["rescue", "--trials", "2000"],
    ["dice", "3d6", "--trials", "1000"],
])
def test_monte_carlo_commands_default_to_a_printed_fixed_seed(argv):
    first, second = in_process(*argv), in_process(*argv)
    assert first[0] == 0 and first == second
    assert f"seed {DEFAULT_SEED}" in first[1].splitlines()[0]


def test_table_output_has_four_decimals_and_csv_full_precision():
    code, out, _ = in_process("death", "--seconds", "40", "--negative-hp", "6", "--wounds", "1")
    assert out.splitlines()[1].split()[-1] == f"{death(176):.4f}"
    code, out, _ = in_process("dice", "1d3", "--format", "csv")
    frame = pd.read_csv(io.StringIO(out))
    assert frame["probability"].tolist() == [1 / 3] * 3  # not rounded


def test_json_keeps_the_header_values():
    rows = json_rows("tiers", "65", "--grade", "Hard")
    assert {(r["skill"], r["grade"]) for r in rows} == {(65, "Hard")}
    rows = json_rows("negotiate", "--psychology", "12")
    best = [r["ask"] for r in rows if r["best"]]
    assert {r["best_ask"] for r in rows} == set(best)
    rows = json_rows("injuries", "--seconds", "10", "--negative-hp", "3", "--trials", "500")
    assert {(r["seed"], r["trials"]) for r in rows} == {(DEFAULT_SEED, 500)}


def test_lang_names_things_in_french():
    rules = bl.load_rules()
    names = {row["key"]: row["fr"] for row in rules.get("percentile.tiers.table")}
    code, out, _ = in_process("tiers", "65", "--lang", "fr")
    assert code == 0 and all(name in out for name in names.values())
    table = rules.get("injuries.table")
    code, out, _ = in_process("injuries", "--seconds", "5", "--negative-hp", "3", "--lang", "fr")
    shown = [row for row in table if row["fr"] in out]
    assert shown and not any(row["en"] in out.split() and row["en"] != row["fr"] for row in shown)


# --- rules show / variants -----------------------------------------------------------------
def test_rules_show_prints_tables_readably():
    code, out, _ = in_process("rules", "show")
    assert code == 0 and max(len(line) for line in out.splitlines()) <= 200
    code, out, _ = in_process("rules", "show", "injuries")
    lines = out.splitlines()
    assert any(line.split() == ["low", "high", "modifier", "en", "fr"] for line in lines)
    first = bl.load_rules().get("injuries.table")[0]
    assert any(line.split()[:3] == [str(first["low"]), str(first["high"]),
                                    str(first["modifier"])] for line in lines)


def test_rules_variants_show_their_descriptions():
    rows = json_rows("rules", "variants")
    for row in rows:
        text = (resources.files("balance.rules") / "variants" / f"{row['variant']}.toml"
                ).read_text(encoding="utf-8")
        first = text.splitlines()[0].lstrip("# ").removeprefix("Example variant: ")
        assert row["description"].startswith(first)


# --- balance dice --------------------------------------------------------------------------
def keep_highest_3_of_4d6():
    counts = Counter(sum(sorted(r)[1:]) for r in itertools.product(range(1, 7), repeat=4))
    return {v: Fraction(c, 6 ** 4) for v, c in counts.items()}


def test_dice_command_answers_like_anydice():
    exact = keep_highest_3_of_4d6()
    rows = {r["value"]: r for r in json_rows("dice", "4d6kh3")}
    assert set(rows) == set(exact)
    for v, p in exact.items():
        assert rows[v]["probability"] == pytest.approx(float(p), abs=1e-15)
        assert rows[v]["at_least"] == pytest.approx(float(sum(q for w, q in exact.items()
                                                                if w >= v)), abs=1e-14)
        assert rows[v]["at_most"] == pytest.approx(float(sum(q for w, q in exact.items()
                                                               if w <= v)), abs=1e-14)
    mean = sum(v * p for v, p in exact.items())
    sd = math.sqrt(sum(v * v * p for v, p in exact.items()) - mean ** 2)
    assert rows[18]["mean"] == pytest.approx(float(mean), abs=1e-6)
    assert rows[18]["sd"] == pytest.approx(sd, abs=1e-6)
    code, out, _ = in_process("dice", "4d6kh3")
    lines = out.splitlines()
    assert lines[0].startswith("dice 4d6kh3, mean 12.2446")  # 15,869 / 1,296
    bars = {int(line.split()[0]): line.split()[-1] for line in lines[2:]}
    assert bars[13] == "#" * 30 and 0 < len(bars[3]) < len(bars[12])


def test_dice_command_samples_with_the_seed():
    rows = json_rows("dice", "2d20kl1", "--trials", "4000", "--seed", "7")
    draws = bl.dice.sample("2d20kl1", 4000, 7)
    values, counts = np.unique(draws, return_counts=True)
    assert [r["value"] for r in rows] == values.tolist()
    assert [r["count"] for r in rows] == counts.tolist()
    assert all(r["ci_low"] <= r["probability"] <= r["ci_high"] for r in rows)


def test_dice_command_errors_and_plot(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = in_process("dice", "4d6kx3")
    assert code == 2 and "'x3'" in err and err.count("\n") == 1
    code, _, err = in_process("dice", "100d100kh50")
    assert code == 2 and "sample it" in err
    code, _, err = in_process("dice", "1d6!", "--plot", "d.png")
    assert code == 0, err
    assert (tmp_path / "d.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, _, err = in_process("dice", "1d6", "--plot", "d.png")
    assert code == 2 and "--force" in err
    assert in_process("dice", "1d6", "--plot", "d.png", "--force")[0] == 0


# --- duel, weapons, campaign: the public functions, wired with the default seed -----------
def test_duel_command_is_the_percentile_duel():
    rows = {r["metric"]: r for r in json_rows("duel", "60", "45", "--other-weapon", "dagger",
                                              "--trials", "3000")}
    first = bl.percentile.combatant(60)
    second = bl.percentile.combatant(45, weapon="dagger")
    table = bl.percentile.duel(first, second, trials=3000, seed=DEFAULT_SEED).table
    for metric in ("first_wins", "second_wins", "rounds"):
        assert rows[metric]["estimate"] == pytest.approx(table.loc[metric, "estimate"])
        assert rows[metric]["ci_low"] == pytest.approx(table.loc[metric, "ci_low"])
    assert rows["first_wins"]["other_skill"] == 45 and rows["first_wins"]["seed"] == DEFAULT_SEED


def test_weapons_command_pairs_weapons_at_unequal_skills():
    rows = json_rows("weapons", "60", "--against", "40", "--weapons", "dagger", "great_axe",
                     "--trials", "1000")
    assert [(r["weapon"], r["against"]) for r in rows] == [
        ("Dagger", "Dagger"), ("Dagger", "Great axe"), ("Great axe", "Dagger"),
        ("Great axe", "Great axe")]
    seeds = np.random.SeedSequence(DEFAULT_SEED).spawn(4)
    table = bl.percentile.duel(bl.percentile.combatant(60, weapon="dagger"),
                               bl.percentile.combatant(40, weapon="great_axe"),
                               trials=1000, seed=seeds[1]).table
    assert rows[1]["win"] == pytest.approx(table.loc["first_wins", "estimate"])
    assert rows[1]["ci_high"] == pytest.approx(table.loc["first_wins", "ci_high"])


def test_campaign_command_is_the_campaign_simulation():
    rows = json_rows("campaign", "--fights", "4", "--knockout-chance", "0.5", "--trials", "3000")
    sim = bl.campaign.simulate(4, 0.5, trials=3000, seed=DEFAULT_SEED)
    assert [r["probability"] for r in rows] == pytest.approx(sim.table["probability"].tolist())
    assert [r["fight"] for r in rows] == [1, 2, 3, 4]
