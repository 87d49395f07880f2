"""The duel simulator's inner loop (RULES.md 3.3), built for speed; rules as in :mod:`.duels`.

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
from functools import lru_cache

import numpy as np

from .. import dice
from ._common import CRITICAL, SUCCESS, ceil_div, section
from ._common import grade as find_grade
from .contests import effects_won
from .exchange import DEATH, INCAPACITATION, NONE, UNCONSCIOUS, exchange
from .rolls import _skill_cap, tier_lookup

_TABLE_LIMIT = 1 << 20
_PAIR_DIE = 256         # up to this die, one table of every (attack, defence) roll pair


@lru_cache(maxsize=64)
def _outcomes(expr: str) -> np.ndarray | None:
    """Every equally likely outcome of a dice expression (None when too many)."""
    d = dice.parse(expr)
    size = 1
    for _, count, faces in d.terms:
        size *= faces ** count
    if size > _TABLE_LIMIT:
        return None
    grid = np.full(1, d.constant, dtype=np.int64)
    for sign, count, faces in d.terms:
        for _ in range(count):
            grid = (grid[:, None] + sign * np.arange(1, faces + 1)).ravel()
    return np.sort(grid)


class _Roll:
    """Exact sampler of one dice expression (a table of equally likely outcomes when small)."""

    def __init__(self, expr: str, transform=None):
        table = _outcomes(expr)
        self.parsed = dice.parse(expr)
        self.transform = transform
        self.table = None if table is None else (table if transform is None
                                                 else transform(table))

    def __call__(self, size: int, gen: np.random.Generator) -> np.ndarray:
        if self.table is not None:
            return self.table[gen.integers(0, self.table.size, size=size, dtype=np.int32)]
        out = self.parsed.sample(size, gen)
        return out if self.transform is None else self.transform(out)


def _graded(skill: int, prone: bool, num: int, den: int) -> int:
    return ceil_div(skill * num, den) if prone else skill


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
    parried: tuple       # a successful parry
    chosen: tuple        # the blow lands with >= 1 effect (choose location)
    bypass: tuple        # ... with a critical and >= 2 effects (bypass armour)
    eff_pos: tuple       # effects won by the attacker
    eff_neg: tuple       # effects won by the defender
    damage: tuple        # [side] _Roll of raw damage (never below duel.minimum_damage)
    location: _Roll      # location index
    stun: _Roll
    initiative: _Roll
    frac: tuple          # [attacker side][shield up] fraction blocked by a successful parry
    armour: np.ndarray   # (2, L)
    any_armour: tuple
    hp_max: np.ndarray   # (2, L)
    score: np.ndarray    # (2, L) 2 * armour - vital (location choice; see exchange)
    key_offset: np.ndarray   # (2, L) score * L + location: the key is hp * 2 * L + offset
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
    num, den = prone.numerator, prone.denominator
    parry = [x.combat_style >= x.evade for x in f]
    rolls = np.arange(1, die + 1)
    L = len(rows)
    dummy = {"endurance": rolls, "knockback": rolls, "location": np.ones_like(rolls),
             "damage": np.zeros_like(rolls)}
    a_rows, d_rows, fails = [], [], []
    for a in (0, 1):
        d = 1 - a
        a_row, d_row = [], []
        for combo in range(8):
            # attack and defence tiers of every face, per grade combination: the attack tier
            # depends on the attack roll only, the defence tier on the defence roll only
            a_prone, d_prone, defends = bool(combo & 4), bool(combo & 2), bool(combo & 1)
            d_skill = f[d].combat_style if parry[d] else f[d].evade
            one = lambda v: np.full(die, v)  # noqa: E731
            attacker = {"skill": one(_graded(f[a].combat_style, a_prone, num, den)),
                        "weapon_size": one(0)}
            defender = {"defends": one(defends), "parry": one(parry[d]),
                        "skill": one(_graded(d_skill, d_prone and parry[d], num, den)),
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
    by_code = {"a_tier": a_tier, "chosen": landed & (eff >= 1),
               "bypass": landed & (eff >= 2) & (a_tier == CRITICAL),
               "eff_pos": np.maximum(eff, 0), "eff_neg": np.maximum(-eff, 0)}
    numbered = {key: [] for key in (*by_code, "parried", "hit_from")}
    pair, renumbered = [], []
    for a in (0, 1):
        hit = landed & ~(defended & ~parry[1 - a])
        order = np.argsort(hit, kind="stable")           # new code -> old code
        renumber = np.empty(16, dtype=np.int8)
        renumber[order] = np.arange(16)
        renumbered.append(renumber)
        if die <= _PAIR_DIE:    # index (combo * die + attack - 1) * die + defence - 1
            a_row = a_rows[a].reshape(8, die, 1)
            d_row = d_rows[a].reshape(8, 1, die)
            pair.append(renumber[(a_row * 4 + d_row).ravel()])
        for key, values in by_code.items():
            numbered[key].append(values[order])
        numbered["parried"].append((defended & parry[1 - a])[order])
        numbered["hit_from"].append(int(16 - hit.sum()))
    numbered = {key: tuple(v) for key, v in numbered.items()}
    blocks = list(combat["sizes"]["parry_block"])

    def fraction(a: int, shield_up: bool) -> float:
        d = f[1 - a]
        size = max(d.shield_size, d.weapon_size) if shield_up else d.weapon_size
        smaller = max(f[a].weapon_size - size, 0)
        return float(blocks[smaller]) if smaller < len(blocks) else 0.0

    floor = duel["minimum_damage"]
    loc_lows = np.array([row["low"] for row in rows])
    return Tables(
        die=die, cost=combat["ap_per_action"], ap=tuple(x.action_points for x in f),
        pair=tuple(pair) if pair else None, a_rows=tuple(a_rows), d_rows=tuple(d_rows),
        renumber=tuple(renumbered), **numbered,
        damage=tuple(_Roll(x.damage, lambda v: np.maximum(v, floor)) for x in f),
        location=_Roll(sec["hit_locations"]["roll"],
                       lambda v: np.searchsorted(loc_lows, v, side="right") - 1),
        stun=_Roll(combat["stun_roll"]), initiative=_Roll(combat["initiative_roll"]),
        frac=tuple((fraction(a, False), fraction(a, True)) for a in (0, 1)),
        armour=np.array([x.armour for x in f]), any_armour=tuple(any(x.armour) for x in f),
        hp_max=np.array([x.hit_points for x in f]),
        score=2 * np.array([x.armour for x in f]) - vital,
        key_offset=(2 * np.array([x.armour for x in f]) - vital) * L + np.arange(L),
        siz=np.array([x.siz for x in f]),
        knock_fails=np.stack([np.concatenate([[False], tier_lookup(rules)[
            min(x.knockback_skill, _skill_cap(rules)), 1:] < SUCCESS]) for x in f]),
        has_shield=np.array([x.shield_size >= 0 for x in f]),
        stand_turns=duel["stand_up_turns"], every_hit=bool(combat["wound_every_hit"]),
        endurance_fails=tuple(fails), **_wound_tables(rules, vital, keys))


def _endurance_fails(a_tier: np.ndarray, die: int, endurance: int, rules) -> np.ndarray:
    """For each attack (tier ``a_tier[i]``, roll ``i % die + 1``): how many Endurance faces
    fail to win the opposed roll against it (RULES.md 3.1: a success of a higher tier wins; the
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
    """Per-duel results and counters of a whole sampler call (indexed by duel)."""

    def __init__(self, n: int, rounds: int):
        self.winner = np.full(n, 2, dtype=np.int64)
        self.kind = np.zeros(n, dtype=np.int64)
        self.end = np.full(n, rounds, dtype=np.int64)
        self.first_serious = np.zeros(n, dtype=np.int64)
        self.effects = np.zeros(2, dtype=np.int64)
        self.serious = np.zeros(2, dtype=np.int64)
        self.exchanges = 0
        self.knockbacks = 0


class Group:
    """Compact state of the live duels of one initiative group (side ``first`` acts first)."""

    def __init__(self, ids: np.ndarray, first: int, t: Tables):
        k = ids.size
        self.ids, self.first = ids, first
        self.ap = np.zeros((2, k), dtype=np.int32)
        self.stun = np.zeros((2, k), dtype=np.int32)
        self.prone = np.zeros((2, k), dtype=bool)
        self.lame = np.zeros((2, k), dtype=bool)
        self.shield = np.repeat(t.has_shield[:, None], k, axis=1)
        self.hp = np.repeat(t.hp_max.astype(np.int32)[:, :, None], k, axis=2)
        # per side, the key of the location a chosen blow goes to: min over locations of
        # (2 * (hp + armour) - vital) * L + location (hit points only drop: kept up to date
        # by taking the minimum with the key of each location hit)
        L = t.hp_max.shape[1]
        start = ((2 * t.hp_max + t.score) * L + np.arange(L)).min(axis=1)
        self.best = np.repeat(start[:, None], k, axis=1)
        self.first_serious = np.zeros(k, dtype=np.int32)
        self.live = np.ones(k, dtype=bool)

    def compact(self) -> None:
        keep = np.flatnonzero(self.live)
        self.ids = self.ids[keep]
        self.ap = np.empty((2, keep.size), dtype=self.ap.dtype)   # refilled every round
        for name in ("stun", "prone", "lame", "shield", "hp", "best", "first_serious"):
            # C-contiguous copies (flat views index them)
            setattr(self, name, np.ascontiguousarray(np.take(getattr(self, name), keep, axis=-1)))
        self.live = np.ones(keep.size, dtype=bool)


def run_group(g: Group, t: Tables, rounds: int, res: Results, gen: np.random.Generator) -> None:
    """All rounds of one initiative group (RULES.md 3.3 round and turn policies)."""
    cost = t.cost
    for rnd in range(1, rounds + 1):
        if g.ids.size == 0:
            break
        finished = g.live.size - np.count_nonzero(g.live)
        if finished:
            g.compact()
        g.ap[0], g.ap[1] = t.ap
        while True:
            acted = False
            for a in (g.first, 1 - g.first):
                act = g.ap[a] >= cost
                count = act.sum()
                if count == 0:
                    continue
                acted = True
                _turn(g, t, None if count == act.size else act.nonzero()[0], a, rnd, res, gen)
            if not acted:
                break
    live = g.live.nonzero()[0]             # timeouts (ended duels wrote theirs)
    res.first_serious[g.ids[live]] = g.first_serious[live]


def _turn(g: Group, t: Tables, idx: np.ndarray | None, a: int, rnd: int, res: Results,
          gen: np.random.Generator) -> None:
    """Turns of side ``a`` in the duels ``idx`` (None: all): shake off a stun, stand up or
    attack, one action each."""
    ap, stun, prone, lame = g.ap[a], g.stun[a], g.prone[a], g.lame[a]
    full = idx is None
    if full:
        ap -= t.cost
        st = stun
    else:
        ap[idx] -= t.cost
        st = stun[idx]
    stunned = st > 0
    if stunned.any():
        if full:
            stun -= stunned
        else:
            stun[idx[stunned]] -= 1
    pr = prone if full else prone[idx]
    go = ~stunned
    if pr.any():
        can_rise = pr & ~(lame if full else lame[idx])
        if t.stand_turns == 0:              # standing up is free: up, then act
            rise = can_rise.nonzero()[0]
            prone[rise if full else idx[rise]] = False
        else:                               # the turn is spent rising (unless stunned)
            rising = go & can_rise
            rise = rising.nonzero()[0]
            prone[rise if full else idx[rise]] = False
            go &= ~rising
    if go.all():
        _exchange(g, t, idx, a, rnd, res, gen)
    else:
        sel = go.nonzero()[0]
        if sel.size:
            _exchange(g, t, sel if full else idx[sel], a, rnd, res, gen)


def _exchange(g: Group, t: Tables, idx: np.ndarray | None, a: int, rnd: int, res: Results,
              gen: np.random.Generator) -> None:
    """One exchange in the duels ``idx`` (None: all) whose attacker is side ``a``."""
    d = 1 - a
    k = g.ap.shape[1]
    full = idx is None
    take = (lambda x: x) if full else (lambda x: x[idx])  # noqa: E731
    ap_d = g.ap[d]
    defends = (take(ap_d) >= t.cost) & (take(g.stun[d]) == 0)
    if full:
        np.subtract(ap_d, t.cost, out=ap_d, where=defends)
    else:
        ap_d[idx[defends]] -= t.cost
    m = defends.size
    res.exchanges += m
    combo = take(g.prone[a]).view(np.int8) * np.int8(4)
    combo |= take(g.prone[d]).view(np.int8) * np.int8(2)
    combo |= defends.view(np.int8)
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
    counts = np.bincount(code, minlength=16)
    res.effects[a] += counts @ t.eff_pos[a]
    res.effects[d] += counts @ t.eff_neg[a]
    h = (code >= t.hit_from[a]).nonzero()[0]
    if h.size == 0:
        return
    code = code[h]
    gi = h if full else idx[h]              # hit duels, in the group's arrays
    mh = h.size
    # location: rolled, or chosen with the first special effect (fewest HP + armour, vital
    # first on a tie: the lowest 2 * (hp + armour) - vital, first in table order)
    loc = t.location(mh, gen)
    hp_d, best_d = g.hp[d], g.best[d]
    L = hp_d.shape[0]
    ch = t.chosen[a].take(code).nonzero()[0]
    if ch.size:
        loc[ch] = best_d[gi[ch]] % L
    raw = t.damage[a](mh, gen)
    hit_damage = raw
    par = t.parried[a].take(code).nonzero()[0]
    if par.size:
        lo, up = t.frac[a]
        frac = lo if lo == up else np.asarray(t.frac[a])[g.shield[d][gi[par]].view(np.int8)]
        hit_damage = raw.copy()
        hit_damage[par] -= np.ceil(raw[par] * frac - 1e-9).astype(hit_damage.dtype)
    if t.any_armour[d]:
        armour = t.armour[d][loc]
        armour[t.bypass[a].take(code)] = 0
        hit_damage = hit_damage - armour
    damage = np.maximum(hit_damage, 0)
    flat = loc * k + gi
    hp_flat = hp_d.reshape(-1)
    before = hp_flat[flat]
    after = before - damage
    hp_flat[flat] = after
    best_d[gi] = np.minimum(best_d[gi], after * (2 * L) + t.key_offset[d][loc])
    top = t.hp_max[d][loc]
    if t.every_hit:             # RULES.md 3.3: by the hit points after every damaging hit
        wounded = np.flatnonzero((after <= 0) & (damage > 0))
    else:                       # the earlier reading: the first crossing of 0 or -max only
        wounded = np.flatnonzero((after <= 0) & (before > -top) & (
            (before > 0) | (after <= -top)))
    if wounded.size:
        _wounds(g, t, wounded, u[h], gi, loc, after, top, a, rnd, res, gen)
    kb = (raw > t.siz[d]).nonzero()[0]     # knocked back (the blow was not evaded)
    if kb.size:
        res.knockbacks += kb.size
        down = t.knock_fails[d][gen.integers(1, t.die + 1, size=kb.size, dtype=np.int32)]
        g.prone[d][gi[kb[down]]] = True


def _wounds(g: Group, t: Tables, w: np.ndarray, u: np.ndarray, gi: np.ndarray,
            loc: np.ndarray, after: np.ndarray, top: np.ndarray, a: int,
            rnd: int, res: Results, gen: np.random.Generator) -> None:
    """Serious and major wounds of the blows ``w`` (indices into the hit arrays)."""
    d = 1 - a
    gw, lw = gi[w], loc[w]
    major = after[w] <= -top[w]             # else serious (at or below 0)
    res.serious[d] += w.size
    fs = g.first_serious[gw]
    g.first_serious[gw[fs == 0]] = rnd
    # Endurance: fails when the roll (a face 0..die-1) is below the count of failing faces
    failed = gen.integers(0, t.die, size=w.size, dtype=np.int32) < t.endurance_fails[a][u[w]]
    key = (major.view(np.int8) * 2 + failed.view(np.int8)) * t.hp_max.shape[1] + lw
    s = (~major).nonzero()[0]
    if s.size:                              # serious: stunned 1d3 turns
        stun = g.stun[d]
        stun[gw[s]] = np.maximum(stun[gw[s]], t.stun(s.size, gen))
    drop = t.drops_shield.take(key)
    if drop.any():
        g.shield[d][gw[drop]] = False
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
        ids = g.ids[j]
        res.winner[ids] = a
        res.kind[ids] = outcome[done]
        res.end[ids] = rnd
        res.first_serious[ids] = g.first_serious[j]
