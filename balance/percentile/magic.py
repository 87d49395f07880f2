"""Magic rules that are numbers or checklists (percentile rules, characteristics:
a beginning magician's abilities; magic: magic points, casting conditions).

>>> import balance as bl
>>> bl.percentile.abilities_known(41)
3
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..errors import check_choice, check_integer, check_number
from ..rules import resolve
from ._common import RulesLike, ceil_div, check_skill, section

__all__ = ["abilities_known", "best_source", "location_source", "veneration_source",
           "casting_conditions"]


def abilities_known(skill: int, rules: RulesLike = None) -> int:
    """Abilities a beginning magician knows: one per full 20 % or part, ``ceil(skill / 20)``."""
    skill = check_skill("skill", skill)
    return ceil_div(skill, section(rules)["magic"]["skill_per_ability"])


def best_source(sources: Mapping[str, float], rules: RulesLike = None) -> tuple[str, float]:
    """The single magic-point source that counts: the best one (sources do not stack).

    >>> import balance as bl
    >>> bl.percentile.best_source({"self": 12, "temple": 9})
    ('self', 12)
    """
    if not isinstance(sources, Mapping) or not sources:
        raise ValueError(f"sources must be a non-empty mapping name -> magic points, "
                         f"got {sources!r}")
    for name, value in sources.items():
        check_number(f"sources[{name!r}]", value, min=0)
    name = max(sources, key=lambda k: sources[k])
    return name, sources[name]


def location_source(magic_points: int, strength: int, rules: RulesLike = None) -> float:
    """Magic points from a magical location or object of Magical Strength 1..4 (25..100 %)."""
    fractions = section(rules)["magic"]["location_fractions"]
    mp = check_integer("magic_points", magic_points, min=0)
    strength = check_integer("strength", strength, min=1, max=len(fractions))
    return mp * fractions[strength - 1]


def veneration_source(magic_points: int, worshippers: int, rules: RulesLike = None) -> float:
    """Magic points from veneration: 25 % (< 100 worshippers) up to 100 % (10,000+).

    The 50 % and 75 % bands (100-999, 1,000-9,999) are assumed.
    """
    table = section(rules)["magic"]["veneration"]
    mp = check_integer("magic_points", magic_points, min=0)
    w = check_integer("worshippers", worshippers, min=table[0]["low"])
    lows = np.array([row["low"] for row in table])
    return mp * table[int(np.searchsorted(lows, w, side="right") - 1)]["fraction"]


def casting_conditions(*, clear_thought: bool = True, free_hand: bool = True,
                       voice: bool = True, sight: bool = True, wound: str | None = None,
                       willpower_passed: bool = True, dominated: bool = False,
                       rules: RulesLike = None) -> pd.Series:
    """Checklist for casting: which requirements hold and what the wound does.

    Returns
    -------
    Series: one boolean per requirement (clear_thought, free_hand, voice, sight),
    ``all_met``, ``grade_steps`` (grades harder from a wound), ``can_cast`` (False when
    casting automatically fails: a major wound, or mental domination when
    ``[percentile.magic.casting] dominated_fails``). A missing requirement
    makes casting harder or impossible (the GM decides): ``all_met`` says so.
    """
    magic = section(resolve(rules))["magic"]
    given = {"clear_thought": clear_thought, "free_hand": free_hand, "voice": voice,
             "sight": sight, "willpower_passed": willpower_passed, "dominated": dominated}
    for name, value in given.items():
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"{name} must be True or False, got {value!r}")
    steps, fails = 0, bool(dominated) and bool(magic["casting"]["dominated_fails"])
    if wound is not None:
        keys = [row["key"] for row in magic["wounds"]]
        key = check_choice("wound", wound, keys)
        row = magic["wounds"][keys.index(key)]
        steps = row["passed"] if willpower_passed else row["failed"]
        fails = fails or row["fails"]
    checks = {row["key"]: bool(given[row["key"]]) for row in magic["conditions"]}
    return pd.Series({**checks, "all_met": all(checks.values()), "grade_steps": steps,
                      "can_cast": not fails}, name="casting", dtype=object)
