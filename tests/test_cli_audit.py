"""Issue 14 driven as a designer would in a terminal: every message a user reads names a
table row the way ``--set`` and ``balance rules show`` do (``injuries.table.4.low``), no
JSON ``null`` where a designer reads, and the command-line bounds come from one place."""
from __future__ import annotations

import json
import math

import pytest

import balance as bl
from balance.rules.budget_checks import check_rules
from balance.rules.invariants.common import finite_numbers
from balance.rules.tables import variant_text
from cli_run import in_process, one_error



def injury_rows() -> list[dict]:
    return [dict(r) for r in bl.rules.plain(bl.load_rules().get("injuries.table"))]


def write_table(path, rows: list[dict]) -> str:
    """A variant file holding only ``injuries.table`` = ``rows`` (as ``rules import`` writes)."""
    text = variant_text(bl.load_rules().updated({"injuries": {"table": rows}}), "injuries.table")
    path.write_text(text, encoding="utf-8")
    return str(path)


# --- one key form for a row ---------------------------------------------------------------
def test_non_finite_cell_of_a_variant_is_named_as_set_takes_it(tmp_path):
    rows = injury_rows()
    text = write_table(tmp_path / "v.toml", rows)
    broken = tmp_path / "nan.toml"
    broken.write_text(open(text, encoding="utf-8").read().replace("low = 31,", "low = nan,"),
                      encoding="utf-8")
    line = one_error("rules", "check", broken)
    assert "injuries.table.4.low must be a finite number, got nan" in line, line
    assert "[" not in line.split(": ", 2)[2], line


def test_budget_and_invariant_messages_name_list_items_as_set_takes_them():
    with pytest.raises(bl.RulesError, match=r"^v\.toml: a\.b\.2 = '2000d6'"):
        check_rules({"a": {"b": ["1d6", "2000d6"]}}, lambda path: "v.toml")
    with pytest.raises(bl.RulesError, match=r"^v\.toml: a\.b\.2\.x = nan is not a finite"):
        finite_numbers({"a": {"b": [{"x": 1}, {"x": math.nan}]}}, lambda path: "v.toml")


def test_the_key_a_message_names_is_one_set_takes():
    """The key of the message, given to --set, is accepted (the same form both ways)."""
    with pytest.raises(bl.RulesError) as info:
        finite_numbers({"percentile": {"combat": {"sizes": {"parry_block": [1.0, math.nan]}}}},
                       lambda path: "v.toml")
    key = str(info.value).split(": ", 1)[1].split(" = ")[0]
    assert key == "percentile.combat.sizes.parry_block.2"
    code, out, err = in_process("rules", "show", "percentile.combat.sizes", "--set", f"{key}=0.4")
    assert code == 0 and "[1.0, 0.4]" in out, err


# --- rules check: a row only one side has --------------------------------------------------
def test_rules_check_names_a_removed_row_without_json_null(tmp_path):
    """As the report's "What these rules change" shows it (report.compare.value_shown)."""
    rows = injury_rows()
    rows[2]["high"] = rows[3]["high"]
    del rows[3]
    path = write_table(tmp_path / "short.toml", rows)
    code, out, err = in_process("rules", "check", path)
    assert code == 0, err
    assert "null" not in out and '{"low"' not in out, out
    # rows are matched by name (tests/test_row_identity.py): Tired, the fourth row, is removed
    gone = [line for line in out.splitlines() if line.split()[:1] == ["injuries.table.4"]]
    assert len(gone) == 1 and gone[0].split()[-1] == "—" and "low 31 · high 40" in gone[0] \
        and "Tired" in gone[0], out
    code, out, err = in_process("rules", "check", path, "--format", "json")
    record = [r for r in json.loads(out) if r["key"] == "injuries.table.4"]
    assert record and record[0]["variant"] == "—", out


def test_ladder_message_agrees_step_with_its_count():
    line = one_error("rules", "show", "encounters.ladder",
                     "--set", 'encounters.ladder=["1/3","1/1","2/1","3/1","4/1","5/1"]')
    assert "moves its base ratio 1/2 -1 step, but" in line and "(s)" not in line, line


# --- the duel commands' input bounds: defined once, in balance.budgets ----------------------
def test_duel_input_bounds_are_budgets_not_constants_of_the_command():
    import inspect

    from balance import budgets
    from balance.cli import matches

    source = inspect.getsource(matches)
    assert "MAX_SKILL =" not in source and "MAX_ARMOUR =" not in source
    assert budgets.MAX_SKILL == budgets.MAX_ARMOUR == 10_000
    limit = f"{budgets.MAX_SKILL + 1}"
    assert one_error("duel", limit).startswith(
        f"balance: error: argument SKILL: a whole number from 0 to {budgets.MAX_SKILL:,}, "
        f"got '{limit}'")
    assert "argument --armour: a whole number from 0 to 10,000, got '-1'" in \
        one_error("weapons", "50", "--armour", "-1")


# --- a library's parameter names never reach a command-line error ---------------------------
NAMED = [
    (["death", "--seconds", "-1", "--negative-hp", "1"], "argument --seconds: must be"),
    (["death", "--seconds", "1", "--negative-hp", "0"], "argument --negative-hp: must be"),
    (["rescue", "--negative-hp", "0"], "argument --negative-hp: must never be below 1"),
    (["rescue", "--arrival", "1d0"], "argument --arrival: bad dice expression '1d0'"),
    (["rescue", "--wounds", "-1"], "argument --wounds: must be"),
    (["rest", "8:15", "--hp", "5", "--max-hp", "3"],
     "argument --hp: must be at most --max-hp (3), got 5"),
    (["negotiate", "--psychology", "12", "--ask", "0"], "argument --ask: must be a number > 0"),
    (["fight", "goblin", "--level", "0"], "argument --level: must be"),
    (["calibrate", "1/2", "--pcs", "0"], "argument --pcs: must be"),
    (["charisma", "--price", "-1", "--charisma", "3"], "argument --price: must be"),
    (["tiers", "-1"], "argument skill: must be"),
    (["tiers", "65", "--grade", "x"], "argument --grade: must be one of 'Very Easy'"),
    (["opposed", "60", "50", "--first-grade", "x"], "argument --first-grade: must be one of"),
]


@pytest.mark.parametrize("argv,start", NAMED, ids=[" ".join(a) for a, _ in NAMED])
def test_a_refused_value_is_named_by_its_option(argv, start):
    line = one_error(*argv)
    assert line.startswith(f"balance: error: {start}"), line
    assert not any(name in line for name in ("negative_hp", "max_hp", "first_grade")), line


# --- tables as spreadsheets: what a spreadsheet saves -------------------------------------
def exported(tmp_path) -> str:
    path = tmp_path / "injuries.csv"
    code, out, err = in_process("rules", "export", "injuries.table", "--csv", path)
    assert code == 0, err
    return path.read_text(encoding="utf-8")


def imported(tmp_path, key: str, csv_path) -> tuple:
    """``balance rules import KEY CSV --out v.toml`` (it must succeed): the table it wrote."""
    out = tmp_path / "v.toml"
    code, text, err = in_process("rules", "import", key, csv_path, "--out", out)
    assert code == 0, err
    return bl.load_rules(str(out)).get(key)


def test_import_reads_a_semicolon_csv_as_a_french_spreadsheet_saves_it(tmp_path):
    text = exported(tmp_path)
    semi = tmp_path / "semi.csv"
    semi.write_text(text.replace(",", ";").replace("31;40", "31;45").replace("41;50", "46;50"),
                    encoding="utf-8")
    rows = imported(tmp_path, "injuries.table", semi)
    assert (rows[3]["high"], rows[4]["low"], rows[3]["fr"]) == (45, 46, "Fatigué")


def test_import_of_a_csv_not_in_utf8_says_how_to_save_it(tmp_path):
    latin = tmp_path / "latin.csv"
    latin.write_bytes(exported(tmp_path).encode("cp1252"))
    line = one_error("rules", "import", "injuries.table", latin, "--out", tmp_path / "v.toml")
    assert "latin.csv: not UTF-8 text (byte 0xc9" in line and "save it as CSV UTF-8" in line, \
        line
    assert not (tmp_path / "v.toml").exists()


def test_import_names_the_csv_holding_an_unknown_column(tmp_path):
    extra = tmp_path / "extra.csv"
    extra.write_text("\n".join(line + ",z" for line in exported(tmp_path).splitlines()),
                     encoding="utf-8")
    line = one_error("rules", "import", "injuries.table", extra, "--out", tmp_path / "v.toml")
    assert line.startswith(f"balance: error: {extra}: table injuries.table: unknown column 'z'")


@pytest.mark.parametrize("argv", [["export", "injuries.table", "--csv"],
                                  ["import", "injuries.table", "IN", "--out"]])
def test_rules_export_import_refuse_a_missing_folder_before_any_work(tmp_path, argv):
    source = tmp_path / "in.csv"
    source.write_text(exported(tmp_path), encoding="utf-8")
    target = tmp_path / "typo" / "out.file"
    argv = [str(source) if a == "IN" else a for a in argv]
    line = one_error("rules", *argv, target)
    assert line == f"balance: error: {argv[-1]} {target}: the folder {target.parent} does " \
                   "not exist", line


# --- --lang names everything a command prints from the rules --------------------------------
def test_treat_names_the_levels_in_the_chosen_language():
    code, out, err = in_process("treat", "--cunning", "12", "--injury", "Broken", "--lang", "fr",
                                "--format", "csv")
    assert code == 0, err
    assert [line.split(",")[2] for line in out.splitlines()[1:]] == ["léger", "complet"], out
    code, out, err = in_process("treat", "--cunning", "12", "--injury", "Broken", "--level",
                                "COMPLET", "--format", "csv")
    assert code == 0 and out.splitlines()[1].split(",")[2] == "full", (out, err)
    line = one_error("treat", "--cunning", "12", "--injury", "Broken", "--level", "heavy")
    assert line.startswith("balance: error: unknown --level 'heavy'"), line


def test_tiers_header_names_the_grade_computed_in_the_chosen_language():
    """A variant's default grade is the one named (it was always 'Standard')."""
    from balance.percentile import rolls

    hard = rolls.tier_probabilities(65, "Hard")
    code, out, err = in_process("tiers", "65", "--set", 'percentile.grades.default="Hard"',
                                "--format", "json")
    rows = json.loads(out)
    assert code == 0 and {r["grade"] for r in rows} == {"Hard"}, (out, err)
    assert [r["probability"] for r in rows] == pytest.approx(list(hard))
    code, out, err = in_process("tiers", "65", "--grade", "très FACILE")
    assert code == 0 and out.splitlines()[0] == "skill 65, grade Very Easy", (out, err)
    code, out, err = in_process("tiers", "65", "--grade", "Very Easy", "--lang", "fr")
    assert code == 0 and out.splitlines()[0] == "skill 65, grade Très facile", (out, err)


@pytest.mark.parametrize("argv,message", [
    (["x:15"], "argument HOURS:SCORE: 'x:15': hours must be a whole number, got 'x'"),
    (["8:15", "8:superb"], "argument HOURS:SCORE: '8:superb': unknown quality 'superb'"),
    (["8:15", "--", "-1:15"], "argument HOURS:SCORE: '-1:15': hours must be an integer "
                              "between 0 and"),
])
def test_rest_names_the_segment_as_typed(argv, message):
    line = one_error("rest", *argv)
    assert line.startswith(f"balance: error: {message}"), line
    assert "segments[" not in line, line


# --- every Monte Carlo command prints its seed ----------------------------------------------
def test_report_prints_the_seed_and_trials_it_was_drawn_with(tmp_path):
    code, out, err = in_process("report", "--sections", "d20", "--trials", "300", "--seed", "5",
                                "--quiet", "--out", tmp_path / "rep")
    assert code == 0, err
    assert out.startswith(f"{tmp_path / 'rep' / 'index.html'}  (seed 5, 300 trials; "), out


def test_a_wrong_type_shows_the_value_as_toml_writes_it():
    line = one_error("death", "--seconds", "40", "--negative-hp", "6",
                     "--set", "injuries.death_threshold=true")
    assert line.endswith("injuries.death_threshold must be an integer, got true (true/false)"), \
        line
    line = one_error("death", "--seconds", "40", "--negative-hp", "6",
                     "--set", "injuries.table.3.high=false")
    assert line.endswith("high must be an integer, got false (true/false)"), line


# --- balance diff: its --csv and --html as every other output -------------------------------
DIFF = ["diff", "bundled", "death_threshold_180", "--only", "death.p*", "--trials", "100"]


@pytest.mark.parametrize("option", ["--csv", "--html"])
def test_diff_keeps_an_existing_file_unless_forced(tmp_path, option):
    mine = tmp_path / "mine.txt"
    mine.write_text("precious", encoding="utf-8")
    line = one_error(*DIFF, option, mine)
    assert line == f"balance: error: {option} {mine}: already exists; pass --force to " \
                   "replace it", line
    assert mine.read_text(encoding="utf-8") == "precious"
    code, out, err = in_process(*DIFF, option, mine, "--force")
    assert code == 1 and mine.read_text(encoding="utf-8") != "precious", err


@pytest.mark.parametrize("option", ["--csv", "--html"])
def test_diff_refuses_a_missing_folder_before_any_work(tmp_path, option):
    target = tmp_path / "typo" / "d.out"
    code, out, err = in_process(*DIFF, option, target)
    assert code == 2 and out == "", out      # refused before the table is computed
    assert err.strip() == f"balance: error: {option} {target}: the folder {target.parent} " \
                          "does not exist", err


# --- --format json / csv: one document on stdout, whatever else the command does ------------
def test_tune_and_sensitivity_outputs_stay_one_json_document_when_they_write_a_file(tmp_path):
    import csv
    import io

    save, plot = tmp_path / "t.toml", tmp_path / "s.png"
    tune = ["tune", "--metric", "death.p@40s,6hp,1w", "--target", "0.1",
            "--vary", "injuries.death_threshold", "--save", save]
    code, out, err = in_process(*tune, "--format", "json")
    assert code == 0 and json.loads(out)[0]["value"] == 183 and save.is_file(), (out, err)
    assert f"wrote {save}" in err
    code, out, err = in_process(*tune[:-1], tmp_path / "t2.toml", "--format", "csv")
    assert code == 0 and [r["value"] for r in csv.DictReader(io.StringIO(out))] == ["183"], out
    code, out, err = in_process("sensitivity", "--metric", "death.p@40s,6hp,1w", "--vary",
                                "injuries.death_threshold", "--plot", plot, "--format", "json")
    assert code == 0 and json.loads(out)[0]["key"] == "injuries.death_threshold", (out, err)
    assert plot.is_file() and f"wrote {plot}" in err
    code, out, err = in_process(*tune[:-1], tmp_path / "t3.toml")
    assert code == 0 and out.rstrip().endswith(f"wrote {tmp_path / 't3.toml'}"), out


def test_recalibrate_prints_one_json_document_and_one_csv_table(tmp_path):
    import csv
    import io

    argv = ["recalibrate", "--trials", "100", "--levels", "5", "--families", "Wolf", "Goblin",
            "Ogre", "--held-out", "Ogre+Goblin"]
    code, out, err = in_process(*argv, "--format", "json")
    assert code == 0, err
    records = json.loads(out)
    assert {r["table"] for r in records} == {"ratios", "check"}
    assert all(r["seed"] == 20260101 and r["trials"] == 100 for r in records)
    ratios = [r for r in records if r["table"] == "ratios"]
    assert all(r["creature"] and r["proposed_ratio"] for r in ratios)
    code, out, err = in_process(*argv, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and [r["table"] for r in rows] == [r["table"] for r in records], out


# --- rules show takes the keys the messages name -------------------------------------------
def test_rules_show_takes_a_row_key_as_set_and_the_messages_name_it():
    code, out, err = in_process("rules", "show", "injuries.table.4")
    assert code == 0, err
    assert [line.split() for line in out.splitlines() if line.startswith("injuries.")] == [
        ["injuries.table.4.low", "31"], ["injuries.table.4.high", "40"],
        ["injuries.table.4.modifier", "0"], ["injuries.table.4.en", "Tired"],
        ["injuries.table.4.fr", "Fatigué"]], out
    code, out, err = in_process("rules", "show", "injuries.table.4.en", "--format", "json")
    assert code == 0 and json.loads(out) == "Tired", (out, err)
    code, out, err = in_process("rules", "show", "injuries.table.4", "--set",
                                "injuries.table.4.modifier=-5", "--format", "json")
    assert code == 0 and json.loads(out)["modifier"] == -5, (out, err)
    code, out, err = in_process("rules", "show", "percentile.combat.sizes.parry_block.2")
    assert code == 0 and "percentile.combat.sizes.parry_block.2  0.5" in out, (out, err)
    assert one_error("rules", "show", "injuries.table.99") == \
        "balance: error: no rule 'injuries.table.99': injuries.table has rows 1 to 29, got '99'"
    assert one_error("rules", "show", "injuries.table.4.nope").startswith(
        "balance: error: no rule 'injuries.table.4.nope': injuries.table.4 has no column "
        "'nope'; columns: low, high, modifier, en, fr")


def test_rules_show_csv_of_a_table_is_one_cell_a_line_keyed_as_set_takes_it():
    code, out, err = in_process("rules", "show", "injuries", "--format", "csv")
    assert code == 0, err
    lines = out.splitlines()
    assert "injuries.table.4.low,31" in lines and "injuries.table.29.en,The end is near" in lines
    assert max(map(len, lines)) < 100, max(lines, key=len)


def test_duel_header_names_the_shields_it_simulated():
    rows = bl.load_rules().get("percentile.shields.table")
    code, out, err = in_process("duel", "70", "--shield", rows[0]["key"], "--other-shield",
                                rows[1]["en"], "--trials", "200", "--lang", "fr")
    assert code == 0, err
    header = out.splitlines()[0]
    assert f"shield {rows[0]['fr']}" in header and f"other shield {rows[1]['fr']}" in header, \
        header
    code, out, err = in_process("duel", "70", "--trials", "200")
    assert code == 0 and "shield" not in out.splitlines()[0], out   # none: nothing to name


def test_import_ignores_the_empty_cells_a_spreadsheet_leaves_around_a_table(tmp_path):
    """A trailing empty column (every line ending in a comma) and rows of empty cells are no
    data: the table reads as exported."""
    lines = exported(tmp_path).splitlines()
    padded = tmp_path / "padded.csv"
    padded.write_text("\n".join(line + "," for line in lines) + "\n,,,,,\n,,,,,\n",
                      encoding="utf-8")
    code, out, err = in_process("rules", "import", "injuries.table", padded,
                                "--out", tmp_path / "v.toml")
    assert code == 0, err
    assert f"fingerprint {bl.load_rules().fingerprint}" in out, out
    named = tmp_path / "named.csv"     # a column with a header is a column: refused by name
    named.write_text("\n".join(lines[:1] + [line + ",x" for line in lines[1:]]).replace(
        "fr\n", "fr,notes\n", 1) + "\n", encoding="utf-8")
    assert "unknown column 'notes'" in one_error("rules", "import", "injuries.table", named,
                                                 "--out", tmp_path / "w.toml")


def test_a_french_spreadsheet_round_trip_keeps_integers_whole_and_reads_decimal_commas(
        tmp_path):
    """``percentile.magic.veneration``: an open-ended last row (no ``high``) made pandas
    write the integer bounds as 99.0; a French spreadsheet writes 0,25 for 0.25."""
    path = tmp_path / "ven.csv"
    code, out, err = in_process("rules", "export", "percentile.magic.veneration", "--csv", path)
    assert code == 0, err
    text = path.read_text(encoding="utf-8")
    assert text.splitlines()[1:3] == ["0,99,0.25", "100,999,0.5"], text
    french = tmp_path / "ven_fr.csv"
    french.write_text(text.replace(",", ";").replace("0.25", "0,3").replace("0.5", "0,5"),
                      encoding="utf-8")
    rows = imported(tmp_path, "percentile.magic.veneration", french)
    assert [r["fraction"] for r in rows] == [0.3, 0.5, 0.75, 1.0]
    assert [r.get("high") for r in rows] == [99, 999, 9999, None]


def test_rules_show_prints_whole_numbers_whole_next_to_an_empty_cell():
    code, out, err = in_process("rules", "show", "percentile.magic.veneration")
    assert code == 0, err
    rows = [line.split() for line in out.splitlines()[-4:]]
    assert rows == [["0", "99", "0.25"], ["100", "999", "0.5"], ["1000", "9999", "0.75"],
                    ["10000", "1.0"]], out


def test_diff_and_check_print_the_seeds_and_trials_they_drew_with(tmp_path):
    from balance.regression.diff import independent_seed

    code, out, err = in_process(*DIFF, "--seed", "7")
    assert code == 1, err
    assert out.splitlines()[0] == f"seed 7 (base), {independent_seed(7)} (variant); 100 " \
                                  "trials per Monte Carlo metric", out
    code, out, err = in_process(*DIFF, "--seed", "7", "--crn")
    assert out.splitlines()[0] == "seed 7 (both sides: common random numbers); 100 trials " \
                                  "per Monte Carlo metric", out
    snap = tmp_path / "s.json"
    code, out, err = in_process("snapshot", "--out", snap, "--trials", "200", "--seed", "3",
                                "--only", "death.p*")
    assert code == 0, err
    code, out, err = in_process("check", "--baseline", snap)
    assert code == 0 and out.splitlines()[0].startswith("seed 3 (the baseline's; both sides"), out


def test_rules_check_json_and_csv_keep_the_fingerprints():
    variant = bl.load_rules("death_threshold_180")
    code, out, err = in_process("rules", "check", "death_threshold_180", "--format", "json")
    rows = json.loads(out)
    assert code == 0 and rows and {(r["fingerprint"], r["bundled_fingerprint"]) for r in rows} \
        == {(variant.fingerprint, bl.load_rules().fingerprint)}, out
    code, out, err = in_process("rules", "check", "death_threshold_180", "--format", "csv")
    assert out.splitlines()[0] == "key,bundled,variant,fingerprint,bundled_fingerprint", out


@pytest.mark.parametrize("argv,start", [
    (["fight", "Dragonn", "--trials", "100"],
     "argument creatures: unknown creature 'Dragonn' (did you mean 'Dragon'?)"),
    (["fight", "Goblin", "--party", "Wariror", "--trials", "100"],
     "argument --party: unknown party member 'Wariror' (did you mean 'Warrior'?)"),
])
def test_fight_names_the_argument_holding_an_unknown_name(argv, start):
    assert one_error(*argv).startswith(f"balance: error: {start}")


def test_calibrate_takes_bestiary_names_as_fight_does():
    from balance.guide import creatures, encounters

    want = encounters.calibration([creatures.creature("Goblin"), creatures.creature("Troll"),
                                   "1/2"], 3)
    code, out, err = in_process("calibrate", "goblin", "Troll", "1/2", "--pcs", "3",
                                "--format", "json")
    assert code == 0, err
    row = json.loads(out)[0]
    assert (row["calibration"], row["challenge"]) == (str(want.value), want.challenge), row
    line = one_error("calibrate", "Goblinn")
    assert line.startswith("balance: error: argument ratios: 'Goblinn' is neither an adversity "
                           "ratio (e.g. 3/1 or 1/2) nor a creature of the bestiary (did you mean "
                           "'Goblin'?); creatures: Goblin, Dragon, "), line
    assert "3/0" in one_error("calibrate", "3/0")


def test_charisma_prints_its_expected_price_in_one_format():
    code, out, err = in_process("charisma", "--price", "100", "--charisma", "3",
                                "--difficulty", "99")
    assert code == 0, err
    title, header = out.splitlines()[:2]
    assert title == "expected price: 97.5000" and header.endswith("expected price 97.5000"), out
