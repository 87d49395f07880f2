"""Independent reading of RULES.md §3.1 and §3.3, face by face, shared by the percentile tests.

Written from RULES.md, not from the package: the tier of one roll, the Mythras grade factors,
the special effects of a differential roll and the wound a hit inflicts.
"""
from __future__ import annotations

import math
from fractions import Fraction

TIERS = ("fumble", "failure", "success", "critical")
RANK = {name: i for i, name in enumerate(TIERS)}

#: RULES.md 3.1 difficulty grades (Mythras core's, flagged assumed): skill x factor, rounded up
GRADE_FACTORS = {"Very Easy": Fraction(2), "Easy": Fraction(3, 2), "Standard": Fraction(1),
                 "Hard": Fraction(2, 3), "Formidable": Fraction(1, 2),
                 "Herculean": Fraction(1, 10)}


def ref_tier(roll: int, skill: int) -> str:
    """The tier of one d100 ``roll`` against ``skill``, in the rule's order of precedence."""
    if roll >= (100 if skill > 100 else 99):
        return "fumble"
    if roll >= 96:
        return "failure"
    if roll <= skill or roll <= 5:
        return "critical" if roll <= math.ceil(Fraction(skill, 10)) else "success"
    return "failure"


def ref_code(roll: int, skill: int) -> int:
    """:func:`ref_tier` as a code: fumble 0, failure 1, success 2, critical 3."""
    return RANK[ref_tier(roll, skill)]


def ref_graded(skill: int, grade: str) -> int:
    """The skill after a difficulty grade, fractions rounded up (RULES.md 3.1)."""
    return math.ceil(skill * GRADE_FACTORS[grade])


def ref_effects(t1: int, t2: int, winner_must_succeed: bool = False) -> int:
    """Special effects of a differential roll, signed (+ first side): the margin between the
    tiers (fumble 0, failure 1, success 2, critical 3), so failure vs fumble is 1. With
    ``winner_must_succeed`` (the earlier reading) a side that failed wins none."""
    margin = t1 - t2
    if winner_must_succeed and ((margin > 0 and t1 < 2) or (margin < 0 and t2 < 2)):
        return 0
    return margin


def ref_wound(before: int, damage: int, top: int, every_hit: bool = True) -> str:
    """The wound of a hit of ``damage`` on a location at ``before`` hit points (maximum
    ``top``): "none", "minor", "serious" or "major" (RULES.md 3.3).

    Classified by the hit points after the hit, whatever they were before: at or below
    -``top`` major, at or below 0 serious, else minor; a hit that does no damage is no wound.
    ``every_hit=False`` is the earlier reading: only the hit that first crosses 0 (serious) or
    -``top`` (major) counts; a later hit in the same band is no new serious or major wound.
    """
    if damage <= 0:
        return "none"
    after = before - damage
    if every_hit:
        return "major" if after <= -top else "serious" if after <= 0 else "minor"
    if after <= -top < before:
        return "major"
    if after <= 0 < before:
        return "serious"
    return "minor"


def assert_twin_agrees(py: dict, vec: dict, n_py: int, n_np: int) -> None:
    """The plain-Python duels ``py`` (``balance.bench.percentile.python_duels``) and the
    vectorised ``vec`` (``duel_sampler``) agree within 5 standard errors of the difference:
    wins of each side, how the loser went out, mean rounds."""
    assert py["first_wins"] + py["second_wins"] + py["timeouts"] == n_py
    pairs = [(py[k], int(vec["wins"][i]), k) for i, k in enumerate(("first_wins", "second_wins"))]
    pairs += [(py["kinds"][k], int(vec["kinds"][:, k + 1].sum()), k) for k in range(3)]
    for a, b, what in pairs:
        p = (a + b) / (n_py + n_np)
        se = math.sqrt(p * (1 - p) * (1 / n_py + 1 / n_np))
        assert abs(a / n_py - b / n_np) <= 5 * se, (what, a / n_py, b / n_np)
    mean = int(vec["rounds_sum"]) / n_np
    sd = math.sqrt(int(vec["rounds_sumsq"]) / n_np - mean ** 2)
    assert abs(py["rounds_sum"] / n_py - mean) <= 5 * sd * math.sqrt(1 / n_py + 1 / n_np)
