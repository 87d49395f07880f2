"""Opposed and differential rolls (RULES.md 3.1) against enumeration of the 100 x 100 roll pairs."""
from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import balance as bl
from percentile_oracle import GRADE_FACTORS, RANK, ref_effects, ref_tier

P = bl.percentile
# the earlier reading of RULES.md 3.1, kept as a rules switch: only a side that succeeded wins
OLD_READING = bl.rules.resolve(None).updated({"percentile": {"contest": {
    "winner_must_succeed": True}}})


def over_100(a: int, b: int) -> tuple[int, int]:
    top = max(a, b)
    x = top - 100 if top > 100 else 0
    return max(a - x, 0), max(b - x, 0)


def ref_contest(a: int, b: int, winner_must_succeed: bool = False):
    """(opposed counts, differential counts) by walking every pair of rolls."""
    a, b = over_100(a, b)
    opposed = {"first_wins": 0, "second_wins": 0, "stalemate": 0}
    effects = {k: 0 for k in range(-3, 4)}
    for r1 in range(1, 101):
        t1 = RANK[ref_tier(r1, a)]
        for r2 in range(1, 101):
            t2 = RANK[ref_tier(r2, b)]
            ok1, ok2 = t1 >= 2, t2 >= 2
            if not ok1 and not ok2:
                opposed["stalemate"] += 1
            elif t1 != t2:
                opposed["first_wins" if t1 > t2 else "second_wins"] += 1
            elif r1 == r2:
                opposed["stalemate"] += 1
            else:
                opposed["first_wins" if r1 > r2 else "second_wins"] += 1
            effects[ref_effects(t1, t2, winner_must_succeed)] += 1
    return ({k: v / 1e4 for k, v in opposed.items()}, {k: v / 1e4 for k, v in effects.items()})


PAIRS = [(65, 80), (70, 50), (50, 70), (0, 0), (3, 97), (5, 5), (100, 100), (101, 100),
         (130, 80), (80, 130), (250, 40), (96, 104), (1, 200), (44, 44)]


@pytest.mark.parametrize("a,b", PAIRS)
def test_opposed_and_differential_match_enumeration(a, b):
    opposed, effects = ref_contest(a, b)
    got = P.opposed(a, b)
    assert list(got.index) == ["first_wins", "second_wins", "stalemate"]
    assert got.to_dict() == pytest.approx(opposed, abs=1e-12)
    diff = P.differential(a, b)
    assert list(diff.index) == list(range(-3, 4))
    assert diff.to_dict() == pytest.approx(effects, abs=1e-12)


def test_over_100_rule_lowers_everyone_including_the_top():
    assert P.contest_skills([130, 80]) == [100, 50]
    assert P.contest_skills([120, 110, 10]) == [100, 90, 0]
    assert P.contest_skills([90, 60]) == [90, 60]
    assert P.opposed(130, 80).equals(P.opposed(100, 50))
    assert P.differential(80, 130).equals(P.differential(50, 100))


def test_grades_apply_before_the_contest():
    # Hard 65 -> 44; Very Easy 60 -> 120 then the over-100 rule: 100 vs 24
    assert P.opposed(65, 80, first_grade="hard").to_dict() == pytest.approx(ref_contest(44, 80)[0])
    assert P.opposed(60, 44, first_grade="very easy").to_dict() == pytest.approx(
        ref_contest(120, 44)[0])
    hopeless = P.opposed(90, 10, first_grade="hopeless")
    assert hopeless["first_wins"] == 0


def test_contest_symmetry():
    a, b = P.opposed(65, 80), P.opposed(80, 65)
    assert a["first_wins"] == pytest.approx(b["second_wins"])
    d1, d2 = P.differential(65, 80), P.differential(80, 65)
    assert d1.values == pytest.approx(d2.values[::-1])


def test_effects_are_the_margin_between_tiers():
    # RULES.md 3.1: fumble 0, failure 1, success 2, critical 3; failure vs fumble gives the
    # failing side 1 effect, critical vs fumble 3, equal tiers none
    import numpy as np

    t1, t2 = np.array([1, 0, 3, 0, 2, 3, 1, 2]), np.array([0, 1, 0, 3, 1, 3, 1, 0])
    assert P.effects_won(t1, t2).tolist() == [1, -1, 3, -3, 1, 0, 0, 2]
    # the earlier reading, a rules switch: a side that did not succeed wins none
    assert P.effects_won(t1, t2, OLD_READING).tolist() == [0, 0, 3, -3, 1, 0, 0, 2]


@pytest.mark.parametrize("a,b", [(70, 50), (65, 80), (3, 97), (130, 80)])
def test_winner_must_succeed_switch_matches_enumeration(a, b):
    _, effects = ref_contest(a, b, winner_must_succeed=True)
    assert P.differential(a, b, rules=OLD_READING).to_dict() == pytest.approx(effects, abs=1e-12)


def test_failure_against_fumble_is_the_whole_change():
    # the two readings differ exactly on failure vs fumble: P(first fails) x P(second fumbles)
    # moves from 0 to +1 (and symmetrically to -1). 70 vs 50: failures 26 + 2 = 28 faces of
    # 100 fail without fumbling at 70 (71-98), fumbles 99-00; at 50: 51-98, 99-00.
    new, old = P.differential(70, 50), P.differential(70, 50, rules=OLD_READING)
    fail70, fumble70, fail50, fumble50 = 28 / 100, 2 / 100, 48 / 100, 2 / 100
    assert new[1] - old[1] == pytest.approx(fail70 * fumble50, abs=1e-12)
    assert new[-1] - old[-1] == pytest.approx(fail50 * fumble70, abs=1e-12)
    assert new[0] - old[0] == pytest.approx(-(fail70 * fumble50 + fail50 * fumble70), abs=1e-12)


@settings(derandomize=True, max_examples=25, deadline=None)
@given(st.integers(0, 300), st.integers(0, 300), st.sampled_from(list(GRADE_FACTORS)),
       st.sampled_from(list(GRADE_FACTORS)))
def test_graded_contests_match_enumeration(a, b, grade_a, grade_b):
    # grades first (rounded up), then the over-100 rule, then every pair of rolls
    ga, gb = math.ceil(a * GRADE_FACTORS[grade_a]), math.ceil(b * GRADE_FACTORS[grade_b])
    opposed, effects = ref_contest(ga, gb)
    assert P.opposed(a, b, first_grade=grade_a, second_grade=grade_b).to_dict() == \
        pytest.approx(opposed, abs=1e-12)
    assert P.differential(a, b, first_grade=grade_a, second_grade=grade_b).to_dict() == \
        pytest.approx(effects, abs=1e-12)
