"""Vectorised duel simulator (RULES.md 3.3): two combatants fight until one is out or time runs out.

Arrays are shaped ``(duels,)`` (``(2, duels)`` per side); Python loops only over rounds and
exchanges. Policies the document leaves open (all stated in docs/readme/percentile.md):

- initiative ``1d10 + bonus - ceil(armour ENC / 5)`` is rolled once per duel; a tie is broken
  by a fair coin once (we do not model simultaneous action);
- a round (5 s) runs cycles in initiative order until nobody has Action Points left; on its
  turn a combatant with A.P. attacks (1 A.P.); a defender always spends 1 A.P. on a defence
  when it has one and is not stunned: a parry with its Combat Style (shield if it has one, else
  the weapon) when Combat Style >= Evade, else an evade;
- a serious wound stuns the victim for 1d3 of its own turns: each turn spends 1 A.P. and it
  neither attacks nor defends meanwhile;
- prone (knockback, crippled leg): attacks and parries at ``duel.prone_grade`` (Hard); standing
  up takes ``duel.stand_up_turns`` turn(s), impossible on a crippled leg; a crippled shield arm
  drops the shield;
- the exchange itself: :mod:`balance.percentile.exchange` (special effects, parry by size,
  armour, wounds, Endurance, knockback);
- the duel ends at death, unconsciousness or incapacitation of one side, else after
  ``duel.max_rounds`` rounds (timeout).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .. import dice
from ..errors import check_integer
from ..rng import RNGLike, as_generator
from ..rules import Rules, resolve
from ._common import RulesLike, ceil_div, section
from ._common import grade as find_grade
from .exchange import NONE, SERIOUS, exchange
from .fighters import Fighter

__all__ = ["DuelSpec", "duel_spec", "duel_sampler"]

_TABLE_LIMIT = 1 << 20


@dataclass(frozen=True)
class DuelSpec:
    """Two fighters, a round cap and the rules: everything a duel sampler needs (picklable)."""

    first: Fighter
    second: Fighter
    max_rounds: int
    rules: Rules


def duel_spec(first: Fighter, second: Fighter, *, max_rounds: int | None = None,
              rules: RulesLike = None) -> DuelSpec:
    """Check and bundle a duel (``max_rounds`` default: ``[percentile.duel] max_rounds``)."""
    rules = resolve(rules)
    for name, f in (("first", first), ("second", second)):
        if not isinstance(f, Fighter):
            raise ValueError(f"{name} must be a combatant (bl.percentile.combatant(70, ...)), "
                             f"got {f!r}")
    rounds = section(rules)["duel"]["max_rounds"] if max_rounds is None else max_rounds
    return DuelSpec(first, second, check_integer("max_rounds", rounds, min=1), rules)


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


class _Draw:
    """Exact sampler of one dice expression per side (a table lookup when it is small)."""

    def __init__(self, exprs: tuple[str, str]):
        self.exprs = exprs
        tables = [_outcomes(e) for e in exprs]
        self.table = None if any(t is None for t in tables) else np.concatenate(tables)
        if self.table is not None:
            self.sizes = np.array([tables[0].size, tables[1].size])
            self.offsets = np.array([0, tables[0].size])

    def __call__(self, side: np.ndarray, gen: np.random.Generator) -> np.ndarray:
        if self.table is not None:
            u = gen.integers(0, self.sizes[side])
            return self.table[self.offsets[side] + u]
        both = [dice.parse(e).sample(side.size, gen) for e in self.exprs]
        return np.where(side == 0, both[0], both[1])


@dataclass
class _Compiled:
    """Per-side arrays of a spec (index 0 first, 1 second)."""

    style: np.ndarray
    evade: np.ndarray
    parry: np.ndarray
    endurance: np.ndarray
    knock: np.ndarray
    ap: np.ndarray
    init: np.ndarray
    siz: np.ndarray
    weapon_size: np.ndarray
    shield_size: np.ndarray
    armour: np.ndarray
    hp_max: np.ndarray
    damage: _Draw
    location: _Draw
    stun: _Draw
    initiative: _Draw
    prone_num: int
    prone_den: int
    stand_turns: int
    shield_arm: int
    legs: np.ndarray
    die: int
    cost: int                   # A.P. per action (turn or defence)


def _compile(spec: DuelSpec) -> _Compiled:
    rules = spec.rules
    sec = section(rules)
    f = (spec.first, spec.second)
    arr = lambda attr: np.array([getattr(x, attr) for x in f])  # noqa: E731
    rows = sec["hit_locations"]["table"]
    keys = [row["key"] for row in rows]
    prone = find_grade(sec["duel"]["prone_grade"], rules, "duel.prone_grade")
    combat = sec["combat"]
    return _Compiled(
        style=arr("combat_style"), evade=arr("evade"),
        parry=arr("combat_style") >= arr("evade"), endurance=arr("endurance"),
        knock=arr("knockback_skill"), ap=arr("action_points"), init=arr("initiative_bonus"),
        siz=arr("siz"), weapon_size=arr("weapon_size"), shield_size=arr("shield_size"),
        armour=np.array([x.armour for x in f]), hp_max=np.array([x.hit_points for x in f]),
        damage=_Draw((f[0].damage, f[1].damage)),
        location=_Draw((sec["hit_locations"]["roll"],) * 2),
        stun=_Draw((combat["stun_roll"],) * 2),
        initiative=_Draw((combat["initiative_roll"],) * 2),
        prone_num=prone.numerator, prone_den=prone.denominator,
        stand_turns=sec["duel"]["stand_up_turns"],
        shield_arm=keys.index(sec["duel"]["shield_arm"]),
        legs=np.array([row["hp"] == "leg" for row in rows]), die=sec["die"],
        cost=combat["ap_per_action"])


def _graded(skill: np.ndarray, prone: np.ndarray, c: _Compiled) -> np.ndarray:
    return np.where(prone, ceil_div(skill * c.prone_num, c.prone_den), skill)


@dataclass
class _State:
    """Per-duel state, side first: arrays shaped (2, n) (hit points: (2, n, locations)).

    C-contiguous (as :meth:`start` makes them): the turn code reads and writes them through
    flat views indexed ``side * n + duel``.
    """

    hp: np.ndarray
    ap: np.ndarray
    stun: np.ndarray
    prone: np.ndarray
    lame: np.ndarray
    shield: np.ndarray
    over: np.ndarray            # (n,)
    winner: np.ndarray          # (n,): 0 first, 1 second, 2 timeout
    kind: np.ndarray            # (n,): how the loser went out
    end: np.ndarray             # (n,): round the duel ended
    first_serious: np.ndarray   # (n,): round of the first serious wound, 0 none
    effects: np.ndarray         # (2,) sums
    serious: np.ndarray         # (2,) counts
    exchanges: int = 0
    knockbacks: int = 0

    @classmethod
    def start(cls, n: int, c: _Compiled, rounds: int) -> "_State":
        side = lambda dtype: np.zeros((2, n), dtype=dtype)  # noqa: E731
        return cls(hp=np.repeat(c.hp_max[:, None, :], n, axis=1), ap=side(np.int64),
                   stun=side(np.int64), prone=side(bool), lame=side(bool),
                   shield=np.repeat((c.shield_size >= 0)[:, None], n, axis=1),
                   over=np.zeros(n, dtype=bool), winner=np.full(n, 2),
                   kind=np.zeros(n, dtype=np.int64), end=np.full(n, rounds),
                   first_serious=np.zeros(n, dtype=np.int64), effects=np.zeros(2),
                   serious=np.zeros(2, dtype=np.int64))


def duel_sampler(n: int, rng: RNGLike, spec: DuelSpec) -> dict[str, np.ndarray]:
    """Simulate ``n`` duels (Monte Carlo engine contract): additive count arrays.

    Returns
    -------
    dict
        ``wins`` (3,): first wins, second wins, timeout; ``kinds`` (2, 4): winner side x how
        the loser went out (index 1 death, 2 unconsciousness, 3 incapacitation);
        ``rounds`` (max_rounds + 1,): histogram of the round the duel ended (timeouts at
        max_rounds); ``first_serious`` (max_rounds + 1,): round of the first serious or major
        wound (0 = none); ``exchanges``, ``effects`` (2,) special effects won by each side,
        ``serious_wounds`` (2,) suffered by each side, ``knockbacks``, ``rounds_sum``,
        ``rounds_sumsq``.
    """
    n = check_integer("n", n, min=0)
    if not isinstance(spec, DuelSpec):
        raise ValueError(f"spec must be a DuelSpec (bl.percentile.duel_spec(first, second)), "
                         f"got {spec!r}")
    gen = as_generator(rng, "rng")
    c = _compile(spec)
    R = spec.max_rounds
    s = _State.start(n, c, R)
    both = np.repeat(np.arange(2), n)
    init = (c.initiative(both, gen) + c.init[both]).reshape(2, n)
    coin = gen.integers(0, 2, size=n)
    first = np.where(init[0] > init[1], 0, np.where(init[1] > init[0], 1, coin))
    for rnd in range(1, R + 1):
        alive = np.flatnonzero(~s.over)
        if alive.size == 0:
            break
        s.ap[:, alive] = c.ap[:, None]
        while alive.size:
            acted = False
            for slot in (0, 1):
                sides = first[alive] ^ slot
                can = (s.ap.reshape(-1)[sides * n + alive] >= c.cost) & ~s.over[alive]
                if can.any():
                    acted = True
                    _turn(s, alive[can], sides[can], rnd, c, spec.rules, gen)
            if not acted:
                break
            alive = alive[~s.over[alive]]
    end = s.end
    return {
        "wins": np.bincount(s.winner, minlength=3).astype(np.int64),
        "kinds": np.bincount(np.minimum(s.winner, 1) * 4 + s.kind, weights=(s.winner < 2),
                             minlength=8).reshape(2, 4).astype(np.int64),
        "rounds": np.bincount(end, minlength=R + 1).astype(np.int64),
        "first_serious": np.bincount(s.first_serious, minlength=R + 1).astype(np.int64),
        "exchanges": np.int64(s.exchanges), "effects": s.effects,
        "serious_wounds": s.serious, "knockbacks": np.int64(s.knockbacks),
        "rounds_sum": np.int64(end.sum()), "rounds_sumsq": np.int64((end * end).sum()),
    }


def _turn(s: _State, idx: np.ndarray, a: np.ndarray, rnd: int, c: _Compiled, rules: Rules,
          gen: np.random.Generator) -> None:
    """The turn of side ``a`` in duels ``idx``: one action (``combat.ap_per_action`` A.P.) to
    shake off a stun, stand up or attack."""
    # state arrays (2, n) are read and written through flat views at side * n + duel: one
    # index array instead of two (several times faster gathers and scatters)
    fa = a * s.over.size + idx
    ap, stun, prone = s.ap.reshape(-1), s.stun.reshape(-1), s.prone.reshape(-1)
    ap[fa] -= c.cost
    stunned = stun[fa] > 0
    stun[fa[stunned]] -= 1
    can_rise = prone[fa] & ~s.lame.reshape(-1)[fa]
    if c.stand_turns == 0:          # standing up is free: up, then act
        prone[fa[can_rise]] = False
        can_rise[:] = False
    rising = ~stunned & can_rise
    prone[fa[rising]] = False
    go = ~stunned & ~rising
    if go.any():
        _attack(s, idx[go], a[go], rnd, c, rules, gen)


def _attack(s: _State, idx: np.ndarray, a: np.ndarray, rnd: int, c: _Compiled, rules: Rules,
            gen: np.random.Generator) -> None:
    """One exchange for the duels ``idx`` whose attacker is side ``a``; updates the state."""
    d = 1 - a
    m = idx.size
    n = s.over.size
    fd = d * n + idx                # flat index of the defender's state (see _turn)
    ap, stun, prone = s.ap.reshape(-1), s.stun.reshape(-1), s.prone.reshape(-1)
    shield, lame = s.shield.reshape(-1), s.lame.reshape(-1)
    hp = s.hp.reshape(2 * n, -1)
    defends = (ap[fd] >= c.cost) & (stun[fd] == 0)
    ap[fd[defends]] -= c.cost
    parry = c.parry[d]
    d_skill = _graded(np.where(parry, c.style[d], c.evade[d]), prone[fd] & parry, c)
    attacker = {"skill": _graded(c.style[a], prone[a * n + idx], c),
                "weapon_size": c.weapon_size[a]}
    defender = {
        "defends": defends, "parry": parry, "skill": d_skill,
        "parry_size": np.where(shield[fd], np.maximum(c.shield_size[d], c.weapon_size[d]),
                               c.weapon_size[d]),
        "armour": c.armour[d], "hp": hp[fd], "hp_max": c.hp_max[d], "siz": c.siz[d],
        "endurance": c.endurance[d], "knockback_skill": c.knock[d]}
    d100 = gen.integers(1, c.die + 1, size=(4, m), dtype=np.int16)
    rolls = {"attack": d100[0], "defence": d100[1], "endurance": d100[2],
             "knockback": d100[3], "location": c.location(a, gen), "damage": c.damage(a, gen)}
    out = exchange(attacker, defender, rolls, rules)
    loc = out["location"]
    hp[fd, loc] = out["hp_after"]
    s.exchanges += m
    eff = out["effects"]
    s.effects += np.bincount(a, weights=np.maximum(eff, 0), minlength=2)
    s.effects += np.bincount(d, weights=np.maximum(-eff, 0), minlength=2)
    wounded = out["wound"] >= SERIOUS
    if wounded.any():
        s.serious += np.bincount(d[wounded], minlength=2)
        w = idx[wounded]
        s.first_serious[w] = np.where(s.first_serious[w] == 0, rnd, s.first_serious[w])
        stunned = out["wound"] == SERIOUS
        if stunned.any():
            fs = fd[stunned]
            stun[fs] = np.maximum(stun[fs], c.stun(d[stunned], gen))
        crip = out["crippled"]
        if crip.any():
            shield[fd[crip & (loc == c.shield_arm)]] = False
            leg = fd[crip & c.legs[loc]]
            lame[leg] = True
            prone[leg] = True
    knocked = out["knocked_prone"]
    s.knockbacks += int(out["knocked_back"].sum())
    prone[fd[knocked]] = True
    done = out["outcome"] != NONE
    if done.any():
        j = idx[done]
        s.over[j] = True
        s.winner[j] = a[done]
        s.kind[j] = out["outcome"][done]
        s.end[j] = rnd
