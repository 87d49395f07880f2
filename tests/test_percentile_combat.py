"""Combat rules as functions (RULES.md 3.3): initiative, parry by size, knockback, charge."""
from __future__ import annotations

import math

import pytest

import balance as bl

P = bl.percentile
SIZES = ["Small", "Medium", "Large", "Huge", "Enormous"]


@pytest.mark.parametrize("dex_int,enc,surprised", [(24, 0, False), (25, 0, False), (24, 7, True),
                                                   (31, 5, False), (20, 11, True)])
def test_initiative_enumerated(dex_int, enc, surprised):
    expected = {}
    for d10 in range(1, 11):
        value = d10 + math.ceil(dex_int / 2) - math.ceil(enc / 5) - (10 if surprised else 0)
        expected[value] = expected.get(value, 0) + 0.1
    assert P.initiative(dex_int, enc, surprised=surprised).to_dict() == pytest.approx(expected)


@pytest.mark.parametrize("attack", SIZES)
@pytest.mark.parametrize("parry", SIZES)
def test_parry_by_size(attack, parry):
    smaller = SIZES.index(attack) - SIZES.index(parry)
    for damage in range(0, 13):
        blocked = damage if smaller <= 0 else (damage + 1) // 2 if smaller == 1 else 0
        assert P.parry_blocked(damage, attack, parry) == blocked


def test_knockback_one_metre_per_five_over_siz():
    assert P.knockback_metres([13, 14, 17, 18, 22, 23, 40], 13).tolist() == [0, 0, 0, 1, 1, 2, 5]


def test_grades_step_along_the_table():
    assert P.harder_grade("Standard") == "Hard"
    assert P.harder_grade("Hard", 2) == "Herculean"
    assert P.harder_grade("Easy", -1) == "Very Easy"
    assert P.harder_grade("Herculean", 5) == "Hopeless"


def test_charge():
    c = P.charge(60, 34, "Medium")
    assert (c["grade"], c["skill"], c["damage_modifier"], c["weapon_size"]) == \
        ("Hard", 40, "+1d6", "Large")
    q = P.charge(60, 34, "Enormous", grade="Easy", quadruped=True)
    assert (q["grade"], q["skill"], q["damage_modifier"], q["weapon_size"]) == \
        ("Standard", 60, "+1d8", "Enormous")


@pytest.mark.parametrize("call,name", [
    (lambda: P.initiative(-1), "dex_int"),
    (lambda: P.initiative(24, -5), "armour_enc"),
    (lambda: P.initiative(24, surprised="no"), "surprised"),
    (lambda: P.parry_blocked(5, "Medium", "Tiny"), "parry_size"),
    (lambda: P.parry_blocked(-1, "Medium", "Small"), "damage"),
    (lambda: P.knockback_metres(5, 0), "siz"),
    (lambda: P.harder_grade("Sisyphean"), "grade"),
    (lambda: P.charge(60, 34, "Colossal"), "size"),
    (lambda: P.charge(60, 34, "Medium", quadruped=1), "quadruped"),
])
def test_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()
