"""Prices in NX: weapons, equipment, upgrades, resale, Charisma negotiation (GM guide, economy).

>>> import balance as bl
>>> bl.economy.weapon_cost(roll_bonus=2, damage="1d8", damage_bonus=2)
160
>>> bl.economy.equipment_cost(bonus=2)
40
>>> bl.economy.negotiated_price(200, "success")
150

Prices are exact; where the guide rounds it does so in the merchant's favour (buying: up,
selling: down), with the directions as rules data.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd

from .. import dice
from ..errors import check_choice, check_integer, shown
from ..rules import Rules, resolve

__all__ = ["weapon_cost", "damage_cost", "equipment_cost", "roll_upgrade_cost",
           "bonus_upgrade_cost", "damage_upgrade_cost", "resale_price", "negotiated_price",
           "charisma_negotiation", "bonus_caps", "OUTCOMES"]

#: outcomes of a d20 check, worst first (GM guide, checks and attacks)
OUTCOMES = ("critical_failure", "failure", "success", "critical_success")


def _round(value: Fraction, direction: str) -> int:
    if direction == "up":
        return math.ceil(value)
    if direction == "down":
        return math.floor(value)
    raise ValueError(f"rounding must be 'up' or 'down', got {direction!r}")


def _check_flag(name: str, value: object) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def _special_value(special: object, rules: Rules) -> int:
    """The price of a weapon's or equipment's special effects: one value (an integer: 0 is
    none) or one per effect (a sequence), at most ``[economy] max_special_effects`` of them
    (GM guide, economy: one at most, its value set by the GM, possibly negative)."""
    most = rules["economy"]["max_special_effects"]
    single = isinstance(special, (int, float, np.integer, np.floating)) and \
        not isinstance(special, (bool, np.bool_))      # one number (checked below)
    values = [special] if single else special
    if not isinstance(values, (list, tuple)):
        raise ValueError(f"special must be an integer or a list of integers (one value per "
                         f"special effect), got {shown(special)}")
    # counted before the values are read: a list of any length is refused at once
    effects = len(values) - (single and special == 0)  # a lone 0: no special effect
    if effects > most:
        raise ValueError(f"special: {effects} special effects, but the rules allow at most "
                         f"{most} ([economy] max_special_effects), got {shown(special)}")
    return sum(check_integer("special", v) for v in values)


def _dice_count(damage: str, rules: Rules) -> tuple[int, int, int]:
    """(number of dice, their total value, constant) of a damage expression."""
    expr = dice.parse(damage)
    values = {row["faces"]: row["value"] for row in rules["economy"]["dice_values"]}
    count = value = 0
    for sign, n, faces in expr.terms:
        if sign < 0 or faces not in values:
            raise ValueError(f"damage {damage!r}: dice must be among "
                             f"{', '.join(r['die'] for r in rules['economy']['dice_values'])}")
        count += n
        value += n * values[faces]
    return count, value, expr.constant


def bonus_caps(dice_count: int, *, rules: Rules | None = None) -> tuple[int, int]:
    """Maxima of the roll bonus and the damage bonus for a weapon of ``dice_count`` dice (GM guide, economy).

    Each die beyond the first lowers both caps by 1.

    Parameters
    ----------
    dice_count : int
        Dice the weapon rolls (the weapon functions check it is 1..max dice).
    rules : Rules, optional
        Rules to read ``[economy]`` from (default: the bundled rules).

    Returns
    -------
    tuple of int
        ``(roll_bonus_max, damage_bonus_max)``.

    Raises
    ------
    RulesError
        ``rules`` given as a file or variant name that cannot be loaded.

    Examples
    --------
    >>> import balance as bl
    >>> bl.economy.bonus_caps(1), bl.economy.bonus_caps(2)
    ((3, 5), (2, 4))
    """
    e = resolve(rules)["economy"]
    drop = e["cap_reduction_per_extra_die"] * (dice_count - 1)
    return e["roll_bonus_max"] - drop, e["damage_bonus_max"] - drop


def _weapon_parts(roll_bonus, damage, damage_bonus, two_handed, rules):
    e = rules["economy"]
    two_handed = _check_flag("two_handed", two_handed)
    count, value, constant = _dice_count(damage, rules)
    if damage_bonus is None:
        damage_bonus = constant
    elif constant:
        raise ValueError(f"damage {damage!r} has a constant; give it as damage_bonus instead")
    max_dice = e["max_dice_two_handed"] if two_handed else e["max_dice"]
    if not 1 <= count <= max_dice:
        raise ValueError(f"damage must roll between 1 and {max_dice} dice "
                         f"({'two-handed' if two_handed else 'one-handed'}), got {count}")
    roll_max, damage_max = bonus_caps(count, rules=rules)
    extra = f" with {count} dice" if count > 1 else ""
    roll_bonus = check_integer(f"roll_bonus{extra}", roll_bonus, min=e["roll_bonus_min"],
                               max=roll_max)
    damage_bonus = check_integer(f"damage_bonus{extra}", damage_bonus,
                                 min=e["damage_bonus_min"], max=damage_max)
    return roll_bonus, value, damage_bonus


def damage_cost(damage: str, damage_bonus: int | None = None, *, two_handed: bool = False,
                rules: Rules | None = None) -> int:
    """Damage cost = dice x die value + damage bonus x 20, caps checked (GM guide, economy).

    Parameters
    ----------
    damage : str
        The dice, e.g. ``"1d8"`` (``"1d8+2"`` reads the constant as the damage bonus).
    damage_bonus : int, optional
        The damage bonus (-5..+5, lowered by extra dice).
    two_handed : bool, default False
        A two-handed weapon may roll one more die.
    rules : Rules, optional
        Rules to read ``[economy]`` from (default: the bundled rules).

    Returns
    -------
    int
        The cost in NX.

    Raises
    ------
    ValueError
        A bonus past its cap (the caps lowered by extra dice named: ``roll_bonus with 2 dice must
        be an integer between -3 and 2``), too many dice, a die without a price, a constant given
        twice, naming the argument.

    Examples
    --------
    >>> import balance as bl
    >>> bl.economy.damage_cost("1d8", 2)
    120
    """
    rules = resolve(rules)
    _, value, bonus = _weapon_parts(0, damage, damage_bonus, two_handed, rules)
    return value + bonus * rules["economy"]["point_cost"]


def weapon_cost(roll_bonus: int = 0, damage: str = "1d6", damage_bonus: int | None = None,
                special: int = 0, *, two_handed: bool = False, rules: Rules | None = None) -> int:
    """Weapon price = roll bonus x 20 + damage cost + special value (GM guide, economy).

    Caps: roll bonus in [-3, +3], damage bonus in [-5, +5], at most 3 dice (4 two-handed), each
    extra die lowering both maxima by 1.

    Parameters
    ----------
    roll_bonus : int, default 0
        Bonus to the attack roll.
    damage : str, default "1d6"
        The dice (``"1d8"``; a constant such as ``"1d8+2"`` is read as the damage bonus when
        ``damage_bonus`` is not given).
    damage_bonus : int, optional
        Bonus to damage.
    special : int or list of int, default 0
        The GM's value of the special effect (may be negative; 0: none), or a list of values,
        one per effect, at most ``[economy] max_special_effects`` (one in the GM guide).
    two_handed : bool, default False
        A two-handed weapon may roll one more die.
    rules : Rules, optional
        Rules to read ``[economy]`` from (default: the bundled rules).

    Returns
    -------
    int
        The price in NX.

    Raises
    ------
    ValueError
        A bonus past its cap (the caps lowered by extra dice named: ``roll_bonus with 2 dice must
        be an integer between -3 and 2``), too many dice, a die without a price, a constant given
        twice, more special effects than ``[economy] max_special_effects``, naming the argument.

    Examples
    --------
    >>> import balance as bl
    >>> bl.economy.weapon_cost(roll_bonus=2, damage="1d8", damage_bonus=2)   # the Longsword
    160
    >>> bl.economy.weapon_cost(damage="1d8+2")
    120
    """
    rules = resolve(rules)
    special = _special_value(special, rules)
    roll, value, bonus = _weapon_parts(roll_bonus, damage, damage_bonus, two_handed, rules)
    cost = rules["economy"]["point_cost"]
    return roll * cost + value + bonus * cost + special


def equipment_cost(bonus: int = 0, special: int = 0, *, rules: Rules | None = None) -> int:
    """Equipment price = bonus x 20 + special value, bonus in [-3, +3] (GM guide, economy).

    Parameters
    ----------
    bonus : int, default 0
        The equipment's bonus.
    special : int or list of int, default 0
        The GM's value of the special effect (may be negative; 0: none), or a list of values,
        one per effect, at most ``[economy] max_special_effects`` (one in the GM guide).
    rules : Rules, optional
        Rules to read ``[economy]`` from (default: the bundled rules).

    Returns
    -------
    int
        The price in NX.

    Raises
    ------
    ValueError
        A bonus outside its range, a special value that is not an integer, or more special
        effects than ``[economy] max_special_effects``.

    Examples
    --------
    >>> import balance as bl
    >>> bl.economy.equipment_cost(bonus=2)        # the Arm guard
    40
    """
    rules = resolve(rules)
    e = rules["economy"]
    bonus = check_integer("bonus", bonus, min=e["equipment_bonus_min"],
                          max=e["equipment_bonus_max"])
    return bonus * e["point_cost"] + _special_value(special, rules)


def roll_upgrade_cost(from_bonus: int, to_bonus: int, *, damage: str = "1d6",
                      rules: Rules | None = None) -> int:
    """Cost of raising a weapon's roll bonus, 20 NX per point (GM guide, economy).

    The target must respect the cap for the weapon's dice (``damage``).

    Parameters
    ----------
    from_bonus : int
        The current roll bonus.
    to_bonus : int
        The new one (at least ``from_bonus``, at most the cap).
    damage : str, default "1d6"
        The weapon's dice, for the cap.
    rules : Rules, optional
        Rules to read ``[economy]`` from (default: the bundled rules).

    Returns
    -------
    int
        The cost in NX.

    Raises
    ------
    ValueError
        Bonuses outside their caps, or a lower target.

    Examples
    --------
    >>> import balance as bl
    >>> bl.economy.roll_upgrade_cost(1, 3)
    40
    """
    rules = resolve(rules)
    e = rules["economy"]
    count, _, _ = _dice_count(damage, rules)
    roll_max, _ = bonus_caps(count, rules=rules)
    lo = check_integer("from_bonus", from_bonus, min=e["roll_bonus_min"], max=roll_max)
    hi = check_integer("to_bonus", to_bonus, min=lo, max=roll_max)
    return (hi - lo) * e["point_cost"]


def bonus_upgrade_cost(from_bonus: int, to_bonus: int, *, rules: Rules | None = None) -> int:
    """Cost of raising an existing equipment bonus, 20 NX per point up to +3 (GM guide, economy).

    A new kind of bonus cannot be added by upgrading: price it as a special effect.

    Parameters
    ----------
    from_bonus : int
        The current bonus.
    to_bonus : int
        The new one (at least ``from_bonus``).
    rules : Rules, optional
        Rules to read ``[economy]`` from (default: the bundled rules).

    Returns
    -------
    int
        The cost in NX.

    Raises
    ------
    ValueError
        Bonuses outside their range, or a lower target.

    Examples
    --------
    >>> import balance as bl
    >>> bl.economy.bonus_upgrade_cost(1, 3)
    40
    """
    rules = resolve(rules)
    e = rules["economy"]
    lo = check_integer("from_bonus", from_bonus, min=e["equipment_bonus_min"],
                       max=e["equipment_bonus_max"])
    hi = check_integer("to_bonus", to_bonus, min=lo, max=e["equipment_bonus_max"])
    return (hi - lo) * e["point_cost"]


def damage_upgrade_cost(from_damage: str, to_damage: str, *, from_bonus: int = 0,
                        to_bonus: int = 0, roll_bonus: int = 0, two_handed: bool = False,
                        rules: Rules | None = None) -> int:
    """Cost of upgrading a weapon's damage: the difference of damage costs (GM guide, economy).

    The upgraded weapon must respect every cap, including the caps lowered by extra dice (a roll
    bonus of +3 forbids a second die).

    Parameters
    ----------
    from_damage, to_damage : str
        The dice before and after.
    from_bonus, to_bonus : int, default 0
        The damage bonuses before and after.
    roll_bonus : int, default 0
        The weapon's roll bonus, for the caps.
    two_handed : bool, default False
        A two-handed weapon may roll one more die.
    rules : Rules, optional
        Rules to read ``[economy]`` from (default: the bundled rules).

    Returns
    -------
    int
        The cost in NX.

    Raises
    ------
    ValueError
        A bonus past its cap (the caps lowered by extra dice named: ``roll_bonus with 2 dice must
        be an integer between -3 and 2``), too many dice, a die without a price, a constant given
        twice, naming the argument.
        Also a cheaper target (not an upgrade).

    Examples
    --------
    >>> import balance as bl
    >>> bl.economy.damage_upgrade_cost("1d6", "1d8")
    20
    """
    rules = resolve(rules)
    before = damage_cost(from_damage, from_bonus, two_handed=two_handed, rules=rules)
    _weapon_parts(roll_bonus, to_damage, to_bonus, two_handed, rules)
    after = damage_cost(to_damage, to_bonus, two_handed=two_handed, rules=rules)
    if after < before:
        raise ValueError(f"to_damage {to_damage}{to_bonus:+d} is cheaper than from_damage "
                         f"{from_damage}{from_bonus:+d}: not an upgrade")
    return after - before


def resale_price(value: int, *, rules: Rules | None = None) -> int:
    """What a merchant pays for an item: 50 % of its value, rounded in the merchant's favour (GM guide, economy).

    Parameters
    ----------
    value : int
        The item's value in NX (>= 0).
    rules : Rules, optional
        Rules to read ``[economy]`` from (default: the bundled rules).

    Returns
    -------
    int
        The resale price in NX.

    Raises
    ------
    ValueError
        A value that is not a whole number >= 0.

    Examples
    --------
    >>> import balance as bl
    >>> bl.economy.resale_price(75)
    37
    """
    e = resolve(rules)["economy"]
    value = check_integer("value", value, min=0)
    return _round(Fraction(value * e["resale_percent"], 100), e["resale_rounding"])


def negotiated_price(price: int, outcome: str, *, selling: bool = False,
                     rules: Rules | None = None) -> int:
    """The price after a Charisma negotiation ``outcome`` (GM guide, economy).

    Buying: success 75 % (rounded up), critical success 50 %, failures the standard price.
    Selling an item worth ``price``: the standard price is the resale price; success resale x
    1.25 (rounded down); critical success the full purchase value.

    Parameters
    ----------
    price : int
        The item's price (buying) or value (selling), in NX.
    outcome : str
        ``"critical_failure"``, ``"failure"``, ``"success"`` or ``"critical_success"``.
    selling : bool, default False
        ``True`` when the PC sells.
    rules : Rules, optional
        Rules to read ``[economy]`` from (default: the bundled rules).

    Returns
    -------
    int
        The price in NX.

    Raises
    ------
    ValueError
        A negative price, an unknown outcome, or ``selling`` that is not a bool.

    Examples
    --------
    >>> import balance as bl
    >>> bl.economy.negotiated_price(200, "success"), bl.economy.negotiated_price(200, "success", selling=True)
    (150, 125)
    """
    rules = resolve(rules)
    price = check_integer("price", price, min=0)
    outcome = check_choice("outcome", outcome, OUTCOMES)
    selling = _check_flag("selling", selling)
    n = rules["economy"]["negotiation"]
    if not selling:
        pct = {"success": n["buy_success_percent"], "critical_success": n["buy_critical_percent"]}
        if outcome not in pct:
            return price
        return _round(Fraction(price * pct[outcome], 100), n["buy_rounding"])
    resale = resale_price(price, rules=rules)
    if outcome == "success":
        return _round(Fraction(resale * n["sell_success_percent"], 100), n["sell_rounding"])
    if outcome == "critical_success":
        return _round(Fraction(price * n["sell_critical_percent"], 100), n["sell_rounding"])
    return resale


def charisma_negotiation(price: int, charisma: int, difficulty: int, *, selling: bool = False,
                         rules: Rules | None = None) -> pd.Series:
    """Exact outcome distribution of a Charisma negotiation over the d20's faces (GM guide, checks and attacks; economy).

    A critical failure also ends bargaining with that merchant for the day.

    Parameters
    ----------
    price : int
        The item's price (buying) or value (selling), in NX.
    charisma : int
        The PC's Charisma modifier (-100..100).
    difficulty : int
        The check's difficulty (the roll plus Charisma must reach it).
    selling : bool, default False
        ``True`` when the PC sells.
    rules : Rules, optional
        Rules to read ``[economy]`` from (default: the bundled rules).

    Returns
    -------
    pandas.Series
        ``critical_failure``, ``failure``, ``success``, ``critical_success`` (probabilities,
        summing to 1) and ``expected_price``; ``.attrs["prices"]`` holds the price of each outcome.

    Raises
    ------
    ValueError
        A negative price, a Charisma or difficulty out of range, or ``selling`` that is not a bool.

    Examples
    --------
    >>> import balance as bl
    >>> out = bl.economy.charisma_negotiation(price=200, charisma=2, difficulty=14)
    >>> out.tolist()
    [0.05, 0.5, 0.4, 0.05, 175.0]
    >>> out.attrs["prices"]["critical_success"]
    100
    """
    rules = resolve(rules)
    price = check_integer("price", price, min=0)
    charisma = check_integer("charisma", charisma, min=-100, max=100)
    difficulty = check_integer("difficulty", difficulty, min=-1000, max=1000)
    selling = _check_flag("selling", selling)
    chk = rules["guide"]["checks"]
    counts = dict.fromkeys(OUTCOMES, 0)
    for face in range(1, chk["die"] + 1):
        counts[_check_outcome(face, charisma, difficulty, chk)] += 1
    probs = {k: Fraction(v, chk["die"]) for k, v in counts.items()}
    prices = {k: negotiated_price(price, k, selling=selling, rules=rules) for k in OUTCOMES}
    expected = sum(probs[k] * prices[k] for k in OUTCOMES)
    out = pd.Series({**{k: float(v) for k, v in probs.items()}, "expected_price": float(expected)},
                    name="selling" if selling else "buying")
    out.attrs["prices"] = prices
    out.attrs["expected_price_exact"] = expected
    return out


def _check_outcome(face: int, modifier: int, difficulty: int, chk) -> str:
    """Outcome of a d20 check, rolled over (GM guide, checks and attacks)."""
    if face == chk["critical_failure"]:
        return "critical_failure"
    if face == chk["critical_success"]:
        return "critical_success"
    return "success" if face + modifier >= difficulty else "failure"
