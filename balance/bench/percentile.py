"""Benchmark kernels of the percentile rules (issue 5): the d100 tier roll and the duel simulator.

Importing this module registers ``d100-tiers`` and ``percentile-duel`` with :mod:`balance.bench`
(listed in ``bench.KERNEL_MODULES``). Each has a plain-Python twin, written as a reviewer would
(dice from ``random.Random.random``, what depends only on a face looked up once, no numpy):

- :func:`python_tiers`: one d100 per trial against skill 65, the precedence of the
  percentile rules, skill roll
  (fumble, automatic failure, success, critical) applied with the numbers of the rules data;
- :func:`python_duels`: whole duels in a per-duel loop applying the same exchange rules and
  policies as :mod:`balance.percentile.duels` / :mod:`balance.percentile.exchange` (percentile
  rules, combat), written independently of their numpy code. Tests compare it statistically with
  :func:`balance.percentile.duel_sampler`.

The floors draw the dice the kernels draw, counted by :func:`balance.bench.counting.count_draws`;
:func:`duel_dice` is the rules' own count (every die a full exchange can need), for comparison.
"""
from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any
from functools import lru_cache, partial

from .. import dice
from . import Kernel, python_face_counts, register
from ..rules import Rules, resolve
from ..percentile._common import CRITICAL, FAILURE, FUMBLE, SUCCESS, ceil_div, section
from ..percentile._common import grade as find_grade

__all__ = ["TIER_SKILL", "DUEL_SKILLS", "python_tier", "python_tiers", "python_duels",
           "duel_dice", "TIERS_KERNEL", "DUEL_KERNEL"]

TIER_SKILL = 65
#: Combat Styles of the benchmarked duel (average humans, broadswords, no armour)
DUEL_SKILLS = (70, 50)


# --- d100 tiers (percentile rules, skill roll) -------------------------------------------------
def python_tier(roll: int, skill: int, p) -> int:
    """Tier code of one d100 ``roll`` against the modified ``skill`` (``p``: the rules'
    ``[percentile.roll]``), in the precedence of the percentile rules, skill roll: fumble, automatic failure,
    success, critical."""
    fumble_min = p["high_skill_fumble_min"] if skill > p["high_skill"] else p["fumble_min"]
    if roll >= fumble_min:
        return FUMBLE
    if roll >= p["automatic_failure_min"]:
        return FAILURE
    if roll <= skill or roll <= p["automatic_success_max"]:
        return CRITICAL if roll <= ceil_div(skill, p["critical_divisor"]) else SUCCESS
    return FAILURE


def _tier_sampler() -> Callable:
    from ..percentile.rolls import tier_sampler
    return partial(tier_sampler, skill=TIER_SKILL, rules=resolve(None))


def python_tiers(n: int, rnd: random.Random, skill: int = TIER_SKILL,
                 rules: Rules | None = None) -> list[int]:
    """Counts of fumble, failure, success, critical over ``n`` plain-Python d100 rolls (the tier
    of each face found once with :func:`python_tier`; the faces drawn and counted two d100s a
    draw by :func:`balance.bench.python_face_counts`, as the kernel draws them)."""
    sec = section(rules)
    p, die = sec["roll"], sec["die"]
    tier = [python_tier(face, skill, p) for face in range(1, die + 1)]
    counts = [0, 0, 0, 0]
    for face, count in enumerate(python_face_counts(die, n, rnd)):
        counts[tier[face]] += count
    return counts


# --- duels (percentile rules, combat) ----------------------------------------------------------
def _spec():
    from ..percentile.duels import duel_spec
    from ..percentile.fighters import combatant
    return duel_spec(combatant(DUEL_SKILLS[0]), combatant(DUEL_SKILLS[1]))


def _duel_sampler() -> Callable:
    from ..percentile.duels import duel_sampler
    return partial(duel_sampler, spec=_spec())


def _randint(rnd: random.Random) -> Callable[[int, int], int]:
    """``randint(a, b)`` from ``rnd.random`` (biased by under ``(b - a + 1) * 2**-53``; several
    times faster than ``random.Random.randint``, which goes through ``randrange``)."""
    draw = rnd.random
    return lambda a, b: a + int(draw() * (b - a + 1))


def _roller(expr: str, rnd: random.Random) -> Callable[[], int]:
    """A plain-Python roll of a dice expression: every die from ``rnd.random``."""
    d = dice.parse(expr)
    terms = [(sign, faces) for sign, count, faces in d.terms for _ in range(count)]
    constant = d.constant
    draw = rnd.random
    return lambda: constant + sum(sign * (1 + int(draw() * faces)) for sign, faces in terms)


def _dice_in(expr: str) -> int:
    return sum(count for _, count, _ in dice.parse(expr).terms)


def _maximised_roller(f, bonus: str, rnd: random.Random) -> Callable[[], int]:
    """Weapon dice at their maximum + the damage modifier rolled (the whole expression's
    maximum for a fighter built without ``weapon_dice``)."""
    if not f.weapon_dice:
        top = dice.parse(f.damage).max
        return lambda: top
    top, roll = dice.parse(f.weapon_dice).max, _roller(bonus, rnd)
    return lambda: top + roll()


class _Side:
    """One combatant's constants, as plain Python values."""

    def __init__(self, f, rnd: random.Random):
        self.style, self.evade, self.endurance = f.combat_style, f.evade, f.endurance
        self.knock, self.ap, self.init, self.siz = (f.knockback_skill, f.action_points,
                                                    f.initiative_bonus, f.siz)
        self.weapon_size, self.shield_size = f.weapon_size, f.shield_size
        self.parry = f.combat_style >= f.evade
        self.armour, self.hp_max = list(f.armour), list(f.hit_points)
        self.damage = _roller(f.damage, rnd)
        charge_bonus = f.charge_bonus or f.damage_bonus
        self.charge_damage = _roller(f"{f.weapon_dice}{charge_bonus}", rnd) \
            if f.weapon_dice and f.charge_bonus else self.damage
        self.maximised = _maximised_roller(f, f.damage_bonus, rnd)
        self.charge_maximised = _maximised_roller(f, charge_bonus, rnd)


def _requirement_met(row, role: str, own: int, attack: int, hit: bool, parried: bool,
                     evaded: bool, prone: bool) -> bool:
    """The percentile rules' special effects as read in ``[percentile.special_effects]``: chooser
    and requirement."""
    if row["chooser"] not in ("either", role):
        return False
    defender = role == "defender"
    req = row["requires"]
    if req == "any":
        return True
    if req == "hit":
        return hit
    if req == "critical":
        return own == CRITICAL and (defender or hit)
    if req == "parried":
        return defender and parried
    if req == "evaded":
        return defender and evaded
    if req == "defended":
        return defender and (parried or evaded)
    if req == "attack_failed":
        return defender and attack < SUCCESS
    return prone                                     # "prone"


def _choices(pol, won: int, role: str, own: int, other: int, hit: bool, parried: bool,
             evaded: bool, prone: bool, opp_prone: bool, charging: bool, rows, rules) -> list:
    """The effect keys a side spends: its list policy walked in order of preference."""
    if won <= 0:
        return []
    if not hasattr(pol, "attacker"):             # a function policy: its own checked answer
        from ..percentile.effects import situation, spend_effects
        names = ("fumble", "failure", "success", "critical")
        sit = situation(role, names[own], names[other], hit=hit, parried=parried,
                        evaded=evaded, prone=prone, opponent_prone=opp_prone,
                        charging=charging)
        return list(spend_effects(won, sit, pol, rules))
    prefs = pol.attacker if role == "attacker" else pol.defender
    attack = own if role == "attacker" else other
    taken: list = []
    while len(taken) < won:
        before = len(taken)
        for key in prefs:
            row = rows[key]
            if len(taken) < won and (row["stacks"] or key not in taken) and _requirement_met(
                    row, role, own, attack, hit, parried, evaded, prone):
                taken.append(key)
        if len(taken) == before:
            break
    return taken


def python_duels(n: int, rnd: random.Random, spec=None) -> dict[str, int]:
    """``n`` duels of ``spec`` (default: the benchmarked one) in a plain Python loop.

    Same rules and stated policies as :func:`balance.percentile.duel_sampler` (initiative once
    per duel, a coin on ties; cycles of turns in initiative order while Action Points last; a
    defence whenever the defender has an A.P. and is not stunned; stun, prone, crippled limbs;
    the exchange of :func:`balance.percentile.exchange`). Returns first_wins, second_wins,
    timeouts, rounds_sum, ``kinds`` (how the loser went out: counts of death,
    unconsciousness, incapacitation), and sums and sums of squares over duels of exchanges, serious
    wounds and knockbacks (``exchanges``, ``exchanges_sumsq``, ...).
    """
    spec = _spec() if spec is None else spec
    rules = spec.rules
    sec = section(rules)
    p, die, combat, duel = sec["roll"], sec["die"], sec["combat"], sec["duel"]
    values = [row["value"] for row in sec["tiers"]["table"]]
    must_succeed = sec["contest"]["winner_must_succeed"]
    max_effects, skill_cap = sec["contest"]["max_effects"], sec["contest"]["skill_cap"]
    rows = sec["hit_locations"]["table"]
    lows = [row["low"] for row in rows]
    vital = [row["vital"] for row in rows]
    legs = [row["hp"] == "leg" for row in rows]
    keys = [row["key"] for row in rows]
    weapon_arm, shield_arm = keys.index(duel["weapon_arm"]), keys.index(duel["shield_arm"])
    prone_grade = find_grade(duel["prone_grade"], rules)
    blocks = list(combat["sizes"]["parry_block"])
    stand_turns, min_damage = duel["stand_up_turns"], duel["minimum_damage"]
    every_hit = combat["wound_every_hit"]           # percentile rules, combat (False: first crossing)
    cost = combat["ap_per_action"]                  # A.P. per turn or defence
    location, stun_roll = _roller(sec["hit_locations"]["roll"], rnd), _roller(combat["stun_roll"],
                                                                              rnd)
    initiative = _roller(combat["initiative_roll"], rnd)
    sides = (_Side(spec.first, rnd), _Side(spec.second, rnd))
    randint = _randint(rnd)
    L = len(rows)
    effect_rows = {row["key"]: row for row in sec["special_effects"]["table"]}
    effect_keys = list(effect_rows)
    mechanic = {k: row["effect"] for k, row in effect_rows.items()}
    charge_rule = combat["charge"]
    grade_names = [row["en"] for row in sec["grades"]["table"]]
    charge_grade = find_grade(grade_names[min(grade_names.index(sec["grades"]["default"])
                                              + charge_rule["grade_steps"],
                                              len(grade_names) - 1)], rules)
    top_size = len(combat["sizes"]["table"]) - 1
    bonus_effects = sec["surprise"]["bonus_effects"]
    surprised = spec.surprised
    flat_footed = sec["surprise"]["flat_footed"]

    def tier(skill: int, roll: int) -> int:
        return python_tier(roll, skill, p)

    def graded(skill: int, prone: bool, charging: bool = False) -> int:
        grades = [g for g, on in ((prone_grade, prone), (charge_grade, charging)) if on]
        if not grades:
            return skill
        worst = min(grades, key=lambda g: g.numerator / g.denominator)
        return worst.apply(skill)

    def effects_won(t1: int, t2: int) -> int:
        diff = values[t1] - values[t2]
        if must_succeed and ((diff > 0 and t1 < SUCCESS) or (diff < 0 and t2 < SUCCESS)):
            diff = 0
        return max(-max_effects, min(max_effects, diff))

    out: dict[str, Any] = dict.fromkeys(
        ["first_wins", "second_wins", "timeouts", "rounds_sum", "exchanges", "exchanges_sumsq",
         "serious_wounds", "serious_wounds_sumsq", "knockbacks", "knockbacks_sumsq"], 0)
    out["kinds"] = [0, 0, 0]
    out["spent"] = [[0] * len(effect_keys), [0] * len(effect_keys)]
    for _ in range(n):
        exchanges = serious_wounds = knockbacks = 0
        hp = [list(s.hp_max) for s in sides]
        stun, prone, lame = [0, 0], [False, False], [False, False]
        shield = [s.shield_size >= 0 for s in sides]
        lost = [0, 0]
        # flat-footed until its turn (when the rules say so)
        ready = [surprised != 0 or not flat_footed, surprised != 1 or not flat_footed]
        struck = [surprised != 0, surprised != 1]           # the first hit's bonus effect
        charging = list(spec.charging)
        init = [initiative() + s.init + (combat["surprise"] if surprised == i else 0)
                for i, s in enumerate(sides)]
        first = 0 if init[0] > init[1] else 1 if init[1] > init[0] else randint(0, 1)
        winner, end = 2, spec.max_rounds
        for rnd_no in range(1, spec.max_rounds + 1):
            ap = [sides[0].ap, sides[1].ap]
            while winner == 2 and (ap[0] >= cost or ap[1] >= cost):
                for a in (first, 1 - first):
                    if winner != 2 or ap[a] < cost:
                        continue
                    ap[a] -= cost                           # the turn costs an action
                    ready[a] = True
                    stunned = stun[a] > 0
                    if stunned:
                        stun[a] -= 1
                    losing = not stunned and lost[a] > 0    # a lost turn (special effect)
                    if losing:
                        lost[a] -= 1
                    if prone[a] and not lame[a]:
                        if stand_turns == 0:                # standing up is free
                            prone[a] = False
                        elif not stunned and not losing:    # the turn is spent rising
                            prone[a] = False
                            continue
                    if stunned or losing:
                        continue
                    # --- one exchange: a attacks d
                    d = 1 - a
                    att, dfn = sides[a], sides[d]
                    exchanges += 1
                    defends = ap[d] >= cost and stun[d] == 0 and ready[d]
                    if defends:
                        ap[d] -= cost
                    charge = charging[a]
                    charging[a] = False
                    a_skill = graded(att.style, prone[a], charge)
                    d_skill = graded(dfn.style, prone[d]) if dfn.parry else dfn.evade
                    if defends:
                        excess = max(max(a_skill, d_skill) - skill_cap, 0)
                        a_skill, d_skill = max(a_skill - excess, 0), max(d_skill - excess, 0)
                    a_roll = randint(1, die)
                    a_tier = tier(a_skill, a_roll)
                    d_tier = tier(d_skill, randint(1, die)) if defends else FAILURE
                    effects = effects_won(a_tier, d_tier)
                    defended = defends and d_tier >= SUCCESS
                    hit = a_tier >= SUCCESS and not (defended and not dfn.parry)
                    bonus = bonus_effects if hit and not struck[d] else 0
                    if hit:
                        struck[d] = True
                    mine = _choices(spec.policies[a], max(effects, 0) + bonus, "attacker",
                                    a_tier, d_tier, hit, False, False, prone[a], prone[d],
                                    charge, effect_rows, rules)
                    theirs = _choices(spec.policies[d], max(-effects, 0), "defender", d_tier,
                                      a_tier, hit, defended and dfn.parry,
                                      defended and not dfn.parry, prone[d], prone[a], False,
                                      effect_rows, rules)
                    for side, keys_ in ((a, mine), (d, theirs)):
                        for key in keys_:
                            out["spent"][side][effect_keys.index(key)] += 1
                    uses = {mechanic[k] for k in mine}
                    outcome = 0
                    if hit:     # the blow lands: location, damage, wounds, knockback
                        hpd = hp[d]
                        if "choose_location" in uses:
                            scores = [2 * (hpd[i] + dfn.armour[i]) - vital[i]
                                      for i in range(L)]
                            loc = scores.index(min(scores))
                        else:
                            roll = location()
                            loc = max(i for i in range(L) if lows[i] <= roll)
                        roll_damage = att.charge_damage if charge else att.damage
                        raw = max(roll_damage(), min_damage)
                        if "impale" in uses:                # rolled twice, the higher
                            raw = max(raw, max(roll_damage(), min_damage))
                        if "maximise_damage" in uses:       # weapon dice at the maximum
                            raw = max((att.charge_maximised if charge else att.maximised)(),
                                      min_damage)
                        blocked = 0
                        if defended:                        # a successful parry, by size
                            parry_size = (max(dfn.shield_size, dfn.weapon_size) if shield[d]
                                          else dfn.weapon_size)
                            size = min(att.weapon_size + (charge_rule["size_steps"]
                                                          if charge else 0), top_size)
                            smaller = max(size - parry_size, 0)
                            if smaller < len(blocks):
                                blocked = math.ceil(raw * blocks[smaller] - 1e-9)
                        bypass = "bypass_armour" in uses
                        damage = max(raw - blocked - (0 if bypass else dfn.armour[loc]), 0)
                        before = hpd[loc]
                        after = hpd[loc] = before - damage
                        top = dfn.hp_max[loc]
                        if every_hit:                       # after every damaging hit
                            major = damage > 0 and after <= -top
                            serious = damage > 0 and not major and after <= 0
                        else:                               # the first crossing only
                            major = after <= -top < before
                            serious = not major and after <= 0 < before
                        if major or serious:
                            serious_wounds += 1
                            e_roll = randint(1, die)
                            e_tier = tier(dfn.endurance, e_roll)
                            passed = e_tier >= SUCCESS and (e_tier > a_tier or (
                                e_tier == a_tier and e_roll > a_roll))
                            if major:
                                outcome = 3 if passed else 1 if vital[loc] else 2
                            else:
                                stun[d] = max(stun[d], stun_roll())
                                if not passed:
                                    if vital[loc]:
                                        outcome = 2
                                    elif loc == weapon_arm:
                                        outcome = 3
                                    elif loc == shield_arm:
                                        shield[d] = False
                                    elif legs[loc]:
                                        lame[d] = prone[d] = True
                        if "stun" in uses and damage > 0:   # stun location: one turn
                            stun[d] = max(stun[d], 1)
                        if raw > dfn.siz:                   # knocked back ...
                            knockbacks += 1
                            if tier(dfn.knock, randint(1, die)) < SUCCESS:
                                prone[d] = True             # ... and down
                    # effects after the blow (percentile rules, special effects)
                    for chooser, keys_ in ((a, mine), (d, theirs)):
                        other_side = 1 - chooser
                        for key in keys_:
                            m = mechanic[key]
                            if m == "prone":
                                prone[other_side] = True
                            elif m == "lose_turn":
                                lost[other_side] += 1
                            elif m == "destroy_shield":
                                shield[other_side] = False
                            elif m == "stand" and not lame[chooser]:
                                prone[chooser] = False
                    if outcome:
                        winner = a
                        out["kinds"][outcome - 1] += 1
            if winner != 2:
                end = rnd_no
                break
        out["rounds_sum"] += end
        for key, value in (("exchanges", exchanges), ("serious_wounds", serious_wounds),
                           ("knockbacks", knockbacks)):
            out[key] += value
            out[f"{key}_sumsq"] += value * value
        out[("first_wins", "second_wins", "timeouts")[winner]] += 1
    return out


@lru_cache(maxsize=1)
def duel_dice() -> int:
    """Mean dice rolled per benchmarked duel (rounded), from the vectorised kernel's counters.

    Per duel: two initiative dice and a tie-breaking coin; per exchange: attack, defence,
    Endurance and knockback d100s, the location d20 and the weapon's damage dice (every die an
    exchange can need; the kernel draws the location, damage, Endurance and knockback dice only
    for the exchanges that need them); per serious or major wound, the stun die. Measured on
    20,000 duels (seed 0): about 34 with the bundled rules (39 before both sides spent
    special effects: shorter duels).
    """
    import numpy as np

    from ..percentile.duels import duel_sampler
    spec, n = _spec(), 20_000
    out = duel_sampler(n, np.random.default_rng(0), spec)
    per_exchange = 4 + _dice_in(section(spec.rules)["hit_locations"]["roll"]) \
        + _dice_in(spec.first.damage)
    total = 3 * n + int(out["exchanges"]) * per_exchange + int(out["serious_wounds"].sum())
    return round(total / n)


def _python_duels(n: int, rnd: random.Random) -> dict[str, int]:
    return python_duels(n, rnd)


TIERS_KERNEL = register(Kernel(
    "d100-tiers", _tier_sampler, python_tiers,
    f"1d100 against skill {TIER_SKILL}: fumble, failure, success, critical "
    "(percentile rules, skill roll)"))
DUEL_KERNEL = register(Kernel(
    "percentile-duel", _duel_sampler, _python_duels,
    f"duel {DUEL_SKILLS[0]} % vs {DUEL_SKILLS[1]} %: average humans, broadswords, no armour "
    "(percentile rules, combat)", unit="duel", trials=1 << 21, python_trials=60_000,
    target_rate=1e5, x_floor_target=4.0))  # issue 16: within 4x of its honest floor
