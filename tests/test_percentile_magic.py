"""Magic and passions (RULES.md 3.4): exact functions against enumeration written here."""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest

import balance as bl
from percentile_oracle import ref_code, ref_graded

P = bl.percentile
LADDER = ["Very Easy", "Easy", "Standard", "Hard", "Formidable", "Herculean", "Hopeless"]


def ref_success(skill, grade):
    """P(success or critical) of one roll at a grade, by enumeration (Hopeless: no roll)."""
    if grade == "Hopeless":
        return 0.0
    s = ref_graded(skill, grade)
    return sum(ref_code(r, s) >= 2 for r in range(1, 101)) / 100


def ref_cast(skill, grade, wound, willpower, dominated=False):
    """Enumerate the Willpower d100 and the casting d100 (RULES.md 3.4, casting while hurt)."""
    if dominated or wound == "major":
        return 0.0
    steps = {None: (0, 0), "minor": (0, 1), "serious": (1, 2)}[wound]
    total = 0.0
    for w in range(1, 101):
        passed = wound is None or ref_code(w, willpower) >= 2
        step = steps[0] if passed else steps[1]
        g = LADDER[min(LADDER.index(grade) + step, len(LADDER) - 1)]
        total += ref_success(skill, g) / 100
    return total


@pytest.mark.parametrize("skill,grade,wound,willpower", [
    (s, g, w, wp) for s, g, w, wp in itertools.product(
        (0, 7, 33, 60, 95, 130), ("Standard", "Hard", "Herculean"),
        (None, "minor", "serious", "major"), (1, 45, 99))])
def test_casting_chance_against_enumeration(skill, grade, wound, willpower):
    got = P.casting_chance(skill, grade, wound=wound, willpower=willpower)
    assert got == pytest.approx(ref_cast(skill, grade, wound, willpower), abs=1e-12)


def test_domination_and_major_wound_fail_outright():
    assert P.casting_chance(99, wound=None, dominated=True) == 0.0
    assert P.casting_tiers(99, wound="major")["failure"] == 1.0


def test_serious_wound_examples():
    # 60 %: passed Willpower (40 %) -> Hard 40, failed -> Formidable 30
    assert P.casting_chance(60, wound="serious", willpower=40) == pytest.approx(
        0.4 * 0.40 + 0.6 * 0.30)
    with pytest.raises(ValueError, match="willpower"):
        P.casting_chance(60, wound="minor")


@pytest.mark.parametrize("pct", [0, 1, 5, 6, 50, 94, 99, 100, 101, 150])
def test_passion_is_a_skill_roll(pct):
    got = P.passion(pct)
    for code, tier in enumerate(("fumble", "failure", "success", "critical")):
        assert got[tier] == pytest.approx(sum(ref_code(r, pct) == code
                                              for r in range(1, 101)) / 100)


@pytest.mark.parametrize("pow_,cha", [(3, 18), (11, 11), (18, 3)])
def test_magic_skill_bases(pow_, cha):
    chars = {"POW": pow_, "CHA": cha}
    assert P.magic_skill_base("folk_magic", chars) == pow_ + cha
    assert P.magic_skill_base("Magie populaire", chars) == pow_ + cha
    for skill in ("binding", "trance", "meditation", "mysticism", "devotion", "exhort",
                  "invocation", "shaping"):
        assert P.magic_skill_base(skill, chars) == 2 * pow_
    with pytest.raises(ValueError, match="CHA"):
        P.magic_skill_base("folk_magic", {"POW": 10})


@pytest.mark.parametrize("skill", [0, 1, 9, 10, 11, 65, 100, 101])
def test_sorcery_intensity_is_a_tenth_rounded_up_and_ignores_the_grade(skill):
    assert P.intensity(skill) == math.ceil(Fraction(skill, 10))
    with pytest.raises(ValueError, match="no Intensity rule"):
        P.intensity(skill, "theism")


def test_stacking_one_effect_per_purpose():
    e = lambda n, d, p, i: {"name": n, "discipline": d, "purpose": p, "intensity": i}  # noqa
    # different disciplines, same purpose: only the higher Intensity
    assert P.applying_effects([e("a", "sorcery", "str", 5), e("b", "theism", "str", 3)]) == ["a"]
    # a tie: the newer
    assert P.applying_effects([e("a", "theism", "str", 3), e("b", "theism", "str", 3)]) == ["b"]
    # different purposes both apply, in the order given
    assert P.applying_effects([e("a", "theism", "x", 1), e("b", "animism", "y", 9)]) == ["a", "b"]
    with pytest.raises(ValueError, match="discipline"):
        P.applying_effects([e("a", "voodoo", "x", 1)])


def ref_best(sources):
    """Enumerate every joint outcome of independent sources (lists of equally likely values)."""
    dist = {}
    for combo in itertools.product(*sources):
        w = math.prod(1 / len(s) for s in sources)
        dist[max(combo)] = dist.get(max(combo), 0) + w
    return dist


def test_best_source_distribution_against_enumeration():
    d = P.best_source_distribution({"self": 4, "goat": "medium", "bull": "2d6"})
    ref = ref_best([[4], range(1, 7), [a + b for a in range(1, 7) for b in range(1, 7)]])
    assert dict(d["probability"]) == pytest.approx(ref)
    # the self source gives exactly 4 when both rolls are <= 4 (goat, bull strictly below)
    assert d.loc[4, "self"] == pytest.approx(4 / 6 * 6 / 36)
    # a dice distribution is a source as its expression is
    given = P.best_source_distribution({"self": 4, "goat": "medium",
                                        "bull": bl.dice.distribution("2d6")})
    assert given.equals(d)


def test_sacrifice_by_size():
    for size, expr in (("small", "1d3"), ("medium", "1d6"), ("large", "2d6"), ("huge", "3d6")):
        assert dict(P.sacrifice_source(size)) == pytest.approx(dict(bl.dice.distribution(expr)))


def test_recovery_pace_and_periods():
    assert P.recovery_hours(5) == 5                       # default 1 MP per hour
    assert P.recovery_hours(5, "day") == 120
    assert P.recovery_hours(2, "1 MP per week") == 336
    # 4 MP from a small sacrifice (1d3) each period: enumerate sums of d3 until >= 4
    ref = {}
    for k in range(1, 6):
        for rolls in itertools.product(range(1, 4), repeat=k):
            if sum(rolls) >= 4 and sum(rolls[:-1]) < 4:
                ref[k] = ref.get(k, 0) + (1 / 3) ** k
    got = P.periods_to_recover(4, {"goat": "small"})
    assert dict(got) == pytest.approx(ref)
    assert P.periods_to_recover(6, {"self": 3}).to_dict() == {2: 1.0}
    with pytest.raises(ValueError, match="never ends"):
        P.periods_to_recover(3, {"self": 0})


def test_the_recovery_paces_that_are_ours_are_flagged_assumed():
    """Percentile rules, magic points: 'recovery 1 MP per hour to 1 MP per week by setting'; the
    day step and the default pace are readings of ours, flagged (a review found them unmarked)."""
    import balance as bl
    assert bl.load_rules().assumed_under("percentile.magic.recovery") == \
        ["percentile.magic.recovery"]
