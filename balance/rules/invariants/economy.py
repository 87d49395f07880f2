"""Invariants of the GM guide's economy (GM guide, economy): dice prices, bonus caps, negotiation."""
from __future__ import annotations

from .registry import invariant
from ._tools import Source, fail


@invariant("economy.dice_and_caps", "economy.dice_values", "economy.*_bonus_max",
           "economy.cap_reduction_per_extra_die", "economy.max_dice_two_handed")
def dice_and_caps(data: dict, source_of: Source) -> None:
    """Weapon prices have a die for each face count and a legal bonus at every dice count
    (GM guide, economy): each ``economy.dice_values`` row's ``die`` is ``d<faces>`` and faces
    appear once; each bonus range (roll, damage, equipment) includes 0, the item without a
    bonus; with the most dice a weapon may have (``max_dice_two_handed``), the lowered
    bonus caps (``*_bonus_max - cap_reduction_per_extra_die x (dice - 1)``) stay at or above
    the bonus minima.

    Fix: correct the die's name, lower the cap reduction or the dice count, or raise the caps.
    """
    e = data["economy"]
    seen: dict[int, int] = {}
    for i, row in enumerate(e["dice_values"]):
        if row["die"] != f"d{row['faces']}":
            raise fail(source_of, ["economy.dice_values"],
                       f"table economy.dice_values, row {i + 1}: die {row['die']!r} does not "
                       f"match faces = {row['faces']}; write die = 'd{row['faces']}'")
        if row["faces"] in seen:
            raise fail(source_of, ["economy.dice_values"],
                       f"table economy.dice_values: rows {seen[row['faces']] + 1} and {i + 1} "
                       f"both price the d{row['faces']}; drop one")
        seen[row["faces"]] = i
    for kind in ("roll", "damage", "equipment"):
        lo, hi = e[f"{kind}_bonus_min"], e[f"{kind}_bonus_max"]
        if not lo <= 0 <= hi:
            raise fail(source_of, [f"economy.{kind}_bonus_min", f"economy.{kind}_bonus_max"],
                       f"economy.{kind}_bonus_min..{kind}_bonus_max = {lo}..{hi} leaves out 0: "
                       f"an item without a {kind} bonus could not be priced; include 0 in the "
                       "range")
    dice = max(e["max_dice"], e["max_dice_two_handed"])
    drop = e["cap_reduction_per_extra_die"] * (dice - 1)
    for kind in ("roll", "damage"):
        cap, low = e[f"{kind}_bonus_max"] - drop, e[f"{kind}_bonus_min"]
        if cap < low:
            raise fail(source_of, [f"economy.{kind}_bonus_max",
                                   "economy.cap_reduction_per_extra_die",
                                   "economy.max_dice_two_handed"],
                       f"economy.{kind}_bonus_max = {e[f'{kind}_bonus_max']} lowered by "
                       f"cap_reduction_per_extra_die x {dice - 1} extra dice is {cap}, below "
                       f"economy.{kind}_bonus_min = {low}: a {dice}-dice weapon could have no "
                       "bonus at all; lower the cap reduction or max dice, or raise the cap")


@invariant("economy.negotiation_ordered", "economy.negotiation", "economy.resale_percent")
def negotiation_ordered(data: dict, source_of: Source) -> None:
    """A better negotiation never gives a worse price (GM guide, economy): buying, a critical
    success pays at most a success, which pays at most the standard price (100 %); selling,
    a success earns at least the resale price and a critical success at least a success
    (``sell_critical_percent`` of the value >= ``sell_success_percent`` of the resale price).

    Fix: order the percentages: buy_critical <= buy_success <= 100; sell_success >= 100;
    sell_critical x 100 >= sell_success x resale_percent.
    """
    e = data["economy"]
    n = e["negotiation"]
    paths = ["economy.negotiation"]
    if not n["buy_critical_percent"] <= n["buy_success_percent"] <= 100:
        raise fail(source_of, paths,
                   f"economy.negotiation: buy_critical_percent = {n['buy_critical_percent']}, "
                   f"buy_success_percent = {n['buy_success_percent']} and the standard price "
                   "(100) must rise in that order, or winning would cost more; order them")
    if n["sell_success_percent"] < 100:
        raise fail(source_of, paths,
                   f"economy.negotiation.sell_success_percent = {n['sell_success_percent']} is "
                   "below 100: a successful sale would earn less than the resale price; make "
                   "it at least 100")
    if n["sell_critical_percent"] * 100 < n["sell_success_percent"] * e["resale_percent"]:
        raise fail(source_of, paths + ["economy.resale_percent"],
                   f"economy.negotiation.sell_critical_percent = {n['sell_critical_percent']} "
                   f"of the value is below sell_success_percent = {n['sell_success_percent']} "
                   f"of the resale price ({e['resale_percent']} % of the value): a critical "
                   "success would earn less than a success; raise sell_critical_percent")
