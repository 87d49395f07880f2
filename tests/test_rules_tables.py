"""Rules tables as spreadsheets: Rules.table / Rules.with_table and ``balance rules
export`` / ``balance rules import``, round trips and edited cells."""
from __future__ import annotations

import io

import pandas as pd
import pytest

import balance as bl
from balance.errors import RulesError
from balance.rules import tables
from cli_run import in_process


def test_table_is_the_rows_of_the_rules():
    rules = bl.load_rules()
    frame = rules.table("injuries.table")
    rows = rules.get("injuries.table")
    assert len(frame) == len(rows)
    assert list(frame.columns) == list(rows[0])
    assert [int(v) for v in frame["high"]] == [row["high"] for row in rows]
    assert frame.loc[len(rows) - 1, "en"] == rows[-1]["en"]


@pytest.mark.parametrize("key", tables.table_keys(bl.load_rules()))
def test_every_table_round_trips_through_csv(key, tmp_path):
    rules = bl.load_rules()
    path = tmp_path / "t.csv"
    path.write_text(tables.to_csv(rules, key), encoding="utf-8")
    again = rules.with_table(key, tables.read_csv(path))
    assert again.fingerprint == rules.fingerprint
    variant = tmp_path / "v.toml"
    variant.write_text(tables.variant_text(again, key), encoding="utf-8")
    assert bl.load_rules(variant).fingerprint == rules.fingerprint


def test_an_edited_cell_gives_the_new_value():
    rules = bl.load_rules()
    frame = rules.table("injuries.table")
    frame.loc[0, "modifier"] = -2
    edited = rules.with_table("injuries.table", frame)
    assert edited.get("injuries.table")[0]["modifier"] == -2
    assert isinstance(edited.get("injuries.table")[0]["modifier"], int)
    assert edited.get("injuries.table")[1:] == rules.get("injuries.table")[1:]
    # the treatment of that injury reads the new modifier: light = Cunning + 2 + modifier
    from balance.core import treatment
    name = rules.get("injuries.table")[0]["en"]
    assert treatment.treatment_chance(10, name, "light", rules=edited) == pytest.approx(
        (10 + 2 - 2) / 20)


def test_mapping_cells_round_trip_and_edit(tmp_path):
    rules = bl.load_rules()
    text = tables.to_csv(rules, "bestiary.creatures")
    frame = pd.read_csv(io.StringIO(text))
    first = rules.get("bestiary.creatures")[0]
    stats = dict(first["stats"])
    stats["STR"] = stats["STR"] + 1
    frame.loc[0, "stats"] = "{ " + ", ".join(f"{k} = {v}" for k, v in stats.items()) + " }"
    edited = rules.with_table("bestiary.creatures", frame)
    assert dict(edited.get("bestiary.creatures")[0]["stats"]) == stats


@pytest.mark.parametrize("edit, fragment", [
    (lambda f: f.assign(low=f["low"].where(f.index != 1, f.loc[1, "low"] + 1)),
     "table injuries.table, row 2"),
    (lambda f: f.rename(columns={"modifier": "modifer"}), "did you mean 'modifier'"),
    (lambda f: f.assign(modifier=f["modifier"].astype(object).where(f.index != 2, "x")),
     "row 3"),
])
def test_bad_edits_are_refused_in_one_line_naming_the_row(edit, fragment):
    rules = bl.load_rules()
    with pytest.raises(RulesError) as info:
        rules.with_table("injuries.table", edit(rules.table("injuries.table")))
    assert fragment in str(info.value) and "\n" not in str(info.value)


def test_not_a_table_is_named_with_the_tables():
    with pytest.raises(RulesError, match=r"'injuries.tabel' is not a table.*did you mean "
                                         r"'injuries.table'"):
        bl.load_rules().table("injuries.tabel")
    with pytest.raises(RulesError, match="not a table"):
        bl.load_rules().table("injuries.death_threshold")


def test_cli_export_edit_import_round_trip(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = in_process("rules", "export", "injuries.table", "--csv", "inj.csv")
    assert (code, err) == (0, "") and "inj.csv" in out
    code, _, err = in_process("rules", "import", "injuries.table", "inj.csv", "--out", "same.toml")
    assert code == 0, err
    assert bl.load_rules("same.toml").fingerprint == bl.load_rules().fingerprint
    # refuse to overwrite without --force, on both ends
    code, _, err = in_process("rules", "export", "injuries.table", "--csv", "inj.csv")
    assert code == 2 and "--force" in err and err.count("\n") == 1
    code, _, err = in_process("rules", "import", "injuries.table", "inj.csv", "--out", "same.toml")
    assert code == 2 and "--force" in err
    # an edited cell: the variant holds the new value, and only the table
    frame = pd.read_csv("inj.csv")
    frame.loc[4, "modifier"] = -7
    frame.to_csv("inj.csv", index=False)
    code, _, err = in_process("rules", "import", "injuries.table", "inj.csv", "--out",
                              "same.toml", "--force")
    assert code == 0, err
    variant = bl.load_rules("same.toml")
    assert variant.get("injuries.table")[4]["modifier"] == -7
    text = open("same.toml", encoding="utf-8").read()
    assert "[injuries]" in text and "death_threshold" not in text
    code, out, _ = in_process("rules", "check", "same.toml", "--format", "json")
    import json
    bundled = str(bl.load_rules().get("injuries.table")[4]["modifier"])
    assert json.loads(out) == [{"key": "injuries.table.5.modifier", "bundled": bundled,
                                "variant": "-7", "fingerprint": variant.fingerprint,
                                "bundled_fingerprint": bl.load_rules().fingerprint}]


def test_cli_import_of_a_broken_table_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    in_process("rules", "export", "injuries.table", "--csv", "inj.csv")
    frame = pd.read_csv("inj.csv")
    frame.loc[1, "low"] = frame.loc[1, "low"] + 1
    frame.to_csv("inj.csv", index=False)
    code, _, err = in_process("rules", "import", "injuries.table", "inj.csv", "--out", "v.toml")
    assert code == 2 and err.count("\n") == 1
    assert "inj.csv" in err and "row 2" in err
    assert not (tmp_path / "v.toml").exists()


def test_a_variant_with_modified_dice_loads_and_exports(tmp_path):
    variant = tmp_path / "v.toml"
    variant.write_text('[percentile.humans]\nSTR = "4d6kh3"\n', encoding="utf-8")
    code, out, err = in_process("rules", "check", variant)
    assert code == 0, err
    assert "4d6kh3" in out
