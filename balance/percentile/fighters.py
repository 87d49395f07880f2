"""Combatants for the duel simulator (percentile rules, characteristics and combat): every number
resolved from rules data.

>>> import balance as bl
>>> f = bl.percentile.combatant(70, weapon="broadsword", shield="buckler")
>>> f.action_points, f.damage, f.parry_size
(2, '1d8', 1)
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import cast
from dataclasses import dataclass, field

import numpy as np

from .. import dice
from ..errors import check_integer
from ..names import find_row
from ..rules import resolve
from ._common import RulesLike, ceil_div, check_skill, section
from ._common import grade as find_grade
from . import characteristics as ch

__all__ = ["Fighter", "combatant", "weapon_size", "average_human"]

#: largest skill, armour or A.P. value a combatant accepts: the duel stores them in integer
#: arrays and multiplies skills by grade numerators (not a rule number, an arithmetic bound)
_MAX = int(np.iinfo(np.int32).max)


def _count(name: str, value: object, skill: bool = False) -> int:
    """A non-negative integer within ``_MAX`` (one-line ``ValueError`` naming ``name``)."""
    return check_integer(name, check_skill(name, value) if skill else value, min=0, max=_MAX)


def average_human(rules: RulesLike = None) -> dict[str, int]:
    """Characteristics of the default combatant: the mean of each human's dice, rounded up
    (3d6 -> 11, 2d6+6 -> 13)."""
    humans = section(rules)["humans"]
    return {c: math.ceil(dice.parse(humans[c]).mean)
            for c in section(rules)["characteristics"]["names"]}


@dataclass(frozen=True)
class Fighter:
    """A combatant with every number the duel needs (build one with :func:`combatant`).

    Location arrays (``armour``, ``hit_points``) follow the hit-location table order.
    """

    name: str
    combat_style: int
    evade: int
    endurance: int
    knockback_skill: int        # best of Easy Acrobatics and Standard Athletics
    action_points: int
    initiative_bonus: int       # bonus - armour penalty
    siz: int
    damage: str                 # weapon dice + damage modifier, one expression
    weapon_size: int
    shield_size: int            # -1: no shield
    armour: tuple = field(default=())
    hit_points: tuple = field(default=())
    weapon_dice: str = ""       # the weapon's dice alone ("": maximise the whole damage)
    damage_bonus: str = "+0"    # the damage modifier alone
    charge_bonus: str = ""      # the damage modifier of a charge ("": as damage_bonus)

    @property
    def parry_size(self) -> int:
        """Size of the parrying item: the larger of weapon and shield."""
        return max(self.weapon_size, self.shield_size)


def weapon_size(size: object, rules: RulesLike = None, what: str = "size") -> int:
    """Index of a weapon size (Small 0 < Medium 1 < Large 2 < Huge 3 < Enormous 4)."""
    rows = section(rules)["combat"]["sizes"]["table"]
    if isinstance(size, str):
        size = size.replace("_", " ")
    idx, _ = find_row(rows, size, what, keys=("key", "en", "fr"))  # the key: stable
    return idx


def _item(value, table: str, what: str, rules) -> tuple[str, int]:
    """(damage dice, size index) of a weapon/shield given by name or as (dice, size)."""
    if isinstance(value, str):
        rows = section(rules)[table]["table"]
        keyed = [dict(row, key_name=row["key"].replace("_", " ")) for row in rows]
        _, row = find_row(keyed, value.replace("_", " "), what, keys=("key_name", "en", "fr"))
        return row["damage"], weapon_size(row["size"], rules, what)
    if isinstance(value, (tuple, list)) and len(value) == 2:
        expr, size = value
        try:
            dice.parse(expr)
        except ValueError as exc:
            raise ValueError(f"{what}: {exc}") from None
        return str(expr), weapon_size(size, rules, f"{what} size")
    raise ValueError(f"{what} must be a name from the rules (e.g. 'broadsword') or "
                     f"(damage dice, size), got {value!r}")


def _armour(armour, rules) -> tuple:
    rows = section(rules)["hit_locations"]["table"]
    if isinstance(armour, Mapping):
        keys = [row["key"] for row in rows]
        for k in armour:
            if k not in keys:
                from ..errors import did_you_mean
                raise ValueError(f"armour: unknown location {k!r}{did_you_mean(k, keys)}; "
                                 f"accepted: {', '.join(keys)}")
        return tuple(_count(f"armour[{k!r}]", armour.get(k, 0)) for k in keys)
    value = _count("armour", armour)
    return (value,) * len(rows)


def combatant(combat_style: int, *, weapon: object = "broadsword", shield: object = None,
              armour: object = 0, armour_enc: int = 0,
              characteristics: Mapping[str, int] | None = None,
              action_points: int | None = None, evade: int | None = None,
              endurance: int | None = None, name: str = "", quadruped: bool = False,
              rules: RulesLike = None) -> Fighter:
    """A duel combatant (percentile rules, characteristics and combat).

    Parameters
    ----------
    combat_style : int
        Combat Style % (attack and parry).
    weapon, shield : str or (dice, size)
        A name of ``[percentile.weapons]`` / ``[percentile.shields]`` (English, French or key),
        or an explicit ``("1d8", "Medium")``. ``shield=None``: no shield.
    armour : int or mapping location -> armour points
        Armour points on every location, or per location key (``"head"``, ``"left_arm"``...).
    armour_enc : int
        Armour ENC: initiative penalty ``ceil(ENC / 5)``.
    characteristics : mapping, optional
        STR, CON, SIZ, DEX, INT, POW, CHA (missing ones: :func:`average_human`, 11 / 13).
    action_points, evade, endurance : int, optional
        Overrides of the derived values (INT+DEX bands, DEX x 2, CON x 2).
    quadruped : bool
        A charge raises its damage modifier two steps instead of one (percentile rules, combat).
    """
    rules = resolve(rules)
    sec = section(rules)
    style = _count("combat_style", combat_style, skill=True)
    chars = average_human(rules)
    if characteristics is not None:
        if not isinstance(characteristics, Mapping):
            raise ValueError(f"characteristics must be a mapping such as {{'STR': 12}}, "
                             f"got {characteristics!r}")
        names = sec["characteristics"]["names"]
        lo, hi = sec["characteristics"]["minimum"], sec["characteristics"]["maximum"]
        for k, v in characteristics.items():
            key = str(k).upper()
            if key not in names:
                from ..errors import did_you_mean
                raise ValueError(f"characteristics: unknown characteristic {k!r}"
                                 f"{did_you_mean(key, names)}; accepted: {', '.join(names)}")
            chars[key] = check_integer(f"characteristics[{key!r}]", v, min=lo, max=hi)
    w_dice, w_size = _item(weapon, "weapons", "weapon", rules)
    s_size = -1 if shield is None else _item(shield, "shields", "shield", rules)[1]
    dm = ch.damage_modifier(chars["STR"] + chars["SIZ"], rules=rules)
    damage = str(dice.parse(f"{w_dice}{dm if dm[0] in '+-' else '+' + dm}"))
    combat = sec["combat"]
    if not isinstance(quadruped, (bool, np.bool_)):
        raise ValueError(f"quadruped must be True or False, got {quadruped!r}")
    c = combat["charge"]
    charge_dm = ch.damage_modifier(chars["STR"] + chars["SIZ"], c[
        "quadruped_damage_modifier_steps" if quadruped else "damage_modifier_steps"], rules)
    enc = _count("armour_enc", armour_enc)
    ap = ch.action_points(chars["INT"] + chars["DEX"], rules) if action_points is None \
        else _count("action_points", action_points)
    ev = ch.evade(chars["DEX"], rules) if evade is None else _count("evade", evade, skill=True)
    en = ch.endurance(chars["CON"], rules) if endurance is None \
        else _count("endurance", endurance, skill=True)
    str_dex = chars["STR"] + chars["DEX"]
    knock = max(find_grade(combat["knockback_acrobatics_grade"], rules).apply(
                    ch.acrobatics_base(str_dex, rules)),
                find_grade(combat["knockback_athletics_grade"], rules).apply(
                    ch.athletics_base(str_dex, rules)))
    init = ch.initiative_bonus(chars["DEX"] + chars["INT"], rules) \
        - ceil_div(enc, combat["armour_enc_divisor"])
    hp = ch.location_hp_array(chars["CON"] + chars["SIZ"], rules)
    # the characteristics' formulas take arrays too; one value in, one int out
    return Fighter(name=str(name), combat_style=style, evade=int(cast(int, ev)),
                   endurance=int(cast(int, en)), knockback_skill=int(knock),
                   action_points=int(cast(int, ap)), initiative_bonus=int(init),
                   siz=chars["SIZ"], damage=damage, weapon_size=w_size, shield_size=s_size,
                   armour=_armour(armour, rules), hit_points=tuple(int(h) for h in hp),
                   weapon_dice=str(w_dice), damage_bonus=_signed(str(dm)),
                   charge_bonus=_signed(str(charge_dm)))


def _signed(expr: str) -> str:
    """A damage modifier as a signed expression (``"1d4"`` -> ``"+1d4"``)."""
    return expr if expr[:1] in "+-" else "+" + expr

