"""``balance duel``, ``balance weapons`` and ``balance campaign``: simulated matchups and a
campaign's wound burden, each estimate with its 95 % interval, seeded (same command, same
output). Registered by :mod:`balance.cli`.

- ``duel``: two percentile combatants (percentile rules, combat), their skills, weapons,
  shields and armour (:func:`balance.percentile.duel`);
- ``weapons``: every pair of weapons with the two sides at *different* skills;
- ``campaign``: fights, knockouts, rescues and treatment in between (core rules, dying and
  treating injuries; :func:`balance.core.campaign.simulate`).
"""
from __future__ import annotations

import argparse
import math

from ..budgets import MAX_ARMOUR, MAX_SKILL
from ..errors import shown
from .options import add_format, add_lang, add_mc, add_rules, emit, load

__all__ = ["register"]

#: duels per matchup of ``balance weapons`` (25 matchups of the bundled weapons: ~3 s)
WEAPON_TRIALS = 5_000
#: the ranges ``bl.campaign.plan`` accepts (checked against it in tests/test_cli_matches.py),
#: refused here at parse time so that the message names the option
CAMPAIGN_RANGES = {"fights": (1, 500), "cunning": (-100, 100), "hours_between": (0, 24 * 365)}


def whole(low: int, high: int):
    """argparse ``type=``: a whole number from ``low`` to ``high`` (argparse names the
    option: ``argument --armour: a whole number from 0 to 10,000, got '-1'``)."""
    def parse(text: str) -> int:
        try:
            value = int(text.strip().replace("_", ""))
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"a whole number from {low:,} to {high:,}, got {text!r}")
        return value
    return parse


def chance(text: str) -> float:
    """argparse ``type=`` of a probability: a number from 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"a number from 0 to 1, got {text!r}")
    return value


def dice_from(minimum: int):
    """argparse ``type=`` of a number or dice expression that never gives less than
    ``minimum`` (the text is kept: the library parses it again)."""
    def parse(text: str) -> str:
        from .. import dice

        try:
            parsed = dice.parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"{exc}") from None
        if parsed.min < minimum:
            raise argparse.ArgumentTypeError(
                f"a whole number or dice never below {minimum} (e.g. 1d6), got {text!r}, "
                f"which can give {parsed.min}")
        return text
    return parse


#: argparse ``type=`` of a Combat Style %
_skill = whole(0, MAX_SKILL)
_armour = whole(0, MAX_ARMOUR)


def _row(rules, value: str, option: str, table: str, lang: str):
    """The row of ``[percentile.<table>]`` named ``value`` (its key, English or French name,
    any case); else a one-line error naming ``option`` and the table's names in ``lang``."""
    from ..errors import did_you_mean
    from ..names import find_row

    rows = [dict(r, key_name=r["key"].replace("_", " ")) for r in
            rules.get(f"percentile.{table}.table", ())]
    try:
        return find_row(rows, value.replace("_", " "), option, keys=("key_name", "en", "fr"))[1]
    except ValueError:
        names = [r.get(lang) or r["en"] for r in rows]
        raise ValueError(f"argument {option}: unknown {table[:-1]} {shown(value)}"
                         f"{did_you_mean(value, names)}; accepted: {', '.join(names)}"
                         ) from None


def _name(row, lang: str) -> str:
    return row.get(lang) or row.get("en") or row["key"]


def _policy(rules, value: str, option: str) -> str:
    names = list(rules.get("percentile.special_effects.policies", {}))
    if value not in names:
        from ..errors import did_you_mean

        raise ValueError(f"argument {option}: unknown policy {value!r}"
                         f"{did_you_mean(value, names)}; accepted: {', '.join(names)} "
                         "(the rules' [percentile.special_effects.policies])")
    return value


def _situation(surprise: str | None, charge: str | None) -> str:
    """The duel's situation in words: who surprises whom, who charges."""
    parts = []
    if surprise:
        parts.append("first surprises second" if surprise == "second" else
                     "second surprises first")
    if charge:
        parts.append("both charge" if charge == "both" else f"{charge} charges")
    return "; ".join(parts) or "none"


def _fighter(rules, skill: int, weapon: str, shield: str | None, armour: int):
    from ..percentile import combatant

    return combatant(skill, weapon=weapon, shield=shield, armour=armour, rules=rules)


def _duel(args) -> int:
    import pandas as pd

    from ..percentile import duel

    rules = load(args.rules)
    lang = args.lang
    second = args.skill if args.other_skill is None else args.other_skill
    weapon = _row(rules, args.weapon, "--weapon", "weapons", lang)
    other_weapon = weapon if args.other_weapon is None else \
        _row(rules, args.other_weapon, "--other-weapon", "weapons", lang)
    shield_rows = [None if text is None else _row(rules, text, option, "shields", lang)
                   for text, option in ((args.shield, "--shield"),
                                        (args.other_shield, "--other-shield"))]
    shield, other_shield = (None if row is None else row["key"] for row in shield_rows)
    other_armour = args.armour if args.other_armour is None else args.other_armour
    policy = _policy(rules, args.policy, "--policy")
    other_policy = policy if args.other_policy is None else \
        _policy(rules, args.other_policy, "--other-policy")
    first = _fighter(rules, args.skill, weapon["key"], shield, args.armour)
    opponent = _fighter(rules, second, other_weapon["key"], other_shield, other_armour)
    sim = duel(first, opponent, trials=args.trials, seed=args.seed, rules=rules,
               policies=(policy, other_policy), surprise=args.surprise, charge=args.charge,
               workers=args.workers)
    table = sim.table.reset_index()
    table = table[[c for c in ("metric", "estimate", "ci_low", "ci_high", "se")
                   if c in table.columns]]
    shown = [None if row is None else _name(row, lang) for row in shield_rows]
    header = {"skill": args.skill, "weapon": _name(weapon, lang), "armour": args.armour,
              "shield": shown[0], "other_skill": second,
              "other_weapon": _name(other_weapon, lang), "other_armour": other_armour,
              "other_shield": shown[1],
              "situation": _situation(args.surprise, args.charge),
              "policy": policy, "other_policy": other_policy,
              "seed": args.seed, "trials": args.trials}
    header = {k: v for k, v in header.items() if v is not None}  # a shield only when carried
    emit(pd.DataFrame(table), args.format, header=header)
    return 0


def _weapons(args) -> int:
    import numpy as np
    import pandas as pd

    from ..budgets import check_grid
    from ..percentile import duel

    rules = load(args.rules)
    lang = args.lang
    given = args.weapons or [row["key"] for row in rules.get("percentile.weapons.table")]
    rows_of: dict[str, dict] = {}  # by key, in the order given: a weapon named twice is paired once
    for text in given:
        row = _row(rules, text, "--weapons", "weapons", lang)
        rows_of.setdefault(row["key"], row)
    weapons = list(rows_of.values())
    check_grid("--weapons matchups x --trials", (len(weapons), len(weapons), args.trials),
               most=10**9)
    against = args.skill if args.against is None else args.against
    seeds = np.random.SeedSequence(args.seed).spawn(len(weapons) ** 2)
    rows = []
    for i, (w1, w2) in enumerate((a, b) for a in weapons for b in weapons):
        first = _fighter(rules, args.skill, w1["key"], None, args.armour)
        second = _fighter(rules, against, w2["key"], None, args.armour)
        table = duel(first, second, trials=args.trials, seed=seeds[i], rules=rules,
                     workers=args.workers).table
        cell = table["estimate"].to_dict()
        rows.append({"weapon": _name(w1, lang), "against": _name(w2, lang),
                     "win": float(cell["first_wins"]),
                     "ci_low": float(table["ci_low"].to_dict()["first_wins"]),
                     "ci_high": float(table["ci_high"].to_dict()["first_wins"]),
                     "loss": float(cell["second_wins"]), "timeout": float(cell["timeout"]),
                     "rounds": float(cell["rounds"])})
    header = {"skill": args.skill, "against_skill": against, "armour": args.armour,
              "seed": args.seed, "trials": args.trials}
    emit(pd.DataFrame(rows), args.format, header=header)
    return 0


def _campaign(args) -> int:
    from ..core import campaign

    rules = load(args.rules)
    sim = campaign.simulate(args.fights, args.knockout_chance, negative_hp=args.negative_hp,
                            arrival=args.arrival, cunning=args.cunning,
                            hours_between=args.hours_between, policy=args.policy,
                            trials=args.trials, seed=args.seed, rules=rules,
                            workers=args.workers)
    table = sim.table.drop(columns=[c for c in ("seed", "fingerprint", "trials")
                                    if c in sim.table])
    header = {"fights": args.fights, "knockout_chance": args.knockout_chance,
              "negative_hp": args.negative_hp, "arrival": args.arrival,
              "cunning": args.cunning, "policy": args.policy, "seed": args.seed,
              "trials": args.trials}
    emit(table, args.format, header=header)
    return 0


def _sides(p, weapon_help: str) -> None:
    p.add_argument("--weapon", default="broadsword",
                   help=f"{weapon_help} (a key, English or French name of "
                        "[percentile.weapons]; default broadsword)")
    p.add_argument("--armour", type=_armour, default=0, metavar="POINTS",
                   help=f"armour points on every location (0 to {MAX_ARMOUR:,}; default 0)")


def register(sub) -> None:
    """Add ``balance duel``, ``balance weapons`` and ``balance campaign``."""
    p = sub.add_parser(
        "duel", help="simulate a percentile duel: win chances with intervals (percentile rules, combat)",
        description="Two combatants of the percentile rules fight until one is out: each "
                    "side's win chance, how the loser went out, rounds and seconds, with 95 % "
                    "intervals. SKILL is the first side's Combat Style %, OTHER_SKILL the "
                    "second's (default: the same). --surprise, --charge and --policy set the "
                    "situation (percentile rules, special effects and situations); the output "
                    "says which one was simulated.")
    p.add_argument("skill", type=_skill, metavar="SKILL",
                   help=f"first side's Combat Style %% (0 to {MAX_SKILL:,})")
    p.add_argument("other_skill", type=_skill, nargs="?", default=None, metavar="OTHER_SKILL",
                   help="second side's Combat Style %% (default SKILL)")
    _sides(p, "first side's weapon")
    p.add_argument("--shield", default=None, help="first side's shield (default none)")
    p.add_argument("--other-weapon", default=None, help="second side's weapon (default "
                   "--weapon)")
    p.add_argument("--other-shield", default=None, help="second side's shield (default none)")
    p.add_argument("--other-armour", type=_armour, default=None, metavar="POINTS",
                   help="second side's armour points (default --armour)")
    p.add_argument("--surprise", choices=("first", "second"), default=None,
                   help="the side taken by surprise: -10 initiative, no defence until its "
                        "first turn, a bonus special effect on the first hit against it "
                        "(default: nobody)")
    p.add_argument("--charge", choices=("first", "second", "both"), default=None,
                   help="the side(s) opening with a charge: first attack one grade harder, "
                        "damage modifier one step up, weapon one size larger (default: none)")
    p.add_argument("--policy", default="default", metavar="NAME",
                   help="how the first side (and the second, unless --other-policy) spends "
                        "its special effects: a name of [percentile.special_effects.policies]"
                        " (bundled: default, legacy, none; default: default)")
    p.add_argument("--other-policy", default=None, metavar="NAME",
                   help="the second side's policy (default --policy)")
    add_lang(p, "language of the weapon names")
    add_rules(p)
    add_format(p)
    add_mc(p, 20_000)
    p.set_defaults(func=_duel)

    p = sub.add_parser(
        "weapons", help="weapon matchups at unequal skills, with intervals (percentile rules, combat)",
        description="Every pair of the weapons: the first side at SKILL % with the first "
                    "weapon of the pair against the second side at --against % with the "
                    "second weapon; the first side's win chance with its 95 % interval, each "
                    "matchup from its own spawned seed. A weapon named twice is paired once.")
    p.add_argument("skill", type=_skill, metavar="SKILL",
                   help=f"first side's Combat Style %% (0 to {MAX_SKILL:,})")
    p.add_argument("--against", type=_skill, default=None, metavar="SKILL",
                   help="second side's Combat Style %% (default SKILL)")
    p.add_argument("--weapons", nargs="+", default=None, metavar="WEAPON",
                   help="weapons to pair (default: all of [percentile.weapons])")
    p.add_argument("--armour", type=_armour, default=0, metavar="POINTS",
                   help=f"armour points of both sides on every location (0 to "
                        f"{MAX_ARMOUR:,}; default 0)")
    add_lang(p, "language of the weapon names")
    add_rules(p)
    add_format(p)
    add_mc(p, WEAPON_TRIALS)
    p.set_defaults(func=_weapons)

    fights, cunning, hours = (CAMPAIGN_RANGES[k] for k in ("fights", "cunning",
                                                           "hours_between"))
    p = sub.add_parser(
        "campaign", help="a campaign's wound burden: deaths over many fights (core rules, injuries and treatment)",
        description="Characters go through --fights fights, knocked out with "
                    "--knockout-chance each, rescued, rolling critical injuries, treated "
                    "between fights: the cumulative death probability after each fight, "
                    "with 95 % intervals.")
    p.add_argument("--fights", type=whole(*fights), default=10,
                   help=f"fights ({fights[0]} to {fights[1]}; default 10)")
    p.add_argument("--knockout-chance", type=chance, default=0.25,
                   help="chance of being knocked out in a fight (0 to 1; default 0.25)")
    p.add_argument("--negative-hp", type=dice_from(1), default="1d6",
                   help="negative HP on a knockout: a number or dice, never below 1 "
                        "(default 1d6)")
    p.add_argument("--arrival", type=dice_from(0), default="6+1d8",
                   help="rescuer's arrival in seconds: a number or dice, never below 0 "
                        "(default 6+1d8)")
    p.add_argument("--cunning", type=whole(*cunning), default=12,
                   help=f"the healer's Cunning ({cunning[0]} to {cunning[1]}; default 12)")
    p.add_argument("--hours-between", type=whole(*hours), default=24,
                   help=f"hours of treatment between fights ({hours[0]} to {hours[1]:,}; "
                        "default 24)")
    p.add_argument("--policy", choices=("both", "full", "light", "none"), default="both",
                   help="treatment between fights (default both)")
    add_rules(p)
    add_format(p)
    add_mc(p, 100_000)
    p.set_defaults(func=_campaign)
