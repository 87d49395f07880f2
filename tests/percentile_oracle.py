"""Independent reading of RULES.md §3.1, face by face, shared by the percentile tests."""
from __future__ import annotations

import math
from fractions import Fraction

TIERS = ("fumble", "failure", "success", "critical")
RANK = {name: i for i, name in enumerate(TIERS)}


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
