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

from .options import add_format, add_lang, add_mc, add_rules, emit, load, natural_arg

__all__ = ["register"]

#: duels per matchup of ``balance weapons`` (25 matchups of the bundled weapons: ~3 s)
WEAPON_TRIALS = 5_000


#: argparse ``type=`` of a Combat Style %: a whole number from 0
_skill = natural_arg


def _weapon_name(rules, key: str, lang: str, table: str = "weapons") -> str:
    for row in rules.get(f"percentile.{table}.table", ()):
        if key in (row.get("key"), row.get("en"), row.get("fr")):
            return row.get(lang) or row.get("en") or key
    return key


def _fighter(rules, skill: int, weapon: str, shield: str | None, armour: int):
    from ..percentile import combatant

    return combatant(skill, weapon=weapon, shield=shield, armour=armour, rules=rules)


def _duel(args) -> int:
    import pandas as pd

    from ..percentile import duel

    rules = load(args.rules)
    second = args.skill if args.other_skill is None else args.other_skill
    other_weapon = args.weapon if args.other_weapon is None else args.other_weapon
    other_armour = args.armour if args.other_armour is None else args.other_armour
    first = _fighter(rules, args.skill, args.weapon, args.shield, args.armour)
    opponent = _fighter(rules, second, other_weapon, args.other_shield, other_armour)
    sim = duel(first, opponent, trials=args.trials, seed=args.seed, rules=rules,
               workers=args.workers)
    table = sim.table.reset_index()
    table = table[[c for c in ("metric", "estimate", "ci_low", "ci_high", "se")
                   if c in table.columns]]
    header = {"skill": args.skill, "weapon": _weapon_name(rules, args.weapon, args.lang),
              "armour": args.armour, "other_skill": second,
              "other_weapon": _weapon_name(rules, other_weapon, args.lang),
              "other_armour": other_armour, "seed": args.seed, "trials": args.trials}
    emit(pd.DataFrame(table), args.format, header=header)
    return 0


def _weapons(args) -> int:
    import numpy as np
    import pandas as pd

    from ..budgets import check_grid
    from ..percentile import duel

    rules = load(args.rules)
    keys = args.weapons or [row["key"] for row in rules.get("percentile.weapons.table")]
    check_grid("--weapons matchups x --trials", (len(keys), len(keys), args.trials),
               most=10**9)
    against = args.skill if args.against is None else args.against
    seeds = np.random.SeedSequence(args.seed).spawn(len(keys) ** 2)
    rows = []
    for i, (w1, w2) in enumerate((a, b) for a in keys for b in keys):
        first = _fighter(rules, args.skill, w1, None, args.armour)
        second = _fighter(rules, against, w2, None, args.armour)
        table = duel(first, second, trials=args.trials, seed=seeds[i], rules=rules,
                     workers=args.workers).table
        cell = table["estimate"].to_dict()
        rows.append({"weapon": _weapon_name(rules, w1, args.lang),
                     "against": _weapon_name(rules, w2, args.lang),
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
    p.add_argument("--armour", type=int, default=0,
                   help="armour points on every location (default 0)")


def register(sub) -> None:
    """Add ``balance duel``, ``balance weapons`` and ``balance campaign``."""
    p = sub.add_parser(
        "duel", help="simulate a percentile duel: win chances with intervals (percentile 3.3)",
        description="Two combatants of the percentile rules fight until one is out: each "
                    "side's win chance, how the loser went out, rounds and seconds, with 95 %% "
                    "intervals. SKILL is the first side's Combat Style %%, OTHER_SKILL the "
                    "second's (default: the same).")
    p.add_argument("skill", type=_skill, metavar="SKILL", help="first side's Combat Style %%")
    p.add_argument("other_skill", type=_skill, nargs="?", default=None, metavar="OTHER_SKILL",
                   help="second side's Combat Style %% (default SKILL)")
    _sides(p, "first side's weapon")
    p.add_argument("--shield", default=None, help="first side's shield (default none)")
    p.add_argument("--other-weapon", default=None, help="second side's weapon (default "
                   "--weapon)")
    p.add_argument("--other-shield", default=None, help="second side's shield (default none)")
    p.add_argument("--other-armour", type=int, default=None,
                   help="second side's armour points (default --armour)")
    add_lang(p, "language of the weapon names")
    add_rules(p)
    add_format(p)
    add_mc(p, 20_000)
    p.set_defaults(func=_duel)

    p = sub.add_parser(
        "weapons", help="weapon matchups at unequal skills, with intervals (percentile 3.3)",
        description="Every pair of weapons: the first side at SKILL %% with WEAPON against "
                    "the second at --against %% with AGAINST; the first side's win chance "
                    "with its 95 %% interval, each matchup from its own spawned seed.")
    p.add_argument("skill", type=_skill, metavar="SKILL", help="first side's Combat Style %%")
    p.add_argument("--against", type=_skill, default=None, metavar="SKILL",
                   help="second side's Combat Style %% (default SKILL)")
    p.add_argument("--weapons", nargs="+", default=None, metavar="WEAPON",
                   help="weapons to pair (default: all of [percentile.weapons])")
    p.add_argument("--armour", type=int, default=0,
                   help="armour points of both sides on every location (default 0)")
    add_lang(p, "language of the weapon names")
    add_rules(p)
    add_format(p)
    add_mc(p, WEAPON_TRIALS)
    p.set_defaults(func=_weapons)

    p = sub.add_parser(
        "campaign", help="a campaign's wound burden: deaths over many fights (core 1.2-1.3)",
        description="Characters go through --fights fights, knocked out with "
                    "--knockout-chance each, rescued, rolling critical injuries, treated "
                    "between fights: the cumulative death probability after each fight, "
                    "with 95 %% intervals.")
    p.add_argument("--fights", type=int, default=10, help="fights (default 10)")
    p.add_argument("--knockout-chance", type=float, default=0.25,
                   help="chance of being knocked out in a fight (default 0.25)")
    p.add_argument("--negative-hp", default="1d6",
                   help="negative HP on a knockout: a number or dice (default 1d6)")
    p.add_argument("--arrival", default="6+1d8",
                   help="rescuer's arrival in seconds: a number or dice (default 6+1d8)")
    p.add_argument("--cunning", type=int, default=12, help="the healer's Cunning (default 12)")
    p.add_argument("--hours-between", type=int, default=24,
                   help="hours of treatment between fights (default 24)")
    p.add_argument("--policy", choices=("both", "full", "light", "none"), default="both",
                   help="treatment between fights (default both)")
    add_rules(p)
    add_format(p)
    add_mc(p, 100_000)
    p.set_defaults(func=_campaign)
