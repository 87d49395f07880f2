"""Creature sheets of the GM guide (GM guide, creature sheet) and the bestiary of the rules data.

>>> import balance as bl
>>> goblin = bl.creatures.sheet(level=5, base_hp=4, size="small", kind="standard",
...                             STR=0, DEX=2, CON=-2, INT=-1, WIS=0, CHA=-1)
>>> goblin.max_hp, goblin.phys_def, goblin.init, goblin.melee_atk
(18, 11, 12, 5)
>>> bl.creatures.creature("Dragon").max_hp
104
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType

import pandas as pd

from .. import dice
from .design import check_creature, stat_values
from .adversity import adjusted_ratio, named_row
from ..rules.ratios import parse_ratio
from ..errors import check_integer
from ..names import find_row
from ..rules import Rules, resolve

__all__ = ["CreatureSheet", "sheet", "creature", "bestiary", "summary_table", "pc", "party"]


@dataclass(frozen=True)
class CreatureSheet:
    """A creature (or PC) at one level: the guide's formulas applied (GM guide, creature sheet).

    ``adversity_ratio`` is a Fraction (``None`` for a PC). ``attack``, ``damage`` (dice),
    ``damage_bonus``, ``roll_bonus``, ``damage_type``, ``targets`` (PCs one attack hits),
    ``weaknesses`` and ``resistances`` are the attack profile used by :mod:`balance.fights`.
    """

    name: str
    level: int
    base_hp: int
    size: str
    kind: str
    stats: Mapping[str, int]
    max_hp: int
    phys_def: int
    mag_def: int
    init: int
    melee_atk: int
    ranged_atk: int
    mag_atk: int
    stat_sum: int
    adversity_ratio: Fraction | None
    attack: str = "melee"
    damage: str = "1d6"
    damage_bonus: int = 0
    roll_bonus: int = 0
    damage_type: str = ""
    targets: int = 1
    weaknesses: tuple[str, ...] = ()
    resistances: tuple[str, ...] = ()
    abilities: tuple[str, ...] = ()
    has_area: bool = False
    phys_def_bonus: int = 0
    mag_def_bonus: int = 0
    name_fr: str = ""
    rules: Rules | None = field(default=None, repr=False, compare=False)

    @property
    def attack_modifier(self) -> int:
        """Modifier of its attack: the attack kind's Atk plus the weapon's roll bonus."""
        row = find_row(resolve(self.rules)["creatures"]["attacks"], self.attack, "attack")[1]
        return self.stats[row["stat"]] + self.level + self.roll_bonus

    @property
    def target_defence(self) -> str:
        """Which defence its attack is rolled against (``"phys_def"`` or ``"mag_def"``)."""
        rules = resolve(self.rules)
        return find_row(rules["creatures"]["attacks"], self.attack, "attack")[1]["defence"]

    def at_level(self, level: int) -> "CreatureSheet":
        """The same creature at another level."""
        return _build(self.name, level, self.base_hp, self.size, self.kind, dict(self.stats),
                      resolve(self.rules), _profile(self), check_hp=self.kind != "pc")

    def summary(self, levels: Sequence[int] | None = None) -> pd.DataFrame:
        """The guide's summary table: this creature at each level (default 1..20)."""
        return summary_table(self, levels)


def _profile(s: CreatureSheet) -> dict:
    keys = ("attack", "damage", "damage_bonus", "roll_bonus", "damage_type", "targets",
            "weaknesses", "resistances", "abilities", "has_area", "phys_def_bonus",
            "mag_def_bonus", "name_fr")
    return {k: getattr(s, k) for k in keys}


def _names(key: str, value: object) -> tuple[str, ...]:
    """A name or a list of names as a tuple (a lone string is one name, not its letters)."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Iterable) and not isinstance(value, Mapping):
        items = tuple(value)
        if all(isinstance(v, str) for v in items):
            return items
    raise ValueError(f"{key} must be a name or a list of names, got {value!r}")


def _build(name: str, level: int, base_hp: int, size: str, kind: str, stats: dict,
           rules: Rules, profile: dict, *, check_hp: bool = True) -> CreatureSheet:
    c = rules["creatures"]
    level = check_integer("level", level, min=c["level_min"], max=c["level_max"])
    base_hp = check_integer("base_hp", base_hp, min=1)
    prof = dict(profile)
    for key in ("weaknesses", "resistances", "abilities"):
        prof[key] = _names(key, prof.get(key, ()))
    if check_hp:
        report = check_creature(stats, abilities=len(prof["abilities"]), rules=rules)
        report.raise_if_invalid()
        size_row = named_row(c["sizes"], size, "size")
        kind_row = named_row(c["kinds"], kind, "kind")
        size, kind = size_row["en"], kind_row["en"]
        rows = [r for r in c["base_hp"] if r["kind"] == kind_row["hp_column"]]
        row = next((r for r in rows if r["size"] == size), None)
        if row is None:
            raise ValueError(f"size {size!r} has no base HP range for {kind} creatures; "
                             f"accepted: {', '.join(r['size'] for r in rows)}")
        hi = row.get("high", 10**9)
        if not row["low"] <= base_hp <= hi:
            raise ValueError(f"base_hp must be an integer between {row['low']} and {hi} for a "
                             f"{size} {kind} creature, got {base_hp}")
    attack_row = find_row(c["attacks"], prof.get("attack", c["default_attack"]), "attack")[1]
    prof["attack"] = attack_row["en"]
    dmg = dice.parse(prof.get("damage", c["default_damage"]))
    prof["damage"] = str(dmg)
    for key in ("damage_bonus", "roll_bonus", "phys_def_bonus", "mag_def_bonus"):
        prof[key] = check_integer(key, prof.get(key, 0))
    prof["targets"] = check_integer("targets", prof.get("targets", 1), min=1)
    atk = {row["en"]: stats[row["stat"]] + level for row in c["attacks"]}
    defs = {row["en"]: c["defence_base"] + c["defence_stat_factor"] * stats[row["stat"]] + level
            for row in c["defences"]}
    total = sum(stats.values())
    max_hp = base_hp * level + stats[c["hp_stat"]]
    if max_hp < 1:
        raise ValueError(f"{c['hp_stat']} = {stats[c['hp_stat']]:+d} leaves {name} with max HP "
                         f"{base_hp} x {level} {stats[c['hp_stat']]:+d} = {max_hp}; a creature "
                         "needs at least 1 HP (raise base_hp, level or CON)")
    ratio = (_set_ratio(name, rules) or adjusted_ratio(size, kind, total, rules=rules)) \
        if check_hp else None
    return CreatureSheet(
        name=name, level=level, base_hp=base_hp, size=size, kind=kind,
        stats=MappingProxyType(dict(stats)),
        max_hp=max_hp,
        phys_def=defs["phys_def"] + prof["phys_def_bonus"],
        mag_def=defs["mag_def"] + prof["mag_def_bonus"],
        init=c["init_base"] + stats[c["init_stat"]],
        melee_atk=atk["melee"], ranged_atk=atk["ranged"], mag_atk=atk["magic"],
        stat_sum=total, adversity_ratio=ratio, rules=rules, **prof)


def _set_ratio(name: str, rules: Rules) -> Fraction | None:
    """The ratio ``encounters.creature_ratios`` sets for the creature called ``name`` (English
    or French bestiary name), or None (then the GM guide, adversity ratio and calibration,
    gives it from size, kind, stat sum)."""
    rows = rules["encounters"].get("creature_ratios", ())
    if not rows:
        return None
    names = {name} | {r["fr"] for r in rules["bestiary"]["creatures"] if r["en"] == name} \
        | {r["en"] for r in rules["bestiary"]["creatures"] if r.get("fr") == name}
    for row in rows:
        if row["creature"] in names:
            return parse_ratio(row["ratio"], "encounters.creature_ratios")
    return None


def sheet(*, level: int, base_hp: int, size: str, kind: str = "standard",
          stats: Mapping[str, int] | None = None, name: str = "creature",
          attack: str | None = None, damage: str | None = None, damage_bonus: int = 0,
          roll_bonus: int = 0, damage_type: str = "", targets: int = 1,
          weaknesses: Sequence[str] = (), resistances: Sequence[str] = (),
          abilities: Sequence[str] = (), has_area: bool | None = None,
          rules: Rules | None = None, **stat_values_: int) -> CreatureSheet:
    """A creature sheet from the guide's formulas (GM guide, creature sheet; the ratio: adversity ratio).

    Init = 10 + DEX; Phys Def = 10 + 2 CON + level; Mag Def = 10 + 2 WIS + level;
    Melee/Ranged/Mag Atk = STR/DEX/INT + level; Max HP = base_hp x level + CON.

    Parameters
    ----------
    level : int
        Level (1..20).
    base_hp : int
        Base HP, within the range of the size and kind (standard small: 3-5).
    size : str
        ``tiny``, ``small``, ``medium``, ``large``, ``huge`` or ``titanic``.
    kind : str, default "standard"
        ``standard``, ``mini-boss`` or ``boss`` (a mini-boss takes its base HP from the boss ranges
        and its ratio from the standard column).
    stats : mapping of str to int, optional
        The six stats (each in [-4, +6]); keywords (``DEX=2``) work too; missing ones are 0.
    name : str, default "creature"
        The sheet's name.
    attack, damage : str, optional
        Attack kind (melee, ranged, magic) and damage dice; default the rules' (melee, 1d6,
        *assumed*).
    damage_bonus, roll_bonus : int, default 0
        Bonuses to damage and to the attack roll.
    damage_type : str, default ""
        The damage type.
    targets : int, default 1
        Enemies each attack rolls against (an area attack when > 1).
    weaknesses, resistances, abilities : str or sequence of str
        Names (at most 4 abilities).
    has_area : bool, optional
        Whether the creature has an area ability; default ``targets > 1``.
    rules : Rules, optional
        Rules to read ``[creatures]``, ``[bestiary]`` and ``[party]`` from (default: the bundled rules).
    **stat_values_ : int
        Stats by name.

    Returns
    -------
    CreatureSheet
        max_hp, phys_def, mag_def, init, the attacks, adversity_ratio, ``summary()``...

    Raises
    ------
    ValueError
        A level, stat or base HP out of range, an unknown size, kind or stat (with the accepted
        names), more than 4 abilities, naming the argument.

    Examples
    --------
    >>> import balance as bl
    >>> goblin = bl.creatures.sheet(level=5, base_hp=4, size="small", kind="standard",
    ...                             STR=0, DEX=2, CON=-2, INT=-1, WIS=0, CHA=-1, name="Goblin")
    >>> goblin.max_hp, goblin.phys_def, goblin.mag_def, goblin.init
    (18, 11, 15, 12)
    >>> goblin.adversity_ratio     # stats sum to -2: one step down from 1/2
    Fraction(1, 3)
    """
    rules = resolve(rules)
    values = stat_values(stats, stat_values_, rules, what="creature stats")
    c = rules["creatures"]
    profile = dict(attack=attack or c["default_attack"], damage=damage or c["default_damage"],
                   damage_bonus=damage_bonus, roll_bonus=roll_bonus, damage_type=damage_type,
                   targets=targets, weaknesses=weaknesses, resistances=resistances,
                   abilities=abilities)
    targets = check_integer("targets", targets, min=1)
    profile["targets"] = targets
    profile["has_area"] = targets > 1 if has_area is None else bool(has_area)
    return _build(name, level, base_hp, size, kind, values, rules, profile)


def _row_sheet(row: Mapping, level: int, rules: Rules, *, is_pc: bool) -> CreatureSheet:
    profile = {k: row[k] for k in ("attack", "damage", "damage_bonus", "roll_bonus",
                                   "damage_type", "targets", "weaknesses", "resistances",
                                   "abilities", "phys_def_bonus", "mag_def_bonus") if k in row}
    profile["has_area"] = row.get("targets", 1) > 1
    profile["name_fr"] = row.get("fr", "")
    stats = stat_values(row["stats"], {}, rules)
    if is_pc:
        return _build(row["en"], level, row["base_hp"], "medium", "pc", stats, rules, profile,
                      check_hp=False)
    return _build(row["en"], level, row["base_hp"], row["size"], row["kind"], stats, rules,
                  profile)


def creature(name: str, level: int | None = None, *, rules: Rules | None = None) -> CreatureSheet:
    """A bestiary creature by English or French name, at ``level`` (GM guide, creature sheet).

    Parameters
    ----------
    name : str
        ``"Goblin"``, ``"Gobelin"``, ``"Dragon"``...
    level : int, optional
        Level (1..20); default the rules' default level (5, *assumed*).
    rules : Rules, optional
        Rules to read ``[creatures]``, ``[bestiary]`` and ``[party]`` from (default: the bundled rules).

    Returns
    -------
    CreatureSheet
        The creature's sheet.

    Raises
    ------
    ValueError
        An unknown name (with a did-you-mean) or a level out of range.

    Examples
    --------
    >>> import balance as bl
    >>> bl.creatures.creature("Dragon").max_hp          # 20 x 5 + 4
    104
    >>> bl.creatures.creature("Dragonnet", level=3).name
    'Baby Dragon'
    """
    rules = resolve(rules)
    _, row = find_row(rules["bestiary"]["creatures"], name, "creature")
    return _row_sheet(row, rules["bestiary"]["default_level"] if level is None else level,
                      rules, is_pc=False)


def bestiary(level: int | None = None, *, rules: Rules | None = None) -> pd.DataFrame:
    """The bestiary of the rules data (*assumed*) at ``level``: one row per creature (GM guide, creature sheet).

    Parameters
    ----------
    level : int, optional
        Level (1..20); default the rules' default level (5, *assumed*).
    rules : Rules, optional
        Rules to read ``[creatures]``, ``[bestiary]`` and ``[party]`` from (default: the bundled rules).

    Returns
    -------
    pandas.DataFrame
        name, name_fr, level, size, kind, base_hp, max_hp, the defences and attacks, stat_sum,
        adversity_ratio, attack, damage, targets.

    Raises
    ------
    ValueError
        A level out of range.

    Examples
    --------
    >>> import balance as bl
    >>> bl.creatures.bestiary().name.tolist()[:3]
    ['Goblin', 'Dragon', 'Baby Dragon']
    """
    rules = resolve(rules)
    sheets = [creature(r["en"], level, rules=rules) for r in rules["bestiary"]["creatures"]]
    return pd.DataFrame([_row(s) for s in sheets])


def pc(name: str, level: int | None = None, *, rules: Rules | None = None) -> CreatureSheet:
    """A member of the default party (rules data ``party``, *assumed*) at ``level`` (GM guide, creature sheet).

    Parameters
    ----------
    name : str
        ``"Warrior"``, ``"Ranger"``, ``"Mage"`` or ``"Cleric"`` (or a French name).
    level : int, optional
        Level (1..20); default the rules' default level (5, *assumed*).
    rules : Rules, optional
        Rules to read ``[creatures]``, ``[bestiary]`` and ``[party]`` from (default: the bundled rules).

    Returns
    -------
    CreatureSheet
        The PC built with the creature formulas.

    Raises
    ------
    ValueError
        An unknown member (with the accepted names) or a level out of range.

    Examples
    --------
    >>> import balance as bl
    >>> bl.creatures.pc("Mage").name
    'Mage'
    """
    rules = resolve(rules)
    _, row = find_row(rules["party"]["members"], name, "party member")
    return _row_sheet(row, rules["party"]["level"] if level is None else level, rules, is_pc=True)


def party(level: int | None = None, *, rules: Rules | None = None) -> list[CreatureSheet]:
    """The default party (*assumed*): four PCs built with the creature formulas (GM guide, creature sheet).

    Parameters
    ----------
    level : int, optional
        Level (1..20); default the rules' default level (5, *assumed*).
    rules : Rules, optional
        Rules to read ``[creatures]``, ``[bestiary]`` and ``[party]`` from (default: the bundled rules).

    Returns
    -------
    list of CreatureSheet
        The party's sheets, in the rules' order.

    Raises
    ------
    ValueError
        A level out of range.

    Examples
    --------
    >>> import balance as bl
    >>> [p.name for p in bl.creatures.party()]
    ['Warrior', 'Ranger', 'Mage', 'Cleric']
    """
    rules = resolve(rules)
    return [pc(r["en"], level, rules=rules) for r in rules["party"]["members"]]


def _row(s: CreatureSheet) -> dict:
    return {"name": s.name, "name_fr": s.name_fr, "level": s.level, "size": s.size,
            "kind": s.kind, "base_hp": s.base_hp, "max_hp": s.max_hp, "phys_def": s.phys_def,
            "mag_def": s.mag_def, "init": s.init, "melee_atk": s.melee_atk,
            "ranged_atk": s.ranged_atk, "mag_atk": s.mag_atk, "stat_sum": s.stat_sum,
            "adversity_ratio": s.adversity_ratio, "attack": s.attack,
            "damage": _damage_text(s), "targets": s.targets}


def _damage_text(s: CreatureSheet) -> str:
    return f"{s.damage}{s.damage_bonus:+d}" if s.damage_bonus else s.damage


def summary_table(sheet: CreatureSheet, levels: Sequence[int] | None = None) -> pd.DataFrame:
    """The guide's summary table of a sheet: one row per level (GM guide, creature sheet).

    Parameters
    ----------
    sheet : CreatureSheet
        The creature.
    levels : sequence of int, optional
        Levels; default ``level_min..summary_levels_max`` (1..20).

    Returns
    -------
    pandas.DataFrame
        Indexed by level: max_hp, phys_def, mag_def, init, melee_atk, ranged_atk, mag_atk,
        adversity_ratio.

    Raises
    ------
    ValueError
        A level out of range.

    Examples
    --------
    >>> import balance as bl
    >>> goblin = bl.creatures.creature("Goblin")
    >>> bl.creatures.summary_table(goblin).shape
    (20, 8)
    """
    rules = resolve(sheet.rules)
    c = rules["creatures"]
    if levels is None:
        levels = range(c["level_min"], c["summary_levels_max"] + 1)
    rows = [_row(sheet.at_level(lv)) for lv in levels]
    cols = ["level", "max_hp", "phys_def", "mag_def", "init", "melee_atk", "ranged_atk",
            "mag_atk", "adversity_ratio"]
    return pd.DataFrame(rows)[cols].set_index("level")

