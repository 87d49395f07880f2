"""Opposed and differential rolls (RULES.md 3.1) against enumeration of the 100 x 100 roll pairs."""
from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import balance as bl
from percentile_oracle import RANK, ref_tier

P = bl.percentile




def over_100(a: int, b: int) -> tuple[int, int]:
    top = max(a, b)
    x = top - 100 if top > 100 else 0
    return max(a - x, 0), max(b - x, 0)


def ref_contest(a: int, b: int):
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
            diff = t1 - t2
            if (diff > 0 and not ok1) or (diff < 0 and not ok2):
                diff = 0
            effects[diff] += 1
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


def test_failure_vs_fumble_gives_nothing_and_critical_vs_fumble_three():
    import numpy as np

    assert P.effects_won(np.array([1, 3, 0, 2]), np.array([0, 0, 3, 1])).tolist() == [0, 3, -3, 1]


GRADE_FACTORS = {"Very Easy": Fraction(2), "Easy": Fraction(3, 2), "Standard": Fraction(1),
                 "Hard": Fraction(2, 3), "Formidable": Fraction(1, 2),
                 "Herculean": Fraction(1, 5)}


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
