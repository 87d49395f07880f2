"""Characteristics, derived attributes, hit locations and magic (RULES.md 3.2, seed 002)."""
from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest

import balance as bl

P = bl.percentile


# -- bands at their edges, continued past the tables ----------------------------------------
def ref_band_12(x):          # Action Points: <=12 1; 13-24 2; 25-36 3; +1 per further 12
    return 1 if x <= 12 else 2 + (x - 13) // 12


def ref_band_6(x, first):    # <=6 first; 7-12 first+1; 13-18 first+2; +1 per further 6
    return first if x <= 6 else first + 1 + (x - 7) // 6


@pytest.mark.parametrize("x", [0, 1, 6, 7, 12, 13, 18, 19, 24, 25, 30, 31, 36, 37, 48, 49, 60, 61,
                               100])
def test_bands_at_edges(x):
    assert P.action_points(x) == ref_band_12(x)
    assert P.experience_modifier(x) == ref_band_6(x, -1)
    assert P.healing_rate(x) == ref_band_6(x, 1)
    assert P.luck_points(x) == ref_band_6(x, 1)


def test_bands_document_values():
    assert [P.action_points(x) for x in (12, 13, 24, 25, 36, 37, 48, 49)] == \
        [1, 2, 2, 3, 3, 4, 4, 5]
    assert [P.experience_modifier(x) for x in (6, 7, 12, 13, 18, 19)] == [-1, 0, 0, 1, 1, 2]
    assert P.action_points(np.array([12, 25])).tolist() == [1, 3]


def test_linear_attributes():
    assert P.magic_points(13) == 13
    assert [P.initiative_bonus(x) for x in (24, 25, 26)] == [12, 13, 13]   # (DEX+INT)/2 up
    assert P.endurance(11) == 22 and P.willpower(9) == 18 and P.evade(14) == 28
    assert P.combat_style_base(23) == 23


DM = [(5, "-1d8"), (6, "-1d6"), (10, "-1d6"), (11, "-1d4"), (15, "-1d4"), (16, "-1d2"),
      (20, "-1d2"), (21, "+0"), (25, "+0"), (26, "+1d2"), (30, "+1d2"), (31, "+1d4"),
      (34, "+1d4"), (35, "+1d4"), (36, "+1d6"), (40, "+1d6"), (41, "+1d8"), (45, "+1d8"),
      (46, "+1d10"), (50, "+1d10"), (51, "+1d12"), (60, "+1d12"), (61, "+2d6"), (70, "+2d6"),
      (71, "+1d8+1d6"), (80, "+1d8+1d6"), (81, "+2d8"), (90, "+2d8"), (91, "+1d10+1d8"),
      (100, "+1d10+1d8"), (101, "+2d10"), (110, "+2d10"), (111, "+2d10+1d2"),
      (120, "+2d10+1d2"),
      # one more step per further 10 (the Mythras progression, assumed)
      (121, "+2d10+1d4"), (130, "+2d10+1d4"), (131, "+2d10+1d6"), (141, "+2d10+1d8"),
      (151, "+3d10"), (160, "+3d10"), (161, "+3d10+1d2"), (201, "+4d10")]


@pytest.mark.parametrize("str_siz,expected", DM)
def test_damage_modifier_table_and_continuation(str_siz, expected):
    assert P.damage_modifier(str_siz) == expected


def test_damage_modifier_steps_and_arrays():
    assert P.damage_modifier(34, steps=1) == "+1d6"      # a charge
    assert P.damage_modifier(34, steps=2) == "+1d8"      # a quadruped's charge
    assert P.damage_modifier(120, steps=1) == "+2d10+1d4"
    assert list(P.damage_modifier(np.array([5, 34, 151]))) == ["-1d8", "+1d4", "+3d10"]


HP = {"head": [1, 2, 3, 4, 5, 6, 7, 8], "chest": [3, 4, 5, 6, 7, 8, 9, 10],
      "abdomen": [2, 3, 4, 5, 6, 7, 8, 9], "arm": [1, 1, 2, 3, 4, 5, 6, 7],
      "leg": [1, 2, 3, 4, 5, 6, 7, 8]}


def ref_hp(kind, x):
    band = (x - 1) // 5
    return HP[kind][band] if band < 8 else HP[kind][7] + (x - 36) // 5


@pytest.mark.parametrize("x", [1, 5, 6, 10, 11, 21, 25, 26, 35, 36, 40, 41, 45, 46, 50, 51, 99])
def test_location_hp_edges_and_continuation(x):
    hp = P.location_hp(x)
    for key, kind in (("head", "head"), ("chest", "chest"), ("abdomen", "abdomen"),
                      ("right_arm", "arm"), ("left_arm", "arm"), ("right_leg", "leg"),
                      ("left_leg", "leg")):
        assert hp[key] == ref_hp(kind, x)


def test_location_hp_issue_example():
    hp = P.location_hp(25)
    assert list(hp.index[:3]) == ["head", "chest", "abdomen"]
    assert (hp["head"], hp["chest"], hp["abdomen"], hp["right_arm"], hp["left_leg"]) == \
        (5, 7, 6, 4, 5)


# -- distributions over rolled humans vs enumeration of the dice ----------------------------
D6 = range(1, 7)


def enumerate_sum(n3d6: int, n2d6p6: int):
    """Counter of the sum of n3d6 characteristics rolled 3d6 and n2d6p6 rolled 2d6+6."""
    out = Counter()
    for faces in itertools.product(D6, repeat=3 * n3d6 + 2 * n2d6p6):
        out[sum(faces) + 6 * n2d6p6] += 1
    return out


def _dist(counter, f):
    total = sum(counter.values())
    out = Counter()
    for x, c in counter.items():
        out[f(x)] += c / total
    return dict(out)


@pytest.fixture(scope="module")
def int_dex():
    return enumerate_sum(1, 1)          # INT (2d6+6) + DEX (3d6): 6**5 outcomes


def test_action_points_distribution(int_dex):
    got = P.human_distribution("action_points")
    assert got.to_dict() == pytest.approx(_dist(int_dex, ref_band_12))
    assert got[2] == pytest.approx(sum(c for x, c in int_dex.items() if 13 <= x <= 24) / 6**5)


def test_initiative_bonus_distribution(int_dex):
    got = P.human_distribution("initiative_bonus")
    assert got.to_dict() == pytest.approx(_dist(int_dex, lambda x: math.ceil(x / 2)))


def test_single_characteristic_distributions():
    cha = enumerate_sum(1, 0)
    assert P.human_distribution("experience_modifier").to_dict() == pytest.approx(
        _dist(cha, lambda x: ref_band_6(x, -1)))
    assert P.human_distribution("healing_rate").to_dict() == pytest.approx(
        _dist(cha, lambda x: ref_band_6(x, 1)))
    assert P.human_distribution("magic_points").to_dict() == pytest.approx(_dist(cha, lambda x: x))
    assert P.human_distribution("SIZ").to_dict() == pytest.approx(
        _dist(enumerate_sum(0, 1), lambda x: x))


def test_damage_modifier_and_hp_distributions():
    str_siz = enumerate_sum(1, 1)        # STR 3d6 + SIZ 2d6+6
    bands = [(5, "-1d8"), (10, "-1d6"), (15, "-1d4"), (20, "-1d2"), (25, "+0"), (30, "+1d2"),
             (35, "+1d4"), (40, "+1d6"), (45, "+1d8")]

    def dm(x):
        return next(name for high, name in bands if x <= high)

    assert P.human_distribution("damage_modifier").to_dict() == pytest.approx(_dist(str_siz, dm))
    got = P.human_distribution("location_hp")
    for key, kind in (("chest", "chest"), ("left_arm", "arm")):
        assert got[key].to_dict() == pytest.approx(_dist(str_siz, lambda x: ref_hp(kind, x)))


def test_sample_humans_against_the_dice():
    n = 20_000
    humans = P.sample_humans(n, seed=3)
    assert list(humans.columns) == ["STR", "CON", "SIZ", "DEX", "INT", "POW", "CHA"]
    exact = {"STR": enumerate_sum(1, 0), "SIZ": enumerate_sum(0, 1)}
    for column in humans.columns:
        dist = exact["SIZ" if column in ("SIZ", "INT") else "STR"]
        total = sum(dist.values())
        observed = humans[column].value_counts()
        assert set(observed.index) <= set(dist)            # only values the dice can roll
        for value, count in dist.items():                   # each value within 5 SE
            p = count / total
            assert abs(observed.get(value, 0) / n - p) <= 5 * math.sqrt(p * (1 - p) / n)


# -- hit locations -----------------------------------------------------------------------------
def test_hit_locations_enumerated():
    table = P.hit_locations().set_index("location")
    d20 = {"right_leg": range(1, 4), "left_leg": range(4, 7), "abdomen": range(7, 10),
           "chest": range(10, 13), "right_arm": range(13, 16), "left_arm": range(16, 19),
           "head": range(19, 21)}
    for key, faces in d20.items():
        assert table.loc[key, "probability"] == pytest.approx(len(faces) / 20)
        mounted = sum(1 for f in range(1, 11) if f + 10 in faces) / 10
        assert P.hit_locations(mounted=True).set_index("location").loc[key, "probability"] == \
            pytest.approx(mounted)
    assert P.location_of([1, 3, 4, 19, 20]).tolist() == [0, 0, 1, 6, 6]


# -- magic ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("skill,known", [(0, 0), (1, 1), (20, 1), (21, 2), (40, 2), (41, 3),
                                         (100, 5)])
def test_abilities_known(skill, known):
    assert P.abilities_known(skill) == known


def test_magic_point_sources_do_not_stack():
    assert P.best_source({"self": 12, "temple": P.veneration_source(20, 50)}) == ("self", 12)
    assert P.veneration_source(20, 99) == 5 and P.veneration_source(20, 10_000) == 20
    assert P.location_source(12, 4) == 12 and P.location_source(12, 1) == 3


def test_casting_checklist():
    ok = P.casting_conditions()
    assert ok["all_met"] and ok["can_cast"] and ok["grade_steps"] == 0
    gagged = P.casting_conditions(voice=False, wound="minor", willpower_passed=False)
    assert not gagged["voice"] and not gagged["all_met"] and gagged["grade_steps"] == 1
    assert P.casting_conditions(wound="serious")["grade_steps"] == 1
    assert P.casting_conditions(wound="serious", willpower_passed=False)["grade_steps"] == 2
    assert not P.casting_conditions(wound="major")["can_cast"]
    assert not P.casting_conditions(dominated=True)["can_cast"]


def test_casting_checklist_reads_whether_domination_fails():
    # [percentile.magic.casting] dominated_fails: the checklist and the casting tiers agree
    free = bl.load_rules().updated({"percentile": {"magic": {"casting": {"dominated_fails": False}}}})
    assert P.casting_conditions(dominated=True, rules=free)["can_cast"]
    assert float(P.casting_tiers(60, dominated=True, rules=free)["success"]) > 0
    assert not P.casting_conditions(dominated=True, wound="major", rules=free)["can_cast"]


# -- variants ----------------------------------------------------------------------------------
def test_variant_bands_are_validated_and_used():
    base = bl.load_rules()
    table = [{"low": 0, "high": 10, "value": 1}, {"low": 11, "value": 2, "step": 10,
                                                     "increment": 1}]
    rules = base.updated({"percentile": {"action_points": {"table": table}}})
    assert [P.action_points(x, rules=rules) for x in (10, 11, 20, 21, 31)] == [1, 2, 2, 3, 4]
    gap = [{"low": 0, "high": 10, "value": 1}, {"low": 12, "value": 2}]
    with pytest.raises(bl.RulesError, match="gap"):
        base.updated({"percentile": {"action_points": {"table": gap}}})
    assert "percentile.weapons" in set(base.assumptions["key"])


def test_average_human_comes_from_the_dice():
    assert P.average_human() == {"STR": 11, "CON": 11, "SIZ": 13, "DEX": 11, "INT": 13,
                                 "POW": 11, "CHA": 11}
