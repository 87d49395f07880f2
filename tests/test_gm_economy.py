"""NX economy (RULES.md §2.6): the guide's worked examples and the negotiation by enumeration."""
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import balance as bl

E = bl.economy


def test_longsword_160():
    assert E.weapon_cost(roll_bonus=2, damage="1d8", damage_bonus=2, special=0) == 160
    assert E.damage_cost("1d8", 2) == 120
    assert E.weapon_cost(roll_bonus=2, damage="1d8+2") == 160


def test_guide_price_examples():
    assert E.weapon_cost(roll_bonus=3, damage="1d4", damage_bonus=0) - 40 == 60  # STR+3 -> 60
    assert E.weapon_cost(roll_bonus=-1, damage="1d6") == 60 - 20                 # -1 -> -20 NX
    assert E.equipment_cost(bonus=2) == 40                                       # arm guard
    assert E.equipment_cost(bonus=2, special=0) == 40                            # grimoire
    assert E.roll_upgrade_cost(1, 3) == 40                                       # +1 -> +3
    assert E.bonus_upgrade_cost(2, 3) == 20
    assert E.damage_upgrade_cost("1d6", "1d8") == 20


def test_special_effects_are_held_to_the_rules_count():
    # the guide: one special effect at most, its value set by the GM (may be negative)
    assert E.weapon_cost(damage="1d6", special=-30) == 60 - 30
    assert E.weapon_cost(damage="1d6", special=[25]) == 60 + 25
    assert E.equipment_cost(bonus=1, special=[]) == 20
    with pytest.raises(ValueError, match=r"2 special effects.*at most 1 \(\[economy\] max_special_effects\)"):
        E.weapon_cost(damage="1d6", special=[10, 20])
    with pytest.raises(ValueError, match="at most 1"):
        E.equipment_cost(special=(5, 5))
    # a variant allowing two adds both values; one allowing none refuses any
    two = bl.load_rules().updated({"economy": {"max_special_effects": 2}})
    assert E.weapon_cost(damage="1d6", special=[10, -5], rules=two) == 60 + 5
    assert E.equipment_cost(bonus=0, special=[10, 20], rules=two) == 30
    none = bl.load_rules().updated({"economy": {"max_special_effects": 0}})
    assert E.equipment_cost(bonus=1, special=0, rules=none) == 20
    with pytest.raises(ValueError, match="1 special effects, but the rules allow at most 0"):
        E.equipment_cost(special=15, rules=none)
    with pytest.raises(ValueError, match="special must be an integer or a list"):
        E.weapon_cost(special="10")
    # a whole number written as a float is that integer, alone as in a list
    assert E.weapon_cost(damage="1d6", special=5.0) == E.weapon_cost(damage="1d6", special=5)
    assert E.equipment_cost(bonus=1, special=np.float64(5.0)) == 20 + 5
    assert E.equipment_cost(bonus=1, special=0.0) == 20
    with pytest.raises(ValueError, match=r"^special must be an integer.*got 5\.5$"):
        E.weapon_cost(special=5.5)
    # a list of any length is refused by its length, before its values are read
    with pytest.raises(ValueError, match=r"^special: 10000000 special effects.*got list of 10,000,000 values$"):
        E.weapon_cost(special=[0] * 10**7)


def test_resale_rounds_for_the_merchant():
    assert E.resale_price(200) == 100
    assert E.resale_price(75) == 37


@pytest.mark.parametrize("outcome, price", [
    ("success", 150),            # scenario 1: 16 vs 14
    ("critical_success", 100),   # scenario 2: natural 20
    ("failure", 200),            # scenario 3: 11 vs 14
    ("critical_failure", 200),   # scenario 4: natural 1 (and banned for the day)
])
def test_four_200_nx_scenarios(outcome, price):
    assert E.negotiated_price(200, outcome) == price


def test_scenarios_through_the_check():
    # CHA +2 against 14: a 14 on the die gives 16 (success), a 9 gives 11 (failure)
    dist = E.charisma_negotiation(price=200, charisma=2, difficulty=14)
    prices = dist.attrs["prices"]
    assert prices == {"critical_failure": 200, "failure": 200, "success": 150,
                      "critical_success": 100}


def _enumerate(price, cha, diff, selling):
    """Independent enumeration of the 20 faces with the guide's text."""
    counts = {"critical_failure": 0, "failure": 0, "success": 0, "critical_success": 0}
    total = Fraction(0)
    resale = price // 2
    for face in range(1, 21):
        if face == 1:
            k = "critical_failure"
        elif face == 20:
            k = "critical_success"
        elif face + cha >= diff:
            k = "success"
        else:
            k = "failure"
        counts[k] += 1
        if not selling:
            got = {"success": math.ceil(Fraction(3 * price, 4)),
                   "critical_success": math.ceil(Fraction(price, 2))}.get(k, price)
        else:
            got = {"success": math.floor(Fraction(5 * resale, 4)),
                   "critical_success": price}.get(k, resale)
        total += Fraction(got, 20)
    return {k: v / 20 for k, v in counts.items()}, total


@settings(max_examples=150, deadline=None)
@given(price=st.integers(0, 5000), cha=st.integers(-5, 8), diff=st.integers(0, 30),
       selling=st.booleans())
def test_negotiation_matches_enumeration(price, cha, diff, selling):
    probs, expected = _enumerate(price, cha, diff, selling)
    got = E.charisma_negotiation(price=price, charisma=cha, difficulty=diff, selling=selling)
    for k, p in probs.items():
        assert got[k] == pytest.approx(p, abs=1e-15)
    assert got.attrs["expected_price_exact"] == expected
    assert got["expected_price"] == pytest.approx(float(expected))


@pytest.mark.parametrize("call, word", [
    (lambda: E.weapon_cost(roll_bonus=4, damage="1d8"), "roll_bonus"),
    (lambda: E.weapon_cost(roll_bonus=3, damage="2d8"), "roll_bonus with 2 dice"),
    (lambda: E.weapon_cost(damage="3d6", damage_bonus=4), "damage_bonus with 3 dice"),
    (lambda: E.weapon_cost(damage="4d6"), "damage must roll between 1 and 3"),
    (lambda: E.weapon_cost(damage="5d6", two_handed=True), "between 1 and 4"),
    (lambda: E.weapon_cost(damage="1d7"), "damage"),
    (lambda: E.weapon_cost(damage="1d8", damage_bonus=-6), "damage_bonus"),
    (lambda: E.equipment_cost(bonus=4), "bonus"),
    (lambda: E.roll_upgrade_cost(1, 4), "to_bonus"),
    (lambda: E.roll_upgrade_cost(3, 1), "to_bonus"),
    (lambda: E.damage_upgrade_cost("1d8", "2d8", roll_bonus=3), "roll_bonus with 2 dice"),
    (lambda: E.negotiated_price(200, "great"), "outcome"),
    (lambda: E.charisma_negotiation(price=-1, charisma=0, difficulty=10), "price"),
])
def test_caps_are_clear_errors(call, word):
    with pytest.raises(ValueError, match=word):
        call()


def test_two_handed_four_dice_lowers_caps_by_three():
    assert E.bonus_caps(4) == (0, 2)
    assert E.weapon_cost(roll_bonus=0, damage="4d6", damage_bonus=2, two_handed=True) == 280


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_each_extra_die_lowers_both_caps(n):
    # RULES.md 2.6: roll bonus <= +3, damage bonus <= +5, each die beyond the first -1 on both.
    roll_max, damage_max = 3 - (n - 1), 5 - (n - 1)
    assert E.bonus_caps(n) == (roll_max, damage_max)
    damage = f"{n}d6"
    at_caps = E.weapon_cost(roll_bonus=roll_max, damage=damage, damage_bonus=damage_max,
                            two_handed=True)
    assert at_caps == roll_max * 20 + n * 60 + damage_max * 20
    assert E.weapon_cost(roll_bonus=-3, damage=damage, damage_bonus=-5, two_handed=True) == \
        -3 * 20 + n * 60 - 5 * 20                                   # the minima do not move
    with pytest.raises(ValueError, match="roll_bonus"):
        E.weapon_cost(roll_bonus=roll_max + 1, damage=damage, two_handed=True)
    with pytest.raises(ValueError, match="damage_bonus"):
        E.weapon_cost(damage=damage, damage_bonus=damage_max + 1, two_handed=True)


def test_the_200_nx_check_faces():
    # CHA +2 against 14, rolled over: faces 12..19 succeed (a 14 scores 16), 2..11 fail
    # (a 9 scores 11), 1 is the critical failure (banned for the day), 20 the critical success.
    dist = E.charisma_negotiation(price=200, charisma=2, difficulty=14)
    assert [dist[k] for k in E.OUTCOMES] == [1 / 20, 10 / 20, 8 / 20, 1 / 20]
    assert dist.attrs["expected_price_exact"] == Fraction(200 + 10 * 200 + 8 * 150 + 100, 20)


@pytest.mark.parametrize("call, word", [
    (lambda: E.negotiated_price(200, "success", selling="no"), "selling must be True or False"),
    (lambda: E.charisma_negotiation(200, 2, 14, selling="no"), "selling must be True or False"),
    (lambda: E.weapon_cost(damage="4d6", two_handed="yes"), "two_handed must be True or False"),
])
def test_flags_must_be_booleans(call, word):
    with pytest.raises(ValueError, match=word):
        call()
