"""Combat rules as functions (percentile rules, combat): initiative, parry by size, knockback, charges.

>>> import balance as bl
>>> int(bl.percentile.parry_blocked(7, "Medium", "Small"))
4
>>> bl.percentile.charge(60, 34, "Medium")["damage_modifier"]
'+1d6'
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import dice
from ..errors import check_integer, check_integer_array
from ..rules import resolve
from ._common import RulesLike, ceil_div, check_skill, section
from ._common import grade as find_grade
from . import characteristics as ch
from .fighters import weapon_size

__all__ = ["initiative", "parry_blocked", "knockback_metres", "harder_grade", "charge"]


def initiative(dex_int: int, armour_enc: int = 0, *, surprised: bool = False,
               rules: RulesLike = None) -> pd.Series:
    """Exact distribution of initiative: ``1d10 + ceil((DEX+INT)/2) - ceil(ENC/5)``, -10 if
    surprised.

    >>> import balance as bl
    >>> float(bl.percentile.initiative(24)[13])
    0.1
    """
    rules = resolve(rules)
    combat = section(rules)["combat"]
    bonus = ch.initiative_bonus(dex_int, rules)
    enc = check_integer("armour_enc", armour_enc, min=0)
    if not isinstance(surprised, (bool, np.bool_)):
        raise ValueError(f"surprised must be True or False, got {surprised!r}")
    shift = bonus - ceil_div(enc, combat["armour_enc_divisor"]) + \
        (combat["surprise"] if surprised else 0)
    dist = dice.distribution(combat["initiative_roll"])
    return pd.Series(dist.probabilities.copy(),
                     index=pd.Index(dist.totals + shift, name="initiative"), name="probability")


def parry_blocked(damage, attack_size: object, parry_size: object,
                  rules: RulesLike = None) -> np.ndarray:
    """Damage a successful parry blocks (percentile rules, combat): all when the parrying item is the same
    size or larger, half (rounded in the defender's favour) when one size smaller, nothing when
    two or more smaller."""
    rules = resolve(rules)
    d = check_integer_array("damage", damage, min=0)
    a = weapon_size(attack_size, rules, "attack_size")
    p = weapon_size(parry_size, rules, "parry_size")
    blocks = section(rules)["combat"]["sizes"]["parry_block"]
    smaller = max(a - p, 0)
    fraction = blocks[smaller] if smaller < len(blocks) else 0.0
    return np.ceil(d * fraction - 1e-9).astype(np.int64)


def knockback_metres(raw_damage, siz, rules: RulesLike = None) -> np.ndarray:
    """Metres pushed back: 1 per 5 points of raw damage over SIZ (0 when not over).

    Knockback is triggered at all when raw damage exceeds SIZ (then the target rolls Easy
    Acrobatics or Standard Athletics or falls prone).
    """
    per = section(rules)["combat"]["knockback_metres_per"]
    raw = check_integer_array("raw_damage", raw_damage, min=0)
    s = check_integer_array("siz", siz, min=1)
    return np.maximum(raw - s, 0) // per


def harder_grade(grade: str | None, steps: int = 1, rules: RulesLike = None) -> str:
    """The grade ``steps`` harder (negative: easier) along the grades table, clamped at its ends.

    >>> import balance as bl
    >>> bl.percentile.harder_grade("Standard")
    'Hard'
    """
    rules = resolve(rules)
    rows = section(rules)["grades"]["table"]
    name = find_grade(grade, rules).name
    steps = check_integer("steps", steps)
    idx = [row["en"] for row in rows].index(name) + steps
    return rows[min(max(idx, 0), len(rows) - 1)]["en"]


def charge(combat_style: int, str_siz: int, size: object, *, grade: str | None = None,
           quadruped: bool = False, rules: RulesLike = None) -> pd.Series:
    """A charging attack (percentile rules, combat): one grade harder, damage modifier one step up (two for
    a quadruped), weapon size +1 (``size``: the weapon's size name).

    Returns
    -------
    Series grade, skill (after the grade), damage_modifier, weapon_size (name).
    """
    rules = resolve(rules)
    c = section(rules)["combat"]["charge"]
    skill = check_skill("combat_style", combat_style)
    if not isinstance(quadruped, (bool, np.bool_)):
        raise ValueError(f"quadruped must be True or False, got {quadruped!r}")
    new_grade = harder_grade(grade, c["grade_steps"], rules)
    g = find_grade(new_grade, rules)
    sizes = section(rules)["combat"]["sizes"]["table"]
    idx = min(weapon_size(size, rules, "size") + c["size_steps"], len(sizes) - 1)
    steps = c["quadruped_damage_modifier_steps"] if quadruped else c["damage_modifier_steps"]
    return pd.Series({"grade": new_grade, "skill": g.apply(skill) if g.roll else None,
                      "damage_modifier": ch.damage_modifier(str_siz, steps, rules),
                      "weapon_size": sizes[idx]["en"]}, name="charge", dtype=object)
