"""The duel simulator's inner loop (percentile rules, combat), built for speed; rules as in :mod:`.duels`.

Duels are split by who won the initiative, so that in each group the side acting in a slot of
the turn cycle is the same for every duel and every per-side number is a scalar. State is held
per group in compact arrays (side first, hit points ``(2, locations, duels)``) that drop
finished duels between rounds. An exchange draws the attack and defence d100s as one index
into a table of tier pairs built with :func:`balance.percentile.exchange` itself (one table per
grade combination: attacker prone, defender prone, defence or none); the rest of the exchange
(location, damage, wounds, Endurance, knockback, stun) runs only on the duels it concerns, with
its dice drawn for them alone.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from .. import dice
from ._common import FAILURE, SUCCESS, TIERS, section
from ._common import grade as find_grade
from .combat import harder_grade
from .contests import effects_won
from .effects import HIT_MECHANICS, MECHANICS, situation, spend_effects
from .exchange import DEATH, INCAPACITATION, NONE, UNCONSCIOUS, exchange
from .rolls import _skill_cap, tier_lookup

_TABLE_LIMIT = 1 << 20
_SMALL = 1 << 20        # dice outcomes, armour, hit points and SIZ below this are int32
_PAIR_DIE = 256         # up to this die, one table of every (attack, defence) roll pair
_COMBOS = 16            # charging * 8 + attacker prone * 4 + defender prone * 2 + defends
_SITUATIONS = 2 * _COMBOS * 16   # (surprise bonus * 16 + combo) * 16 + tier-pair code
#: post-blow mechanics by (chooser, target): 0 attacker, 1 defender
_POST = (("prone", 1), ("lose_turn", 1), ("destroy_shield", 1), ("stand", 0))


def _narrow(values) -> np.ndarray:
    """``values`` as int32 when they are small (the blow's arithmetic then stays in one
    dtype), else int64: products such as hp * 2 * L must not wrap around."""
    out = np.asarray(values, dtype=np.int64)
    return out.astype(np.int32) if out.size == 0 or np.abs(out).max() < _SMALL else out


class _Roll:
    """Exact sampler of one dice expression (a table of equally likely outcomes when small)."""

    def __init__(self, expr: str, transform=None):
        self.parsed = dice.parse(expr)
        self.parsed.terms  # noqa: B018 - plain dice only: a modified term is refused in one line
        table = self.parsed.equal_outcomes(_TABLE_LIMIT)
        self.transform = transform
        if table is not None and transform is not None:
            table = transform(table)
        self.table = None if table is None else _narrow(table)

    def __call__(self, size: int, gen: np.random.Generator) -> np.ndarray:
        if self.table is not None:
            return self.table.take(gen.integers(0, self.table.size, size=size, dtype=np.int32))
        out = self.parsed.sample(size, gen)
        return out if self.transform is None else self.transform(out)


def _worst(skill: int, grades: list) -> int:
    """The skill at the worst of ``grades`` (only the worst grade applies: percentile
    rules, difficulty grades)."""
    if not grades:
        return skill
    return min(grades, key=lambda g: Fraction(g.numerator, g.denominator)).apply(skill)


@dataclass
class Tables:
    """Everything the loop needs for one spec, side first (index 0 first fighter, 1 second)."""

    die: int
    cost: int
    ap: tuple
    # per attacker side: int8 codes of the (attack tier, defence tier) pairs, numbered so that
    # the blows that land (not evaded) are the codes >= hit_from; and tables by code
    pair: tuple | None   # (8 * die * die,) by (combo * die + attack - 1) * die + defence - 1
    a_rows: tuple        # (8 * die,) attack tier by combo * die + attack - 1 (large dice)
    d_rows: tuple        # (8 * die,) defence tier by combo * die + defence - 1
    renumber: tuple      # tier code a_tier * 4 + d_tier -> code
    hit_from: tuple
    a_tier: tuple        # attack tier
    parried: tuple       # (S,) a successful parry, by situation
    # per attacker side, by situation (bonus * 16 + combo) * 16 + code (see _SITUATIONS):
    # the effects won by each side and spent by their policies (percentile rules, special effects)
    eff_pos: tuple       # (S,) effects won by the attacker (surprise bonus included)
    eff_neg: tuple       # (S,) effects won by the defender
    spent_att: tuple     # (S, E) effects of the table spent by the attacker
    spent_def: tuple     # (S, E) ... by the defender
    hit_spend: tuple     # {mechanic: (S,) bool} blow mechanics the attacker takes
    post: tuple          # {(mechanic, target): (S,) bool} after the blow; target 0 attacker
    post_any: tuple      # (S,) bool: some post mechanic
    surprised: int       # side surprised (-1 none)
    flat_footed: bool    # surprise.flat_footed: the surprised side cannot defend before its turn
    charges: tuple       # [side] charges with its first attack
    damage: tuple        # [side] _Roll of raw damage (never below duel.minimum_damage)
    charge_damage: tuple  # [side] _Roll of a charge's raw damage
    weapon_max: tuple    # [side] (weapon max, _Roll of the damage modifier) or None, normal
    charge_max: tuple    # ... for a charge
    floor: int           # duel.minimum_damage
    location: _Roll      # location index
    stun: _Roll
    initiative: _Roll
    frac: tuple          # [attacker side][shield up] fraction blocked by a successful parry
    frac_charge: tuple   # ... against a charge (weapon size + 1)
    armour: np.ndarray   # (2, L)
    any_armour: tuple
    hp_max: np.ndarray   # (2, L)
    # (2, L) (2 * armour - vital) * L + location: a chosen blow goes to the lowest
    # hp * 2 * L + key_offset (see exchange)
    key_offset: np.ndarray
    siz: np.ndarray
    knock_fails: np.ndarray  # (2, die + 1) bool: a knockback roll that fails
    has_shield: np.ndarray
    stand_turns: int
    every_hit: bool      # combat.wound_every_hit: every damaging hit at <= 0 HP is a wound
    # per attacker side, by combo * die + attack - 1: how many of the defender's Endurance
    # rolls fail to win the opposed roll against that attack roll
    endurance_fails: tuple
    # by (major * 2 + failed Endurance) * L + location: the outcome, and
    # whether the blow cripples the shield arm / a leg (serious wound, failed, not vital)
    outcome: np.ndarray
    drops_shield: np.ndarray
    lames: np.ndarray


@lru_cache(maxsize=32)
def tables(spec) -> Tables:
    """Lookup tables of a :class:`~balance.percentile.duels.DuelSpec` (cached)."""
    rules = spec.rules
    sec = section(rules)
    f = (spec.first, spec.second)
    die, combat, duel = sec["die"], sec["combat"], sec["duel"]
    rows = sec["hit_locations"]["table"]
    keys = [row["key"] for row in rows]
    vital = np.array([row["vital"] for row in rows])
    prone = find_grade(duel["prone_grade"], rules, "duel.prone_grade")
    charge_grade = find_grade(harder_grade(None, combat["charge"]["grade_steps"], rules), rules)
    parry = [x.combat_style >= x.evade for x in f]
    rolls = np.arange(1, die + 1)
    L = len(rows)
    dummy = {"endurance": rolls, "knockback": rolls, "location": np.ones_like(rolls),
             "damage": np.zeros_like(rolls)}
    a_rows, d_rows, fails = [], [], []
    for a in (0, 1):
        d = 1 - a
        a_row, d_row = [], []
        for combo in range(_COMBOS):
            # attack and defence tiers of every face, per grade combination: the attack tier
            # depends on the attack roll only, the defence tier on the defence roll only
            charging, a_prone = bool(combo & 8), bool(combo & 4)
            d_prone, defends = bool(combo & 2), bool(combo & 1)
            d_skill = f[d].combat_style if parry[d] else f[d].evade
            one = lambda v: np.full(die, v)  # noqa: E731
            grades = [g for g, on in ((prone, a_prone), (charge_grade, charging)) if on]
            attacker = {"skill": one(_worst(f[a].combat_style, grades)), "weapon_size": one(0)}
            defender = {"defends": one(defends), "parry": one(parry[d]),
                        "skill": one(_worst(d_skill, [prone] if d_prone and parry[d] else [])),
                        "parry_size": one(0), "armour": np.zeros((die, L), dtype=np.int64),
                        "hp": np.ones((die, L), dtype=np.int64),
                        "hp_max": np.ones((die, L), dtype=np.int64), "siz": one(0),
                        "endurance": one(0), "knockback_skill": one(0)}
            out = exchange(attacker, defender, {"attack": rolls, "defence": rolls, **dummy},
                           rules)
            a_row.append(out["attack_tier"])
            d_row.append(out["defence_tier"])
        a_rows.append(np.concatenate(a_row))
        d_rows.append(np.concatenate(d_row))
        fails.append(_endurance_fails(a_rows[-1], die, f[d].endurance, rules))
    code = np.arange(16)
    a_tier, d_tier = code // 4, code % 4
    eff = effects_won(a_tier, d_tier, rules)
    landed, defended = a_tier >= SUCCESS, d_tier >= SUCCESS
    pair, renumbered, orders, hit_from = [], [], [], []
    for a in (0, 1):
        hit = landed & ~(defended & ~parry[1 - a])
        order = np.argsort(hit, kind="stable")           # new code -> old code
        renumber = np.empty(16, dtype=np.int8)
        renumber[order] = np.arange(16)
        renumbered.append(renumber)
        orders.append(order)
        if die <= _PAIR_DIE:    # index (combo * die + attack - 1) * die + defence - 1
            a_grid = a_rows[a].reshape(_COMBOS, die, 1)
            d_grid = d_rows[a].reshape(_COMBOS, 1, die)
            pair.append(renumber[(a_grid * 4 + d_grid).ravel()])
        hit_from.append(int(16 - hit.sum()))
    spending = _spending(spec, parry, orders, eff, rules)
    blocks = list(combat["sizes"]["parry_block"])
    top_size = len(combat["sizes"]["table"]) - 1

    def fraction(a: int, shield_up: bool, extra: int = 0) -> float:
        d = f[1 - a]
        size = max(d.shield_size, d.weapon_size) if shield_up else d.weapon_size
        smaller = max(min(f[a].weapon_size + extra, top_size) - size, 0)
        return float(blocks[smaller]) if smaller < len(blocks) else 0.0

    floor = duel["minimum_damage"]
    floor_of = lambda v: np.maximum(v, floor)  # noqa: E731

    def maximised(x, bonus: str):
        if not x.weapon_dice:           # a hand-built fighter: the whole expression
            return dice.parse(x.damage).max, _Roll("0")
        return dice.parse(x.weapon_dice).max, _Roll(bonus)

    charge_steps = combat["charge"]["size_steps"]
    loc_lows = np.array([row["low"] for row in rows])
    return Tables(
        die=die, cost=combat["ap_per_action"], ap=tuple(x.action_points for x in f),
        pair=tuple(pair) if pair else None, a_rows=tuple(a_rows), d_rows=tuple(d_rows),
        renumber=tuple(renumbered), hit_from=tuple(hit_from),
        a_tier=tuple(a_tier[o] for o in orders),
        parried=tuple(np.tile((defended & parry[1 - a])[orders[a]], _SITUATIONS // 16)
                      for a in (0, 1)),
        **spending,
        surprised=spec.surprised, flat_footed=bool(sec["surprise"]["flat_footed"]),
        charges=tuple(spec.charging),
        damage=tuple(_Roll(x.damage, floor_of) for x in f),
        charge_damage=tuple(_Roll(_charge_expr(x), floor_of) for x in f),
        weapon_max=tuple(maximised(x, x.damage_bonus) for x in f),
        charge_max=tuple(maximised(x, x.charge_bonus or x.damage_bonus) for x in f),
        floor=floor,
        location=_Roll(sec["hit_locations"]["roll"],
                       lambda v: np.searchsorted(loc_lows, v, side="right") - 1),
        stun=_Roll(combat["stun_roll"]), initiative=_Roll(combat["initiative_roll"]),
        frac=tuple((fraction(a, False), fraction(a, True)) for a in (0, 1)),
        frac_charge=tuple((fraction(a, False, charge_steps), fraction(a, True, charge_steps))
                          for a in (0, 1)),
        armour=_narrow([x.armour for x in f]), any_armour=tuple(any(x.armour) for x in f),
        hp_max=_narrow([x.hit_points for x in f]),
        key_offset=_narrow((2 * np.array([x.armour for x in f]) - vital) * L + np.arange(L)),
        siz=_narrow([x.siz for x in f]),
        knock_fails=np.stack([np.concatenate([[False], tier_lookup(rules)[
            min(x.knockback_skill, _skill_cap(rules)), 1:] < SUCCESS]) for x in f]),
        has_shield=np.array([x.shield_size >= 0 for x in f]),
        stand_turns=duel["stand_up_turns"], every_hit=bool(combat["wound_every_hit"]),
        endurance_fails=tuple(fails), **_wound_tables(rules, vital, keys))


def _charge_expr(x) -> str:
    """Raw damage of a charge: the weapon's dice + the charge's damage modifier."""
    if not x.weapon_dice or not x.charge_bonus:
        return x.damage
    return str(dice.parse(f"{x.weapon_dice}{x.charge_bonus}"))


def _spending(spec, parry: list, orders: list, eff: np.ndarray, rules) -> dict:
    """The effects each side wins and spends in every situation (percentile rules, special effects), by
    its policy:
    tables over (surprise bonus * 16 + combo) * 16 + code, per attacker side."""
    sec = section(rules)
    rows = sec["special_effects"]["table"]
    keys = [r["key"] for r in rows]
    mech = np.array([MECHANICS.index(r["effect"]) for r in rows])
    bonus_effects = sec["surprise"]["bonus_effects"]
    out: dict[str, list] = {k: [] for k in ("eff_pos", "eff_neg", "spent_att", "spent_def",
                                           "hit_spend", "post", "post_any")}
    for a in (0, 1):
        d = 1 - a
        pos = np.zeros(_SITUATIONS, dtype=np.int64)
        neg = np.zeros(_SITUATIONS, dtype=np.int64)
        s_att = np.zeros((_SITUATIONS, len(keys)), dtype=np.int64)
        s_def = np.zeros((_SITUATIONS, len(keys)), dtype=np.int64)
        memo: dict = {}
        for s in range(_SITUATIONS):
            bonus, combo, new = s // (_COMBOS * 16), (s // 16) % _COMBOS, s % 16
            old = int(orders[a][new])
            at, dt = old // 4, old % 4
            if not combo & 1 and dt != FAILURE:
                continue                    # no defence: the defence tier is a failure
            defended = dt >= SUCCESS
            parried, evaded = defended and parry[d], defended and not parry[d]
            hit = at >= SUCCESS and not evaded
            e = int(eff[old])
            pos[s] = max(e, 0) + (bonus_effects if bonus and hit else 0)
            neg[s] = max(-e, 0)
            for who, won, role, own, other, prone, opp in (
                    (a, pos[s], "attacker", at, dt, combo & 4, combo & 2),
                    (d, neg[s], "defender", dt, at, combo & 2, combo & 4)):
                if won == 0:
                    continue
                key = (who, int(won), role, own, other, hit, parried, evaded, bool(prone),
                       bool(opp), bool(combo & 8))
                if key not in memo:
                    sit = situation(role, TIERS[own], TIERS[other], hit=hit, parried=parried,
                                    evaded=evaded, prone=bool(prone), opponent_prone=bool(opp),
                                    charging=bool(combo & 8) and role == "attacker")
                    memo[key] = spend_effects(int(won), sit, spec.policies[who], rules)
                target = s_att if role == "attacker" else s_def
                for k in memo[key]:
                    target[s, keys.index(k)] += 1
        uses = lambda table, m: (table[:, mech == MECHANICS.index(m)].sum(axis=1) > 0)  # noqa
        hit_spend = {m: uses(s_att, m) for m in HIT_MECHANICS}
        post = {}
        for m, on in _POST:
            # the attacker's choice acts on the defender (target 1) and the reverse; "stand"
            # acts on the chooser itself
            post[(m, on)] = uses(s_att, m)
            post[(m, 1 - on)] = uses(s_def, m)
        out["eff_pos"].append(pos)
        out["eff_neg"].append(neg)
        out["spent_att"].append(s_att)
        out["spent_def"].append(s_def)
        out["hit_spend"].append(hit_spend)
        out["post_any"].append(np.any(np.stack(list(post.values())), axis=0))
        # only the mechanics the policies can spend: the loop after each blow skips the rest
        out["post"].append({key: on for key, on in post.items() if on.any()})
    return {k: tuple(v) for k, v in out.items()}


def _endurance_fails(a_tier: np.ndarray, die: int, endurance: int, rules) -> np.ndarray:
    """For each attack (tier ``a_tier[i]``, roll ``i % die + 1``): how many Endurance faces
    fail to win the opposed roll against it (percentile rules, opposed rolls: a success of a higher tier wins; the
    same tier, the higher roll; counted per tier, without a die x die grid)."""
    e_tier = tier_lookup(rules)[min(endurance, _skill_cap(rules)), 1:]
    per_tier = np.bincount(e_tier, minlength=4)
    higher = np.array([per_tier[max(t + 1, SUCCESS):].sum() for t in range(4)])
    same = e_tier[None, :] == np.arange(4)[:, None]              # (4, die)
    above = np.zeros((4, die + 1), dtype=np.int64)               # faces > r of each tier
    above[:, :-1] = same[:, ::-1].cumsum(axis=1)[:, ::-1]
    a_roll = np.arange(a_tier.size) % die + 1
    won = higher[a_tier] + np.where(a_tier >= SUCCESS, above[a_tier, a_roll], 0)
    return (die - won).astype(np.int32)


def _wound_tables(rules, vital: np.ndarray, keys: list) -> dict:
    """Outcome of a serious or major wound by (major * 2 + failed) * L + location (see
    :func:`balance.percentile.exchange`: major -> incapacitated, failed Endurance -> dead
    (vital) or unconscious; serious + failed -> unconscious (vital), incapacitated (weapon
    arm) or a crippled limb)."""
    duel = section(rules)["duel"]
    L = vital.size
    loc = np.arange(L)
    weapon_arm = loc == keys.index(duel["weapon_arm"])
    rows = section(rules)["hit_locations"]["table"]
    legs = np.array([row["hp"] == "leg" for row in rows])
    serious_failed = np.where(vital, UNCONSCIOUS, np.where(weapon_arm, INCAPACITATION, NONE))
    outcome = np.concatenate([np.full(L, NONE), serious_failed, np.full(L, INCAPACITATION),
                              np.where(vital, DEATH, UNCONSCIOUS)])
    crippled = np.concatenate([np.zeros(L, bool), ~vital, np.zeros(2 * L, bool)])
    return {"outcome": outcome,
            "drops_shield": crippled & np.tile(loc == keys.index(duel["shield_arm"]), 4),
            "lames": crippled & np.tile(legs, 4)}


class Results:
    """Counts of a whole sampler call, added up group by group (every output is a count:
    no per-duel array is kept)."""

    def __init__(self, n: int, rounds: int):
        # winner * 4 + how the loser went out (winner 2: a timeout)
        self.outcomes = np.zeros(12, dtype=np.int64)
        self.rounds = np.zeros(rounds + 1, dtype=np.int64)          # the round it ended
        self.first_serious = np.zeros(rounds + 1, dtype=np.int64)   # 0: none
        # exchanges by attacker side and situation: the effects won and spent are linear in
        # them, so they are counted once at the end rather than after every exchange
        self.situations = np.zeros((2, _SITUATIONS), dtype=np.int64)
        self.tables: Tables | None = None     # set by the first group run
        self.serious = np.zeros(2, dtype=np.int64)
        self.exchanges = 0
        self.knockbacks = 0

    @property
    def effects(self) -> np.ndarray:
        """(2,) special effects won by each side."""
        won = np.zeros(2, dtype=np.int64)
        t = self.tables
        if t is not None:
            for a in (0, 1):
                won[a] += self.situations[a] @ t.eff_pos[a]
                won[1 - a] += self.situations[a] @ t.eff_neg[a]
        return won

    @property
    def spent(self) -> np.ndarray | None:
        """(2, E) how often each side spent each effect of the table (None: no exchange)."""
        t = self.tables
        if t is None or self.exchanges == 0:
            return None
        out = np.zeros((2, t.spent_att[0].shape[1]), dtype=np.int64)
        for a in (0, 1):
            out[a] += self.situations[a] @ t.spent_att[a]
            out[1 - a] += self.situations[a] @ t.spent_def[a]
        return out


class Group:
    """State of the live duels of one initiative group (side ``first`` acts first).

    What masks read in every turn is compact (only the live duels, dropped between rounds);
    what only the blows read and write (hit points, the chosen location's key, the shield,
    the first serious wound, how the duel ended) stays where it started, at the duel's
    ``pos``: copying it every round cost more than the extra lookup per blow, and the results
    are added up into :class:`Results` as counts at the end."""

    def __init__(self, ids: np.ndarray, first: int, t: Tables):
        k = ids.size
        self.ids, self.first = ids, first
        self.pos = np.arange(k)
        self.winner = np.full(k, 2, dtype=np.int8)         # 2: not over (a timeout)
        self.kind = np.zeros(k, dtype=np.int8)             # how the loser went out
        self.end = np.zeros(k, dtype=np.int32)             # the round it ended
        self.ap = np.zeros((2, k), dtype=np.int32)
        self.stun = np.zeros((2, k), dtype=np.int32)
        self.prone = np.zeros((2, k), dtype=bool)
        self.lame = np.zeros((2, k), dtype=bool)
        self.shield = np.repeat(t.has_shield[:, None], k, axis=1)
        self.hp = np.repeat(t.hp_max.astype(np.int32)[:, :, None], k, axis=2)
        # per side, the key of the location a chosen blow goes to: min over locations of
        # hp * 2 * L + key_offset (hit points only drop: kept up to date by taking the
        # minimum with the key of each location hit)
        L = t.hp_max.shape[1]
        start = (t.hp_max * (2 * L) + t.key_offset).min(axis=1)
        self.best = np.repeat(start[:, None], k, axis=1)
        self.first_serious = np.zeros(k, dtype=np.int32)
        self.live = np.ones(k, dtype=bool)
        self.lost = np.zeros((2, k), dtype=np.int32)        # turns to lose (still defends)
        self.ready = np.ones((2, k), dtype=bool)            # not flat-footed (surprise)
        self.struck = np.ones((2, k), dtype=bool)           # has taken a hit (surprise bonus)
        if t.surprised >= 0:
            self.ready[t.surprised] = False
            self.struck[t.surprised] = False
        self.charging = np.repeat(np.array(t.charges)[:, None], k, axis=1)

    def compact(self) -> None:
        keep = np.flatnonzero(self.live)
        self.pos = self.pos[keep]
        self.ap = np.empty((2, keep.size), dtype=self.ap.dtype)   # refilled every round
        for name in ("stun", "prone", "lame", "lost", "ready", "struck", "charging"):
            setattr(self, name, np.take(getattr(self, name), keep, axis=-1))
        self.live = np.ones(keep.size, dtype=bool)


def run_group(g: Group, t: Tables, rounds: int, res: Results, gen: np.random.Generator) -> None:
    """All rounds of one initiative group (percentile rules, combat: rounds and turns)."""
    cost = t.cost
    res.tables = t
    for rnd in range(1, rounds + 1):
        if g.pos.size == 0:
            break
        finished = g.live.size - np.count_nonzero(g.live)
        if finished:
            g.compact()
        g.ap[0], g.ap[1] = t.ap
        while True:
            acted = False
            for a in (g.first, 1 - g.first):
                act = g.ap[a] >= cost
                if not act.any():
                    continue
                acted = True
                _turn(g, t, act, a, rnd, res, gen)
            if not acted:
                break
    g.end[g.pos[g.live]] = rounds           # timeouts
    res.outcomes += np.bincount(g.winner * np.int8(4) + g.kind, minlength=12)
    res.rounds += np.bincount(g.end, minlength=rounds + 1)
    res.first_serious += np.bincount(g.first_serious, minlength=rounds + 1)


def _spend(ap: np.ndarray, where: np.ndarray, cost: int) -> None:
    """Take ``cost`` Action Points from the duels ``where`` is set (a product, not
    ``np.subtract(where=)``: a masked ufunc is some 20 times slower)."""
    ap -= where * np.int32(cost)


def _turn(g: Group, t: Tables, act: np.ndarray, a: int, rnd: int, res: Results,
          gen: np.random.Generator) -> None:
    """Turns of side ``a`` in the duels where ``act`` is set: shake off a stun, lose a turn,
    stand up or attack, one action each.

    Worked with masks over the whole group: most of its duels act in a turn, and a pass over a
    bool array costs a fraction of gathering the acting duels' state and writing it back."""
    ap, stun, prone, lame, lost = g.ap[a], g.stun[a], g.prone[a], g.lame[a], g.lost[a]
    _spend(ap, act, t.cost)
    if t.surprised == a:                    # the first turn ends being flat-footed
        g.ready[a] |= act
    go = act.copy()
    stunned = act & (stun > 0)
    if stunned.any():
        stun -= stunned
        go &= ~stunned
    losing = go & (lost > 0)
    if losing.any():                        # a lost turn (special effect): nothing else
        lost -= losing
        go &= ~losing
    if prone.any():
        can_rise = act & prone & ~lame
        if t.stand_turns == 0:              # standing up is free: up, then act
            prone &= ~can_rise
        else:                               # the turn is spent rising (unless stunned)
            rising = go & can_rise
            prone &= ~rising
            go &= ~rising
    if go.any():
        _exchange(g, t, go, a, rnd, res, gen)


def _exchange(g: Group, t: Tables, go: np.ndarray, a: int, rnd: int, res: Results,
              gen: np.random.Generator) -> None:
    """One exchange in the duels where ``go`` is set, whose attacker is side ``a``: the
    grades (masks over the group), then the dice and what follows for the acting duels."""
    d = 1 - a
    ap_d = g.ap[d]
    defends = (ap_d >= t.cost) & (g.stun[d] == 0) & go
    if t.surprised == d and t.flat_footed:  # flat-footed until its first turn
        defends &= g.ready[d]
    _spend(ap_d, defends, t.cost)
    combo = g.prone[a].view(np.int8) * np.int8(4)
    combo |= g.prone[d].view(np.int8) * np.int8(2)
    combo |= defends.view(np.int8)
    if t.charges[a]:                        # the side's first attack is its charge
        combo |= g.charging[a].view(np.int8) * np.int8(8)
        g.charging[a] &= ~go
    idx = go.nonzero()[0]                   # the acting duels, in the group's order
    combo = combo.take(idx)
    m = idx.size
    res.exchanges += m
    die = t.die
    if t.pair is not None:
        u = gen.integers(0, die * die, size=m, dtype=np.int32)
        u += combo.astype(np.int32) * (die * die)
        code = t.pair[a][u]
        u //= die                           # combo * die + attack roll - 1
    else:
        u = gen.integers(0, die, size=(2, m), dtype=np.int32)
        u += combo.astype(np.int32) * die
        code = t.renumber[a][t.a_rows[a][u[0]] * 4 + t.d_rows[a][u[1]]]
        u = u[0]
    s = combo.astype(np.int16) * np.int16(16) + code
    if t.surprised == d:                    # the first hit against it: a bonus effect
        s += (~g.struck[d].take(idx)).view(np.int8).astype(np.int16) * np.int16(_COMBOS * 16)
    res.situations[a] += np.bincount(s, minlength=_SITUATIONS)
    h = (code >= t.hit_from[a]).nonzero()[0]
    if h.size:
        _blow(g, t, idx, h, s, u, combo, a, rnd, res, gen)
    post = t.post_any[a].take(s)
    if post.any():
        _after(g, t, idx, post.nonzero()[0], s, a)


def _after(g: Group, t: Tables, idx: np.ndarray, p: np.ndarray, s: np.ndarray, a: int) -> None:
    """Effects spent after the blow (percentile rules, special effects): prone, a lost turn, a destroyed shield,
    standing up; ``p`` indexes the exchanges that spend one."""
    sp = s[p]
    gp = idx[p]
    for (mechanic, target), table in t.post[a].items():
        j = table.take(sp).nonzero()[0]
        if j.size == 0:
            continue
        side = a if target == 0 else 1 - a
        where = gp[j]
        if mechanic == "prone":
            g.prone[side][where] = True
        elif mechanic == "stand":
            g.prone[side][where] &= g.lame[side][where]   # a crippled leg stays down
        elif mechanic == "lose_turn":
            g.lost[side][where] += 1
        else:                               # destroy_shield
            g.shield[side][g.pos[where]] = False


def _blow(g: Group, t: Tables, idx: np.ndarray, h: np.ndarray, s: np.ndarray,
          u: np.ndarray, combo: np.ndarray, a: int, rnd: int, res: Results,
          gen: np.random.Generator) -> None:
    """The blows that land (``h`` indexes the exchange's duels): location, damage, wounds,
    knockback, with the attacker's blow effects."""
    d = 1 - a
    sh = s[h]
    gi = idx[h]                             # hit duels, in the group's compact arrays
    gp = g.pos.take(gi)                     # ... and their positions (see Group)
    mh = h.size
    spend = t.hit_spend[a]
    if t.surprised == d:
        g.struck[d][gi] = True
    # location: rolled, or chosen with a special effect (fewest HP + armour, vital first on a
    # tie: the lowest 2 * (hp + armour) - vital, first in table order)
    loc = t.location(mh, gen)
    hp_d, best_d = g.hp[d], g.best[d]
    L, k = hp_d.shape
    ch = spend["choose_location"].take(sh).nonzero()[0]
    if ch.size:
        loc[ch] = best_d[gp[ch]] % L
    charge = None
    if t.charges[a]:
        charge = ((combo[h] & 8) != 0).nonzero()[0]
        charge = charge if charge.size else None
    raw = _damage(t, a, mh, charge, gen)
    imp = spend["impale"].take(sh).nonzero()[0]
    if imp.size:                            # rolled twice, the higher kept
        again = _damage(t, a, imp.size, _subset(charge, imp), gen)
        raw[imp] = np.maximum(raw[imp], again)
    mx = spend["maximise_damage"].take(sh).nonzero()[0]
    if mx.size:                             # the weapon's dice at their maximum
        raw[mx] = _maximised(t, a, mx.size, _subset(charge, mx), gen)
    hit_damage = raw
    par = t.parried[a].take(sh).nonzero()[0]
    if par.size:
        lo, up = t.frac[a]
        frac = np.asarray(t.frac[a])[g.shield[d][gp[par]].view(np.int8)] if lo != up else \
            np.full(par.size, lo)
        if charge is not None:
            c_par = np.isin(par, charge)
            if c_par.any():
                frac[c_par] = np.asarray(t.frac_charge[a])[
                    g.shield[d][gp[par[c_par]]].view(np.int8)]
        hit_damage = raw.copy()
        hit_damage[par] -= np.ceil(raw[par] * frac - 1e-9).astype(hit_damage.dtype)
    if t.any_armour[d]:
        armour = t.armour[d][loc]
        armour[spend["bypass_armour"].take(sh)] = 0
        hit_damage = hit_damage - armour
    damage = np.maximum(hit_damage, 0)
    flat = loc * k + gp
    hp_flat = hp_d.reshape(-1)
    before = hp_flat[flat]
    after = before - damage
    hp_flat[flat] = after
    best_d[gp] = np.minimum(best_d[gp], after * (2 * L) + t.key_offset[d][loc])
    hurt = damage > 0
    if t.every_hit:             # percentile rules, combat: by the hit points after every damaging hit
        wounded = np.flatnonzero((after <= 0) & hurt)
    else:                       # the earlier reading: the first crossing of 0 or -max only
        top = t.hp_max[d].take(loc)
        wounded = np.flatnonzero((after <= 0) & (before > -top) & (
            (before > 0) | (after <= -top)))
    if wounded.size:
        _wounds(g, t, wounded, u[h], gi, gp, loc, after, a, rnd, res, gen)
    st = (spend["stun"].take(sh) & hurt).nonzero()[0]
    if st.size:                             # stun location: one turn stunned
        stun = g.stun[d]
        stun[gi[st]] = np.maximum(stun[gi[st]], 1)
    kb = (raw > t.siz[d]).nonzero()[0]     # knocked back (the blow was not evaded)
    if kb.size:
        res.knockbacks += kb.size
        down = t.knock_fails[d][gen.integers(1, t.die + 1, size=kb.size, dtype=np.int32)]
        g.prone[d][gi[kb[down]]] = True


def _subset(charge: np.ndarray | None, sel: np.ndarray) -> np.ndarray | None:
    """Positions within ``sel`` of the blows that are charges."""
    if charge is None:
        return None
    inside = np.isin(sel, charge).nonzero()[0]
    return inside if inside.size else None


def _damage(t: Tables, a: int, n: int, charge: np.ndarray | None,
            gen: np.random.Generator) -> np.ndarray:
    """Raw damage of ``n`` blows; the positions ``charge`` are charges."""
    raw = t.damage[a](n, gen)
    if charge is not None:
        raw[charge] = t.charge_damage[a](charge.size, gen)
    return raw


def _maximised(t: Tables, a: int, n: int, charge: np.ndarray | None,
               gen: np.random.Generator) -> np.ndarray:
    """Raw damage with the weapon's dice at their maximum (the damage modifier rolled)."""
    top, bonus = t.weapon_max[a]
    raw = top + bonus(n, gen)
    if charge is not None:
        c_top, c_bonus = t.charge_max[a]
        raw[charge] = c_top + c_bonus(charge.size, gen)
    return np.maximum(raw, t.floor)


def _wounds(g: Group, t: Tables, w: np.ndarray, u: np.ndarray, gi: np.ndarray, gp: np.ndarray,
            loc: np.ndarray, after: np.ndarray, a: int, rnd: int, res: Results,
            gen: np.random.Generator) -> None:
    """Serious and major wounds of the blows ``w`` (indices into the hit arrays)."""
    d = 1 - a
    gw, pw, lw = gi[w], gp[w], loc[w]
    major = after[w] <= -t.hp_max[d].take(lw)   # else serious (at or below 0)
    res.serious[d] += w.size
    fs = g.first_serious[pw]
    g.first_serious[pw[fs == 0]] = rnd
    # Endurance: fails when the roll (a face 0..die-1) is below the count of failing faces
    failed = gen.integers(0, t.die, size=w.size, dtype=np.int32) < t.endurance_fails[a][u[w]]
    key = (major.view(np.int8) * 2 + failed.view(np.int8)) * t.hp_max.shape[1] + lw
    s = (~major).nonzero()[0]
    if s.size:                              # serious: stunned 1d3 turns
        stun = g.stun[d]
        stun[gw[s]] = np.maximum(stun[gw[s]], t.stun(s.size, gen))
    drop = t.drops_shield.take(key)
    if drop.any():
        g.shield[d][pw[drop]] = False
    lame = t.lames.take(key).nonzero()[0]
    if lame.size:
        g.lame[d][gw[lame]] = True
        g.prone[d][gw[lame]] = True
    outcome = t.outcome.take(key)
    done = (outcome != NONE).nonzero()[0]
    if done.size:
        j = gw[done]
        g.live[j] = False
        g.ap[0][j] = 0
        g.ap[1][j] = 0
        ended = pw[done]
        g.winner[ended] = a
        g.kind[ended] = outcome[done]
        g.end[ended] = rnd
