"""Characteristics and derived attributes (percentile rules, characteristics and derived
attributes): functions and exact distributions.

Every function takes the *sum* of the characteristics it reads (``action_points(INT + DEX)``),
as a scalar or an integer array, and continues the open-ended bands past the printed tables.

>>> import balance as bl
>>> bl.percentile.damage_modifier(34)
'+1d4'
>>> bl.percentile.action_points(25)
3
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from collections.abc import Mapping, Sequence

import numpy as np

from .. import dice
from ..errors import check_integer, check_integer_array
from ..rng import RNGLike, as_generator
from ..rules import resolve
from ._common import RulesLike, ceil_div, section

if TYPE_CHECKING:  # pandas is imported where a frame is built (a fast start)
    import pandas as pd

__all__ = ["action_points", "experience_modifier", "healing_rate", "luck_points",
           "magic_points", "initiative_bonus", "endurance", "willpower", "evade",
           "combat_style_base", "acrobatics_base", "athletics_base", "damage_modifier",
           "damage_modifier_step", "location_hp",
           "human_distribution", "sample_humans", "BANDED", "LINEAR"]

#: a value or an integer array (functions are vectorised)
IntLike = int | np.ndarray | Sequence[int]

BANDED = ("action_points", "experience_modifier", "healing_rate", "luck_points")
LINEAR = ("magic_points", "initiative_bonus", "endurance", "willpower", "evade",
          "combat_style_base", "acrobatics_base", "athletics_base")


def _spec(attribute: str, rules: RulesLike) -> Mapping:
    sec = section(rules)
    return sec["derived"][attribute] if attribute in LINEAR else sec[attribute]


def _check(attribute: str, name: str, value: IntLike, rules: RulesLike) -> np.ndarray:
    """Input sum as an int array, within [table start, maximum x number of inputs]."""
    sec = section(rules)
    spec = _spec(attribute, rules)
    count = len(spec["inputs"])
    low = spec["table"][0]["low"] if "table" in spec else sec["characteristics"]["minimum"] * count
    high = sec["characteristics"]["maximum"] * count
    label = f"{name} ({'+'.join(spec['inputs'])})"
    return check_integer_array(label, value, min=low, max=high)


def _out(values: np.ndarray) -> IntLike:
    return values.item() if values.ndim == 0 else values


def _band(table: Sequence[Mapping], x: np.ndarray, column: str = "value") -> np.ndarray:
    """Value of the row holding each ``x``; past an open-ended last row, + increment per step."""
    lows = np.array([row["low"] for row in table])
    idx = np.searchsorted(lows, x, side="right") - 1
    values = np.array([row[column] for row in table])[idx]
    last = table[-1]
    if "high" not in last:
        steps = np.maximum(x - last["low"], 0) // last.get("step", 1)
        values = values + np.where(idx == len(table) - 1, steps * last.get("increment", 1), 0)
    return values


def _banded(attribute: str, name: str, value: IntLike, rules: RulesLike) -> IntLike:
    x = _check(attribute, name, value, rules)
    return _out(_band(_spec(attribute, rules)["table"], x))


def action_points(int_dex: IntLike, rules: RulesLike = None) -> IntLike:
    """Action Points from INT+DEX: <=12 1, 13-24 2, 25-36 3, +1 per further 12."""
    return _banded("action_points", "int_dex", int_dex, rules)


def experience_modifier(cha: IntLike, rules: RulesLike = None) -> IntLike:
    """Experience modifier from CHA: <=6 -1, 7-12 0, 13-18 +1, +1 per further 6."""
    return _banded("experience_modifier", "cha", cha, rules)


def healing_rate(con: IntLike, rules: RulesLike = None) -> IntLike:
    """Healing rate from CON: <=6 1, 7-12 2, 13-18 3, +1 per further 6."""
    return _banded("healing_rate", "con", con, rules)


def luck_points(pow: IntLike, rules: RulesLike = None) -> IntLike:  # noqa: A002
    """Luck points from POW: <=6 1, 7-12 2, 13-18 3, +1 per further 6."""
    return _banded("luck_points", "pow", pow, rules)


def _linear(attribute: str, name: str, value: IntLike, rules: RulesLike) -> IntLike:
    x = _check(attribute, name, value, rules)
    spec = _spec(attribute, rules)
    return _out(ceil_div(x * spec["numerator"], spec["denominator"]))


def magic_points(pow: IntLike, rules: RulesLike = None) -> IntLike:  # noqa: A002
    """Magic points = POW."""
    return _linear("magic_points", "pow", pow, rules)


def initiative_bonus(dex_int: IntLike, rules: RulesLike = None) -> IntLike:
    """Initiative bonus = (DEX + INT) / 2, rounded up."""
    return _linear("initiative_bonus", "dex_int", dex_int, rules)


def endurance(con: IntLike, rules: RulesLike = None) -> IntLike:
    """Endurance = CON x 2."""
    return _linear("endurance", "con", con, rules)


def willpower(pow: IntLike, rules: RulesLike = None) -> IntLike:  # noqa: A002
    """Willpower = POW x 2."""
    return _linear("willpower", "pow", pow, rules)


def evade(dex: IntLike, rules: RulesLike = None) -> IntLike:
    """Evade = DEX x 2."""
    return _linear("evade", "dex", dex, rules)


def combat_style_base(str_dex: IntLike, rules: RulesLike = None) -> IntLike:
    """Combat Style base = STR + DEX."""
    return _linear("combat_style_base", "str_dex", str_dex, rules)


def acrobatics_base(str_dex: IntLike, rules: RulesLike = None) -> IntLike:
    """Acrobatics base = STR + DEX (assumed, as in Mythras core)."""
    return _linear("acrobatics_base", "str_dex", str_dex, rules)


def athletics_base(str_dex: IntLike, rules: RulesLike = None) -> IntLike:
    """Athletics base = STR + DEX (assumed, as in Mythras core)."""
    return _linear("athletics_base", "str_dex", str_dex, rules)


# -- damage modifier ------------------------------------------------------------------------
def _dm_position(x: np.ndarray, rules: RulesLike) -> np.ndarray:
    """Step index along the damage-modifier progression (row index, continued past the table)."""
    table = _spec("damage_modifier", rules)["table"]
    lows = np.array([row["low"] for row in table])
    idx = np.searchsorted(lows, x, side="right") - 1
    last = table[-1]
    extra = np.maximum(x - last["low"], 0) // last.get("step", 1)
    return idx + np.where(idx == len(table) - 1, extra, 0)


def damage_modifier_step(position: int, rules: RulesLike = None) -> str:
    """The damage modifier at step ``position`` of the progression (0 = the first row).

    Past the table, the progression continues ("each +10 after that continues the progression",
    percentile rules, damage modifier; the steps are assumed,
    ``percentile.damage_modifier.continuation``): d2, d4, d6, d8 are added in turn to N d10, then
    one more d10 (``+2d10+1d2``, ``+2d10+1d4``, ... ``+3d10``).
    """
    position = check_integer("position", position, min=0)
    spec = _spec("damage_modifier", rules)
    table = spec["table"]
    if position < len(table):
        return table[position]["dice"]
    cont = spec["continuation"]
    extras = list(cont["extras"])
    anchor = dice.parse(table[-1]["dice"])
    n = sum(count for _, count, faces in anchor.terms if faces == cont["die"])
    rest = [f"{count}d{faces}" for _, count, faces in anchor.terms if faces != cont["die"]]
    q = n * len(extras) + extras.index(rest[0] if rest else "")
    q += position - (len(table) - 1)
    n, r = divmod(q, len(extras))
    return f"+{n}d{cont['die']}" + (f"+{extras[r]}" if extras[r] else "")


def damage_modifier(str_siz: IntLike, steps: int = 0,
                    rules: RulesLike = None) -> str | np.ndarray:
    """Damage modifier (a dice expression such as ``"+1d4"``) from STR+SIZ (percentile rules,
    damage modifier).

    ``steps`` moves along the progression (a charge: +1; a quadruped's charge: +2).
    Arrays give an object array of expressions.
    """
    rules = resolve(rules)
    x = _check("damage_modifier", "str_siz", str_siz, rules)
    steps = check_integer("steps", steps)
    pos = np.maximum(_dm_position(x, rules) + steps, 0)
    if pos.ndim == 0:
        return damage_modifier_step(int(pos), rules)
    names = {p: damage_modifier_step(int(p), rules) for p in np.unique(pos)}
    return np.array([names[p] for p in pos.ravel()], dtype=object).reshape(pos.shape)


# -- hit points per location ----------------------------------------------------------------
def _location_order(rules: RulesLike) -> list[tuple[str, str]]:
    """(hit-location key, hp column) in display order: by location kind, then table order."""
    sec = section(rules)
    rows = sec["hit_locations"]["table"]
    return [(row["key"], kind) for kind in sec["location_hp"]["locations"]
            for row in rows if row["hp"] == kind]


def location_hp(con_siz: IntLike, rules: RulesLike = None) -> pd.Series | pd.DataFrame:
    """Hit points of each hit location from CON+SIZ (bands of 5, +1 per further 5 past 40).

    Returns
    -------
    Series location -> hit points for a scalar; DataFrame (one row per input) for an array.
    """
    import pandas as pd

    rules = resolve(rules)
    x = _check("location_hp", "con_siz", con_siz, rules)
    table = _spec("location_hp", rules)["table"]
    order = _location_order(rules)
    cols = {key: _band(table, np.atleast_1d(x), kind) for key, kind in order}
    if x.ndim == 0:
        return pd.Series({k: int(v[0]) for k, v in cols.items()}, name="hit_points")
    return pd.DataFrame({"con_siz": x.ravel(), **{k: v.ravel() for k, v in cols.items()}})


def location_hp_array(con_siz: int, rules: RulesLike = None) -> np.ndarray:
    """Hit points per location in hit-location table order (for the duel simulator)."""
    rules = resolve(rules)
    hp = location_hp(con_siz, rules)
    return np.array([hp[row["key"]] for row in section(rules)["hit_locations"]["table"]])


# -- rolled humans --------------------------------------------------------------------------
_FUNCTIONS = {
    "action_points": action_points, "experience_modifier": experience_modifier,
    "healing_rate": healing_rate, "luck_points": luck_points, "magic_points": magic_points,
    "initiative_bonus": initiative_bonus, "endurance": endurance, "willpower": willpower,
    "evade": evade, "combat_style_base": combat_style_base,
    "acrobatics_base": acrobatics_base, "athletics_base": athletics_base,
}


def _sum_expression(inputs: Sequence[str], rules: RulesLike) -> str:
    humans = section(rules)["humans"]
    parts = [humans[c] for c in inputs]
    return "".join(p if i == 0 or p.lstrip().startswith(("+", "-")) else "+" + p
                   for i, p in enumerate(parts))


def human_distribution(attribute: str, rules: RulesLike = None) -> pd.Series:
    """Exact distribution of a characteristic or attribute over rolled humans (percentile
    rules, characteristics and derived attributes).

    Characteristics are rolled with the dice of ``[percentile.humans]`` (3d6, 2d6+6); sums such
    as INT+DEX are convolved exactly (:mod:`balance.dice`).

    Parameters
    ----------
    attribute : str
        A characteristic (``"STR"``...), one of the attribute functions' names
        (``"action_points"``, ``"damage_modifier"``...), or ``"location_hp"``.

    Returns
    -------
    Series value -> probability (``location_hp``: indexed by location and hit points).
    """
    import pandas as pd

    rules = resolve(rules)
    sec = section(rules)
    names = list(sec["characteristics"]["names"])
    accepted = names + list(_FUNCTIONS) + ["damage_modifier", "location_hp"]
    if not isinstance(attribute, str) or attribute not in accepted:
        from ..errors import check_choice
        check_choice("attribute", attribute, accepted)
    if attribute in names:
        return dice.distribution(sec["humans"][attribute]).to_series()
    spec = _spec(attribute, rules)
    dist = dice.distribution(_sum_expression(spec["inputs"], rules)).to_series()
    x = dist.index.to_numpy()
    if attribute == "damage_modifier":
        pos = _dm_position(x, rules)
        grouped = dist.groupby(pos).sum()
        grouped.index = pd.Index([damage_modifier_step(int(p), rules) for p in grouped.index],
                                 name="damage_modifier")
        return grouped
    if attribute == "location_hp":
        table = spec["table"]
        parts = {key: dist.groupby(_band(table, x, kind)).sum() for key, kind in
                 _location_order(rules)}
        out = pd.concat(parts, names=["location", "hit_points"])
        out.name = "probability"
        return out
    grouped = dist.groupby(np.asarray(_FUNCTIONS[attribute](x, rules=rules))).sum()
    grouped.index.name = attribute
    return grouped


def sample_humans(n: int, seed: RNGLike = None, rules: RulesLike = None) -> pd.DataFrame:
    """``n`` rolled humans: one row each, one column per characteristic."""
    import pandas as pd

    rules = resolve(rules)
    n = check_integer("n", n, min=0)
    gen = as_generator(seed)
    humans = section(rules)["humans"]
    return pd.DataFrame({c: dice.sample(humans[c], n, gen)
                         for c in section(rules)["characteristics"]["names"]})

