"""Cross-field invariants found by the rules fuzzer (fuzz findings F3, F4): refused at load
with one line naming both values and the fix, and the variants next to them that stay valid
give the numbers RULES.md 2.5 / 3.2 define."""
import math

import pytest

import balance as bl
from balance import guide
from balance.errors import RulesError


@pytest.fixture(scope="module")
def rules():
    return bl.load_rules()


def refused(rules, overlay, *words):
    with pytest.raises(RulesError) as info:
        rules.updated(overlay, source="v.toml")
    text = str(info.value)
    assert text.startswith("v.toml: ") and "\n" not in text, text
    for word in words:
        assert word in text, (word, text)
    return text


def bands(*rows):
    return {"guide": {"falls": {"bands": [dict(r) for r in rows]}}}


NONE = {"outcome": "none", "en": "no damage", "fr": "aucun dégât"}
DICE = {"outcome": "dice", "en": "damage", "fr": "dégâts"}
DEAD = {"outcome": "dead", "en": "dead", "fr": "mort"}


# --- F3: a fall in the dice band rolls at least one die (RULES.md 2.5) ----------------------
def test_dice_band_below_first_die_refused(rules):
    refused(rules, {"guide": {"falls": {"metres_per_die": 3}}}, "guide.falls.metres_per_die = 3",
            "fall of 200 cm", "'damage'", "3 x 100 cm")


def test_centimetres_per_metre_counts_in_the_first_die(rules):
    # 2 m per die at 150 cm per metre: the first die at 300 cm, the band starts at 200
    with pytest.raises(RulesError, match=r"fall of 200 cm.*2 x 150 cm"):
        rules.updated({"guide": {"falls": {"centimetres_per_metre": 150}}}, source="v.toml")


def test_dice_band_moved_to_the_first_die_gives_floor_h_over_3(rules):
    r = rules.updated(merge({"guide": {"falls": {"metres_per_die": 3}}},
                            bands(dict(NONE, low=0, high=299), dict(DICE, low=300, high=999),
                                  dict(DEAD, low=1000))))
    for h in (0.0, 2.0, 2.99, 3.0, 5.99, 6.0, 8.5, 9.99):
        got = guide.fall(h, rules=r)
        n = math.floor(round(h * 100) / 300)  # whole dice of 3 m (heights in whole cm)
        assert got.dice == (f"{n}d6" if h >= 3 else "0"), (h, got)
        assert got.outcome == ("dice" if h >= 3 else "none")
    assert guide.fall(10.0, rules=r).outcome == "dead"


def merge(*overlays):
    out: dict = {}
    for overlay in overlays:
        for sec, table in overlay.items():
            out.setdefault(sec, {}).setdefault("falls", {}).update(table["falls"])
    return out


def test_closed_dice_band_held_to_the_dice_budget(rules):
    # 1 m per die: a band open at high = 100099 holds heights up to 1000.99 m, 1000 dice
    rules = rules.updated({"guide": {"falls": {"metres_per_die": 1}}})
    ok = rules.updated(bands(dict(NONE, low=0, high=199), dict(DICE, low=200, high=100099),
                             dict(DEAD, low=100100)))
    assert guide.fall(1000.99, rules=ok).dice == "1000d6"
    refused(rules, bands(dict(NONE, low=0, high=199), dict(DICE, low=200, high=100100),
                         dict(DEAD, low=100101)), "ends at 100100 cm", "1,001 dice",
            "at most 1,000 dice", "metres_per_die = 1")
    # closed: exactly high cm, so 1000.995 m is past it (and 100100 cm closed is 1001 dice)
    closed = rules.updated(bands(dict(NONE, low=0, high=199),
                                 dict(DICE, low=200, high=100099, closed=True),
                                 dict(DEAD, low=100100)))
    assert guide.fall(1000.99, rules=closed).dice == "1000d6"
    assert guide.fall(1000.995, rules=closed).outcome == "dead"
    refused(rules, bands(dict(NONE, low=0, high=199),
                         dict(DICE, low=200, high=100100, closed=True), dict(DEAD, low=100101)),
            "1,001 dice")


def test_open_dice_band_refuses_heights_over_the_dice_budget(rules):
    r = rules.updated(bands(dict(NONE, low=0, high=199), dict(DICE, low=200)))
    assert guide.fall(2000.5, rules=r).dice == "1000d6"
    with pytest.raises(ValueError) as info:
        guide.fall(2002, rules=r)
    text = str(info.value)
    assert "height 2002 m" in text and "1,001d6" in text and "\n" not in text, text


# --- F4: every attribute is of at least one characteristic (RULES.md 3.2) -------------------
def attributes():
    p = bl.load_rules()["percentile"]
    banded = ["action_points", "experience_modifier", "healing_rate", "luck_points",
              "damage_modifier", "location_hp"]
    return [(f"percentile.{a}", {"percentile": {a: {"inputs": []}}}) for a in banded] + \
        [(f"percentile.derived.{a}", {"percentile": {"derived": {a: {"inputs": []}}}})
         for a in p["derived"]]


@pytest.mark.parametrize("path, overlay", attributes(), ids=[a for a, _ in attributes()])
def test_empty_inputs_refused(rules, path, overlay):
    refused(rules, overlay, f"{path}.inputs is empty",
            "STR, CON, SIZ, DEX, INT, POW, CHA")


def test_empty_inputs_refused_by_rules_check(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dm.toml").write_text("[percentile.damage_modifier]\ninputs = []\n",
                                      encoding="utf-8")
    from balance.cli import main
    assert main(["rules", "check", "dm.toml"]) == 2
