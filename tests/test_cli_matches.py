"""``balance duel``, ``balance weapons``, ``balance campaign`` and ``balance rules check|show``
as a designer types them (review of issue 14, item 3): bad options refused in one line naming the
option and what it accepts, weapon names echoed as the table spells them in the chosen language,
the situations the duel library supports (surprise, charge, policies) on the command line, table
rows numbered from 1, no line of ``rules show`` over :data:`WIDTH` characters.

Everything runs in-process (``balance.cli.main``) with a few hundred trials.
"""
from __future__ import annotations

import json
import re

import pytest

import balance as bl
from balance.cli import main

#: widest line ``balance rules show`` may print
WIDTH = 100


def run(capsys, *argv):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse's refusals
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def refused(capsys, *argv) -> str:
    code, out, err = run(capsys, *argv)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("balance: error: "), (code, err)
    assert "Traceback" not in err and out == ""
    return lines[0]


# --- one-line errors naming the option and what it accepts ---------------------------------
#: (argv, the option the message must name, words of what is accepted)
BAD = [
    (["duel", "70", "--armour", "-1"], "--armour", "a whole number from 0 to"),
    (["duel", "70", "--other-armour", "1e400"], "--other-armour", "a whole number from 0 to"),
    (["weapons", "70", "--armour", "-3"], "--armour", "a whole number from 0 to"),
    (["duel", "100000000"], "SKILL", "a whole number from 0 to"),
    (["duel", "70", "100000000"], "OTHER_SKILL", "a whole number from 0 to"),
    (["weapons", "70", "--against", "100000000"], "--against", "a whole number from 0 to"),
    (["campaign", "--fights", "0"], "--fights", "a whole number from 1 to 500"),
    (["campaign", "--fights", "501"], "--fights", "a whole number from 1 to 500"),
    (["campaign", "--knockout-chance", "1.5"], "--knockout-chance", "a number from 0 to 1"),
    (["campaign", "--knockout-chance", "-0.1"], "--knockout-chance", "a number from 0 to 1"),
    (["campaign", "--knockout-chance", "nan"], "--knockout-chance", "a number from 0 to 1"),
    (["campaign", "--negative-hp", "0"], "--negative-hp", "never below 1"),
    (["campaign", "--negative-hp", "1d6-1"], "--negative-hp", "never below 1"),
    (["campaign", "--arrival", "-5"], "--arrival", "never below 0"),
    (["campaign", "--arrival", "1d0"], "--arrival", "faces"),
    (["campaign", "--cunning", "1000"], "--cunning", "a whole number from -100 to 100"),
    (["campaign", "--cunning", "-101"], "--cunning", "a whole number from -100 to 100"),
    (["campaign", "--hours-between", "-1"], "--hours-between", "a whole number from 0 to 8,760"),
    (["duel", "70", "--policy", "reckless"], "--policy", "default, legacy, none"),
    (["duel", "70", "--other-policy", "reckless"], "--other-policy", "default, legacy, none"),
    (["duel", "70", "--surprise", "both"], "--surprise", "first"),
]

#: library parameter names that must not reach a command-line error
PYTHON_NAMES = ("armour must", "knockout_chance", "negative_hp", "hours_between",
                "combat_style", "fights must", "cunning must", "arrival must")


@pytest.mark.parametrize("argv,option,accepted", BAD, ids=[" ".join(b[0]) for b in BAD])
def test_bad_option_is_named_with_what_it_accepts(capsys, argv, option, accepted):
    line = refused(capsys, *argv, "--trials", "10")
    assert f"argument {option}: " in line, line
    assert accepted in line, line
    assert not any(name in line for name in PYTHON_NAMES), line


def test_unknown_weapon_lists_the_table_in_the_chosen_language(capsys):
    rows = bl.load_rules().get("percentile.weapons.table")
    line = refused(capsys, "duel", "70", "--weapon", "nope", "--lang", "fr")
    assert "argument --weapon: " in line
    assert all(row["fr"] in line for row in rows), line
    line = refused(capsys, "weapons", "70", "--weapons", "dagger", "sabre")
    assert "argument --weapons: " in line and all(row["en"] in line for row in rows), line
    line = refused(capsys, "duel", "70", "--other-shield", "tower")
    assert "argument --other-shield: " in line
    assert all(row["en"] in line for row in bl.load_rules().get("percentile.shields.table"))


def test_the_bounds_agree_with_what_the_library_accepts():
    """The command line's campaign ranges are the library's: its largest value runs, one more
    is refused by bl.campaign.plan itself."""
    from balance.cli import matches

    for name, (low, high) in matches.CAMPAIGN_RANGES.items():
        for ok in (low, high):
            bl.campaign.plan(**{name: ok})
        for bad in (low - 1, high + 1):
            with pytest.raises(ValueError):
                bl.campaign.plan(**{name: bad})


# --- names as the table spells them; duplicates ---------------------------------------------
def test_duel_echoes_the_tables_name_in_the_chosen_language(capsys):
    for given in ("épée large", "Broadsword", "broadsword", "ÉPÉE LARGE"):
        code, out, _ = run(capsys, "duel", "70", "--weapon", given, "--lang", "fr",
                           "--trials", "50", "--format", "json")
        assert code == 0
        rows = json.loads(out)
        assert {r["weapon"] for r in rows} == {"Épée large"}
        assert {r["other_weapon"] for r in rows} == {"Épée large"}


def test_weapons_removes_duplicate_weapons(capsys):
    code, out, _ = run(capsys, "weapons", "70", "--weapons", "dagger", "Dague", "dagger",
                       "great_axe", "--trials", "20", "--format", "json")
    assert code == 0
    pairs = [(r["weapon"], r["against"]) for r in json.loads(out)]
    assert pairs == [("Dagger", "Dagger"), ("Dagger", "Great axe"),
                     ("Great axe", "Dagger"), ("Great axe", "Great axe")]


# --- the duel's situations -------------------------------------------------------------------
SITUATIONS = [
    ([], {}, "none"),
    (["--surprise", "second"], {"surprise": "second"}, "first surprises second"),
    (["--surprise", "first", "--charge", "second"], {"surprise": "first", "charge": "second"},
     "second surprises first; second charges"),
    (["--charge", "both"], {"charge": "both"}, "both charge"),
    (["--policy", "none", "--other-policy", "legacy"], {"policies": ("none", "legacy")},
     "none"),
]


@pytest.mark.parametrize("options,keywords,situation", SITUATIONS,
                         ids=[" ".join(s[0]) or "none" for s in SITUATIONS])
def test_duel_runs_the_situation_asked_for(capsys, options, keywords, situation):
    """The command's estimates are the library's for the same situation and seed, and the
    output says which situation it simulated."""
    code, out, _ = run(capsys, "duel", "70", "50", *options, "--trials", "300", "--seed", "5",
                       "--format", "json")
    assert code == 0
    rows = {r["metric"]: r for r in json.loads(out)}
    first, second = bl.percentile.combatant(70), bl.percentile.combatant(50)
    expected = bl.percentile.duel(first, second, trials=300, seed=5, **keywords).table
    for metric in ("first_wins", "second_wins", "rounds"):
        assert rows[metric]["estimate"] == pytest.approx(expected.loc[metric, "estimate"],
                                                         abs=1e-12)
    row = rows["first_wins"]
    assert row["situation"] == situation and row["seed"] == 5 and row["trials"] == 300
    policies = keywords.get("policies", ("default", "default"))
    assert (row["policy"], row["other_policy"]) == policies
    code, out, _ = run(capsys, "duel", "70", "50", *options, "--trials", "300", "--seed", "5")
    assert f"situation {situation}" in out.splitlines()[0] and "seed 5, trials 300" in out


def test_surprise_changes_the_answer(capsys):
    """Not a no-op: being surprised costs the first side (same seed, 300 duels)."""
    def first_wins(*options):
        code, out, _ = run(capsys, "duel", "70", "50", *options, "--trials", "300",
                           "--format", "json")
        return {r["metric"]: r for r in json.loads(out)}["first_wins"]["estimate"]
    assert first_wins("--surprise", "first") < first_wins()


# --- help text -------------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["duel", "weapons", "campaign"])
def test_help_has_no_doubled_percent_and_names_real_arguments(capsys, command):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    assert "%%" not in out and "AGAINST" not in out


# --- rules check / show ----------------------------------------------------------------------
def test_rules_check_numbers_rows_from_1_as_set_does(capsys, tmp_path):
    """The key shown for a changed row is the one --set takes for it."""
    rules = bl.load_rules().updated({"injuries": {"table": [
        dict(row, high=12) if i == 0 else dict(row, low=13) if i == 1 else dict(row)
        for i, row in enumerate(bl.load_rules()["injuries"]["table"])]}})
    path = tmp_path / "variant.toml"
    rules.save(path)
    code, out, _ = run(capsys, "rules", "check", path, "--format", "json")
    assert code == 0
    keys = {r["key"]: (r["bundled"], r["variant"]) for r in json.loads(out)}
    first, second = bl.load_rules()["injuries"]["table"][:2]
    assert keys == {"injuries.table.1.high": (str(first["high"]), "12"),
                    "injuries.table.2.low": (str(second["low"]), "13")}
    code, out, _ = run(capsys, "death", "--seconds", "40", "--negative-hp", "6", "--wounds",
                       "1", "--set", "injuries.table.1.high=12", "--set",
                       "injuries.table.2.low=13", "--format", "json")
    assert code == 0
    assert json.loads(out)[0]["death_probability"] == pytest.approx(
        bl.injuries.death_probability(40, 6, 1, rules=rules))


def test_rules_show_lines_fit_a_terminal(capsys):
    code, out, _ = run(capsys, "rules", "show")
    assert code == 0
    long = [line for line in out.splitlines() if len(line) > WIDTH]
    assert not long, f"{len(long)} lines over {WIDTH}: {long[0]!r}"


@pytest.mark.parametrize("action,column", [("assumptions", "note"), ("variants", "description")])
def test_rules_assumptions_and_variants_fit_a_terminal_and_keep_every_word(capsys, action, column):
    """Notes and descriptions are wrapped within WIDTH, not cut: each reads whole, in order."""
    code, out, _ = run(capsys, "rules", action, "--format", "json")
    assert code == 0
    rows = json.loads(out)
    code, out, _ = run(capsys, "rules", action)
    assert code == 0
    long = [line for line in out.splitlines() if len(line) > WIDTH]
    assert not long, f"{len(long)} lines over {WIDTH}: {long[0]!r}"
    assert out.splitlines()[0].split() == list(rows[0])
    letters = "".join(out.split())  # a word longer than the column (a path) is broken
    first = next(iter(rows[0]))  # key, variant: the row's first cell starts its first line
    starts = [line.split()[0] for line in out.splitlines()[1:] if not line.startswith(" ")]
    assert starts == [row[first] for row in rows]
    for row in rows:
        assert "".join(row[column].split()) in letters, row[first]


def test_rules_show_spreads_a_mapping_column_into_columns(capsys):
    """The creatures' stats are columns (stats.STR...), each value as the rules hold it."""
    code, out, _ = run(capsys, "rules", "show", "bestiary")
    assert code == 0
    creatures = bl.load_rules()["bestiary"]["creatures"]
    stats = list(creatures[0]["stats"])
    assert "{" not in out
    for name in stats:
        assert f"stats.{name}" in out
    # every creature's stats appear in its own row, in order
    for row in creatures:
        line = next(line for line in out.splitlines() if re.search(rf"\b{row['en']}\b", line))
        cells = line.split()
        values = [str(row["stats"][s]) for s in stats]
        shown = " ".join(cells)
        assert " ".join(values) in shown, (line, values)
