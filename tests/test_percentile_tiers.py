"""Percentile skill rolls (RULES.md 3.1) against brute-force enumeration of the 100 faces."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import balance as bl
from percentile_oracle import GRADE_FACTORS as GRADES
from percentile_oracle import ref_graded, ref_tier
from balance import montecarlo

P = bl.percentile


def ref_tiers(skill: int) -> dict[str, float]:
    counts = {"fumble": 0, "failure": 0, "success": 0, "critical": 0}
    for roll in range(1, 101):
        counts[ref_tier(roll, skill)] += 1
    return {k: v / 100 for k, v in counts.items()}


SKILLS = [*range(0, 6), 7, 9, 10, 11, 19, 20, 21, 33, 44, 50, 65, 70, 89, 90, 91,
          *range(95, 106), 110, 120, 150, 199, 200, 250, 500, 941, 950, 999, 1000, 1001, 5000]


@pytest.mark.parametrize("skill", SKILLS)
def test_tiers_match_enumeration(skill):
    got = P.tiers(skill)
    assert list(got.index) == ["fumble", "failure", "success", "critical"]
    assert got.to_dict() == pytest.approx(ref_tiers(skill), abs=1e-15)
    assert got.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("grade", list(GRADES))
@pytest.mark.parametrize("skill", [0, 1, 2, 3, 5, 7, 13, 44, 65, 67, 96, 99, 100, 101, 140, 151])
def test_grades_round_up_then_enumerate(skill, grade):
    modified = math.ceil(skill * GRADES[grade])
    assert P.graded_skill(skill, grade) == modified
    assert P.tiers(skill, grade=grade).to_dict() == pytest.approx(ref_tiers(modified), abs=1e-15)


def test_grade_adjusted_skill_of_every_skill_1_to_200():
    # RULES.md 3.1: skill x factor, fractions rounded up; Herculean x1/10
    table = P.tier_table(range(1, 201))
    modified = table.drop_duplicates(["skill", "grade"]).set_index(["skill", "grade"])
    for grade in GRADES:
        want = [ref_graded(s, grade) for s in range(1, 201)]
        assert [P.graded_skill(s, grade) for s in range(1, 201)] == want, grade
        assert modified.xs(grade, level="grade")["modified_skill"].tolist() == want, grade


def test_herculean_is_a_tenth_and_the_grade_table_is_flagged_assumed():
    assert [P.graded_skill(s, "Herculean") for s in (65, 70, 100, 101, 9, 1)] == \
        [7, 7, 10, 11, 1, 1]
    assert P.graded_skill(65, "Herculéen") == 7
    rules = bl.rules.resolve(None)
    assert "percentile.grades.table" in rules.assumptions["key"].tolist()
    assert "percentile.grades.table" in rules.assumed_under("percentile")


def test_issue_examples():
    assert P.graded_skill(65, "hard") == 44
    assert P.tiers(65, grade="hard").to_dict() == pytest.approx(ref_tiers(44))
    assert P.graded_skill(65, "difficile") == 44          # French name
    assert P.graded_skill(65, "very_easy") == 130


def test_hopeless_is_no_roll_counted_as_failure():
    assert P.graded_skill(90, "Hopeless") is None
    assert P.tiers(90, grade="hopeless").to_dict() == {"fumble": 0.0, "failure": 1.0,
                                                       "success": 0.0, "critical": 0.0}


# -- every statement of the document, face by face -----------------------------------------
def _face_tiers(skill):
    return P.tier_codes(np.arange(1, 101), skill)


@pytest.mark.parametrize("skill", [0, 1, 3, 50, 100, 101, 300])
def test_01_05_always_succeed(skill):
    assert (_face_tiers(skill)[:5] >= 2).all()


@pytest.mark.parametrize("skill", [0, 50, 95, 96, 100, 101, 200, 5000])
def test_96_00_always_fail(skill):
    assert (_face_tiers(skill)[95:] <= 1).all()


def test_fumble_99_00_up_to_100_and_only_00_over_100():
    for skill in (0, 40, 99, 100):
        codes = _face_tiers(skill)
        assert list(np.flatnonzero(codes == 0) + 1) == [99, 100]
    for skill in (101, 150, 1000):
        codes = _face_tiers(skill)
        assert list(np.flatnonzero(codes == 0) + 1) == [100]


def test_critical_is_a_tenth_rounded_up():
    for skill, top in ((10, 1), (11, 2), (20, 2), (21, 3), (65, 7), (100, 10), (101, 11)):
        codes = _face_tiers(skill)
        assert list(np.flatnonzero(codes == 3) + 1) == list(range(1, top + 1))


def test_tier_table_is_every_skill_and_grade():
    table = P.tier_table()
    assert len(table) == 200 * 7 * 4
    for (skill, grade), rows in table.groupby(["skill", "grade"]):
        if skill % 37 and skill not in (1, 100, 101, 200):
            continue
        expected = P.tiers(skill, grade=grade)
        assert rows.set_index("tier")["probability"].to_dict() == pytest.approx(expected.to_dict())
    sums = table.groupby(["skill", "grade"])["probability"].sum()
    assert np.allclose(sums, 1.0)
    hard = table[(table.grade == "Hard") & (table.skill == 65)]
    assert set(hard.modified_skill) == {44}


def _check_counts(counts, skill, n):
    exact = np.array(list(ref_tiers(skill).values()))
    se = np.sqrt(exact * (1 - exact) / n)
    assert np.all(np.abs(counts / n - exact) <= 5 * se + 1e-12)


@pytest.mark.parametrize("skill", [3, 65, 120])
def test_sample_tiers_statistically(skill):
    n = 200_000
    codes = P.sample_tiers(skill, n, seed=np.random.default_rng(11))
    assert codes.shape == (n,)
    _check_counts(np.bincount(codes, minlength=4), skill, n)


def test_tier_sampler_through_the_engine():
    from functools import partial

    res = montecarlo.run(partial(P.tier_sampler, skill=44), 300_000, seed=5, progress=False)
    _check_counts(res.totals["tiers"], 44, 300_000)
    again = montecarlo.run(partial(P.tier_sampler, skill=44), 300_000, seed=5, progress=False,
                           chunk_size=70_000)
    assert np.array_equal(res.totals["tiers"], again.totals["tiers"])


def test_variant_rules_change_the_numbers():
    rules = bl.load_rules().updated({"percentile": {"roll": {"automatic_success_max": 10}}})
    assert P.tiers(0, rules=rules)["success"] + P.tiers(0, rules=rules)["critical"] == 0.10


@settings(derandomize=True, max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 1200), min_size=1, max_size=20))
def test_tier_codes_match_the_precedence_face_by_face(skills):
    names = ["fumble", "failure", "success", "critical"]
    codes = P.tier_codes(np.arange(1, 101)[None, :], np.array(skills)[:, None])
    for skill, row in zip(skills, codes):
        assert [names[c] for c in row] == [ref_tier(r, skill) for r in range(1, 101)]
