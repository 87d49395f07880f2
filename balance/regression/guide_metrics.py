"""Metrics of the GM guide: adversity ratios, calibration, prices.

All exact: the guide's numbers are table look-ups and fractions (:mod:`balance.encounters`,
:mod:`balance.creatures`, :mod:`balance.economy`).
"""
from __future__ import annotations

import math

from ..rules import Rules
from .metrics import Measurement, Metric, distribution
from .rows import defined, row, row_name

__all__ = ["metrics", "ENCOUNTERS", "creature_names"]

#: bestiary encounters against the default party (the guide's example first)
ENCOUNTERS = {"dragon+2goblins": ("Dragon", "Goblin", "Goblin"),
              "troll+wolf": ("Troll", "Wolf")}
BOSS_SIZES = ("small", "medium", "large", "huge", "titanic")


def creature_names(rules: Rules, names: tuple[str, ...], metric: str) -> list[str]:
    """The names, in ``rules``, of the bestiary rows that are ``names`` in the bundled rules
    (rows are identified by position: a renamed or translated creature still compares)."""
    return [row_name(rules, "bestiary.creatures", n, metric) for n in names]


def _calibration(rules: Rules, names: tuple[str, ...], metric: str) -> tuple[float, int]:
    import warnings

    from ..guide import creatures, encounters
    sheets = [creatures.creature(n, rules=rules) for n in creature_names(rules, names, metric)]
    pcs = len(creatures.party(rules=rules))
    with warnings.catch_warnings():  # advice is not what this metric measures
        warnings.simplefilter("ignore", encounters.EncounterAdvice)
        cal = encounters.calibration(sheets, pcs, rules=rules)
    rows = rules["encounters"]["challenges"]
    level = math.floor(cal.value)
    index = 0 if level < rows[0]["low"] else next(
        i for i, r in enumerate(rows) if r["low"] <= level and ("high" not in r or level <= r["high"]))
    return float(cal.value), index


def _boss_ratio(rules: Rules, size: str, metric: str) -> float:
    """Base adversity ratio of a boss of the bundled ``size``: the size and the kind are
    the rows at the bundled positions of ``creatures.sizes`` and ``creatures.kinds``, so a
    renamed or translated size still compares."""
    from ..guide import encounters
    name = row_name(rules, "creatures.sizes", size, metric)
    with defined(metric, f"a {name} boss has no base ratio", "encounters.base_ratios"):
        return float(encounters.base_ratio(name, row_name(rules, "creatures.kinds", "boss",
                                                          metric), rules=rules))


def _die(rules: Rules, bundled: str, metric: str) -> int:
    """Faces of the die at the bundled ``bundled`` die's position in ``economy.dice_values``
    (a variant may replace the d8 by a d9: the Longsword then rolls the d9)."""
    return int(row(rules, "economy.dice_values", bundled, metric, column="die")["faces"])


def _weapon_price(rules: Rules, metric: str, item: str, *, roll_bonus: int, count: int,
                  die: str, damage_bonus: int, two_handed: bool = False) -> float:
    """Price of a fixed weapon of the guide (GM guide, weapon prices), its dice read by position.

    Caps that forbid the weapon (a roll bonus above ``roll_bonus_max``, more dice than
    allowed) make the metric undefined (:class:`~balance.regression.rows.MetricUndefined`):
    ``check`` and ``diff`` show it not measured on that side, with why, and exit 1. A designer
    lowering the caps learns that the guide's weapon no longer exists; clipping it to the
    caps would compare another weapon under the same name (a silently wrong number), and
    pricing it past the caps would price a weapon the variant forbids.
    """
    from ..guide import economy
    damage = f"{count}d{_die(rules, die, metric)}"
    what = (f"{item} ({'two-handed ' if two_handed else ''}roll bonus {roll_bonus:+d}, "
            f"{damage}{damage_bonus:+d}) is not a legal weapon")
    with defined(metric, what, "economy"):
        return float(economy.weapon_cost(roll_bonus=roll_bonus, damage=damage,
                                         damage_bonus=damage_bonus, two_handed=two_handed,
                                         rules=rules))


def _equipment_price(rules: Rules, metric: str) -> float:
    """Price of the guide's Arm guard (+2 Melee Atk); caps that forbid it make the metric
    undefined, for the reasons of :func:`_weapon_price`."""
    from ..guide import economy
    with defined(metric, "an Arm guard (+2) is not legal equipment", "economy"):
        return float(economy.equipment_cost(bonus=2, rules=rules))


def _charisma(rules: Rules) -> Measurement:
    from ..guide import economy
    s = economy.charisma_negotiation(200, 2, 14, rules=rules)
    return distribution(s[list(economy.OUTCOMES)], economy.OUTCOMES)


def metrics() -> list[Metric]:
    """The GM guide's metrics, in catalogue order."""
    from ..guide import economy
    out = [Metric(f"encounters.boss_ratio.{size}", f"base adversity ratio of a {size} boss",
                  "ratio", "exact", "scalar",
                  lambda r, size=size: Measurement(_boss_ratio(
                      r, size, f"encounters.boss_ratio.{size}")),
                  section="encounters")
           for size in BOSS_SIZES]
    for tag, names in ENCOUNTERS.items():
        out.append(Metric(f"encounters.calibration@{tag}",
                          f"calibration of {' + '.join(names)} vs the default party",
                          "ratio", "exact", "scalar",
                          lambda r, names=names, tag=tag: Measurement(_calibration(
                              r, names, f"encounters.calibration@{tag}")[0]),
                          section="encounters"))
        out.append(Metric(f"encounters.challenge@{tag}",
                          f"challenge level of {' + '.join(names)} vs the default party "
                          "(0 Easy, 1 Manageable, 2 Demanding, 3 Intense, 4 Impossible)",
                          "level", "exact", "scalar",
                          lambda r, names=names, tag=tag: Measurement(float(_calibration(
                              r, names, f"encounters.challenge@{tag}")[1])),
                          section="encounters"))
    out += [
        Metric("economy.price.longsword", "price of a Longsword (STR+2, 1d8+2)", "NX", "exact",
               "scalar", lambda r: Measurement(_weapon_price(
                   r, "economy.price.longsword", "the Longsword", roll_bonus=2, count=1,
                   die="d8", damage_bonus=2)), section="economy"),
        Metric("economy.price.greataxe", "price of a two-handed 3d12+0 weapon, roll bonus 0",
               "NX", "exact", "scalar", lambda r: Measurement(_weapon_price(
                   r, "economy.price.greataxe", "the greataxe", roll_bonus=0, count=3,
                   die="d12", damage_bonus=0, two_handed=True)), section="economy"),
        Metric("economy.price.arm_guard", "price of an Arm guard (+2 Melee Atk)", "NX",
               "exact", "scalar",
               lambda r: Measurement(_equipment_price(r, "economy.price.arm_guard")),
               section="economy"),
        Metric("economy.resale@200NX", "what a merchant pays for a 200 NX item", "NX", "exact",
               "scalar", lambda r: Measurement(float(economy.resale_price(200, rules=r))),
               section="economy"),
        Metric("economy.charisma_price@200NX,CHA+2,DC14",
               "expected price paid for a 200 NX item by Charisma negotiation, CHA +2 vs 14",
               "NX", "exact", "scalar",
               lambda r: Measurement(float(economy.charisma_negotiation(
                   200, 2, 14, rules=r)["expected_price"])), section="economy, guide.checks"),
        Metric("economy.charisma_outcomes@CHA+2,DC14",
               "Charisma negotiation outcomes, CHA +2 vs difficulty 14", "probability",
               "exact", "distribution", _charisma, section="economy, guide.checks"),
    ]
    return out
