"""Encounter calibration (RULES.md §2.4): the guide's examples, exact fractions, advice, bad input."""
import math
import warnings
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

import balance as bl
from balance.guide.encounters import EncounterAdvice


def test_dragon_and_two_babies_is_demanding():
    assert bl.encounters.calibration(ratios=["3/1", "1/2", "1/2"], pcs=4) == \
        (Fraction(0, 1), "Demanding")


def test_minus_one_half_is_manageable():
    assert bl.encounters.calibration(["3/1", "1/2"], pcs=4) == (Fraction(-1, 2), "Manageable")
    assert bl.encounters.calibration(["3/1"], pcs=4) == (Fraction(-1), "Manageable")


def test_ratios_as_fractions_ints_and_sheets():
    dragon = bl.creatures.creature("Dragon")
    baby = bl.creatures.creature("Baby Dragon")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert bl.encounters.calibration([dragon, baby, baby], 4) == (0, "Demanding")
        assert bl.encounters.calibration([3, Fraction(1, 2), "1/2"], 4).value == 0


@settings(max_examples=100, deadline=None)
@given(parts=st.lists(st.sampled_from(["1/3", "1/2", "1/1", "2/1", "3/1"]), min_size=1,
                      max_size=5), pcs=st.integers(1, 6))
def test_challenge_is_the_floor_band(parts, pcs):
    value = sum(Fraction(p) for p in parts) - pcs
    names = {-2: "Easy", -1: "Manageable", 0: "Demanding", 1: "Intense", 2: "Impossible"}
    expected = names[min(max(math.floor(value), -2), 2)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EncounterAdvice)
        assert bl.encounters.calibration(parts, pcs) == (value, expected)


def test_french_challenge_names():
    got = [bl.encounters.challenge(v, lang="fr") for v in (-3, -1, 0, 1, 5)]
    assert got == ["Facile", "Gérable", "Exigeant", "Intense", "Impossible"]


def test_advice_is_warned_not_raised():
    wolves = [bl.creatures.creature("Wolf", 9)] * 6
    with pytest.warns(EncounterAdvice, match="6 creatures is more than PCs \\+ 1 = 5 by 1"):
        bl.encounters.calibration(wolves, 4)
    lines = bl.encounters.advice(wolves, 4, party_levels=[5, 5, 5, 5])
    assert any("outside the average PC level 5 +/- 1 by 3" in line for line in lines)
    no_area = bl.creatures.sheet(level=5, base_hp=12, size="large", STR=3, CON=1, name="Brute")
    assert any("no area ability" in line for line in bl.encounters.advice([no_area], 4))
    assert not any("area" in line for line in
                   bl.encounters.advice([bl.creatures.creature("Dragon")], 4))


@pytest.mark.parametrize("ratios, pcs, word", [
    (["3/1", "half"], 4, "ratios"), (["1/0"], 4, "ratios"), (["0/1"], 4, "ratios"),
    ([], 4, "ratios"), (["1/1"], 0, "pcs"), (["1/1"], -2, "pcs"),
])
def test_bad_input(ratios, pcs, word):
    with pytest.raises(ValueError, match=word):
        bl.encounters.calibration(ratios, pcs)


def test_site_boss_ratios_variant():
    site = bl.load_rules("boss_ratios_site")
    assert bl.encounters.adjusted_ratio("medium", "boss", 12, rules=site) == Fraction(4)
    assert bl.creatures.creature("Dragon", rules=site).adversity_ratio == Fraction(4)
    assert bl.creatures.creature("Wolf", rules=site).adversity_ratio == Fraction(1)
    assert bl.encounters.adjusted_ratio("titanic", "boss", 12, rules=site) == Fraction(7)


def test_levels_3_5_5_7_example():
    # The guide's personalised encounter: a level-3 creature of ratio 1/1, a level-5 one of
    # 2/1 and a level-7 one of 1/1 against PCs of levels 3, 5, 5, 7: calibration 1 + 2 + 1 - 4.
    ones = dict(size="medium", base_hp=7, STR=1, DEX=1, CON=1)             # sum 3: 1/1
    a = bl.creatures.sheet(level=3, name="A", **ones)
    b = bl.creatures.sheet(level=5, size="large", base_hp=12, name="B", targets=2,
                           STR=2, DEX=1, CON=1)                             # sum 4: 2/1
    c = bl.creatures.sheet(level=7, name="C", **ones)
    assert [x.adversity_ratio for x in (a, b, c)] == [1, 2, 1]
    with pytest.warns(EncounterAdvice) as caught:
        assert bl.encounters.calibration([a, b, c], 4, party_levels=[3, 5, 5, 7]) == \
            (0, "Demanding")
    # average PC level 5: the level-3 and level-7 creatures lie 2 from it, 1 beyond +/- 1
    assert sorted(str(w.message) for w in caught) == [
        "A is level 3, outside the average PC level 5 +/- 1 by 1",
        "C is level 7, outside the average PC level 5 +/- 1 by 1"]


@pytest.mark.parametrize("call, word", [
    (lambda: bl.encounters.challenge("x"), "value must be a finite calibration"),
    (lambda: bl.encounters.challenge(float("nan")), "value must be a finite calibration"),
    (lambda: bl.encounters.advice(["1/2"], 4, party_levels=5), "party_levels must be a list"),
])
def test_more_bad_input(call, word):
    with pytest.raises(ValueError, match=word):
        call()


def test_a_base_ratio_off_the_ladder():
    # A variant may set a base ratio between rungs: a neutral stat sum keeps it; a step along
    # the ladder from it is undefined, so it is an error rather than a silent snap to a rung.
    rules = bl.load_rules()
    rows = [dict(r) for r in rules["encounters"]["base_ratios"]]
    rows[2]["ratio"] = "3/2"                                        # standard medium
    variant = rules.updated({"encounters": {"base_ratios": rows}})
    assert bl.encounters.adjusted_ratio("medium", "standard", 5, rules=variant) == Fraction(3, 2)
    with pytest.raises(ValueError, match="base ratio 3/2 is not on the ladder"):
        bl.encounters.adjusted_ratio("medium", "standard", 12, rules=variant)
    assert bl.encounters.adjusted_ratio("titanic", "boss", 5) == Fraction(5)
    assert bl.encounters.adjusted_ratio("titanic", "boss", 10) == Fraction(6)
    assert bl.encounters.adjusted_ratio("titanic", "boss", 0) == Fraction(4)
