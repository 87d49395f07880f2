"""Benchmark kernel of the GM-guide fight simulator (issue 4): 4 PCs against 4 wolves, level 5.

Importing this module registers the kernel ``gm-fight-4v4`` with :mod:`balance.bench`
(add ``"balance.bench.fights"`` to ``bench.KERNEL_MODULES``). The floor draws the dice the
kernel draws, counted on one block by :func:`balance.bench.counting.count_draws` (the 64-bit
random numbers whose halves pick each attack's face and damage, a buffer at a time); the
plain-Python comparison is
:func:`fair_python_fights` on the same encounter: the best plain Python a reviewer would write
(``random.random`` per die, hit and damage tables precomputed, no numpy in the loop; issue 16).
:func:`balance.guide.fight_kernel.python_fights` stays the kernel's independent twin for tests.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from . import Kernel, register

if TYPE_CHECKING:
    from ..guide.fight_kernel import FightSpec

__all__ = ["ENCOUNTER", "KERNEL", "fair_python_fights"]

ENCOUNTER = ("Wolf", "Wolf", "Wolf", "Wolf")


def _spec():
    from ..guide.fights import fight_spec
    return fight_spec(list(ENCOUNTER))


def _sampler() -> Callable:
    from ..guide.fights import fight_sampler
    return partial(fight_sampler, spec=_spec())


def _python(n: int, rnd: random.Random) -> dict[str, int]:
    return fair_python_fights(n, rnd, _spec())


#: largest table of equiprobable damage totals the fair loop precomputes for one attack
_TABLE_LIMIT = 1 << 16


def _totals(faces: list[int]) -> list[int]:
    """Total of every ordered outcome of these dice (equiprobable)."""
    out = [0]
    for f in faces:
        out = [v + x for v in out for x in range(1, f + 1)]
    return out


def fair_python_fights(n: int, rnd: random.Random, spec: FightSpec) -> dict[str, int]:
    """The fights of ``spec`` in fair plain Python (GM guide, checks and attacks).

    The benchmark's plain-Python reference for ``gm-fight-4v4`` (issue 16): one
    ``rnd.random()`` per die, hit outcomes (miss, hit, critical hit) per attacker, target and
    face and damage totals per attacker and outcome precomputed as tables, no numpy in the
    loop. Same rule as :func:`balance.guide.fights.fight_sampler`: turns by Init, ties at
    random per fight when ``spec.random_ties``; each attack hits the ``targets`` weakest
    standing foes (lowest HP, then lowest position); a fight ends when a side is down, or is a
    draw after ``spec.max_rounds`` rounds.

    Parameters
    ----------
    n : int
        Number of fights.
    rnd : random.Random
        The stream.
    spec : FightSpec
        The fight, from ``balance.guide.fights.fight_spec``, weakest targeting on both sides.

    Returns
    -------
    dict of str to int
        ``party_wins``, ``creature_wins``, ``draws`` and ``rounds_sum`` (the keys of
        :func:`balance.guide.fight_kernel.python_fights`).

    Raises
    ------
    ValueError
        Random targeting, or a damage roll with more than 65536 outcomes (not supported).

    Examples
    --------
    >>> import random
    >>> import balance as bl
    >>> out = fair_python_fights(100, random.Random(1), bl.fights.fight_spec(["Goblin", "Goblin"]))
    >>> out["party_wins"] + out["creature_wins"] + out["draws"]
    100
    """
    from ..guide.fight_kernel import WEAKEST
    if any(int(x) != WEAKEST for x in spec.policy):
        raise ValueError("fair_python_fights: spec.policy must be weakest targeting for both "
                         f"sides, got {tuple(int(x) for x in spec.policy)}")
    c, die = spec.hp.size, int(spec.die)
    side = [int(s) for s in spec.side]
    need = spec.defences[:, spec.attack_defence].T - spec.attack[:, None] - spec.adjust  # (a, t)
    cs, cf, low = int(spec.critical_success), int(spec.critical_failure), int(spec.minimum_damage)
    plan = []  # per attacker: itself, foes, targets, outcome per target and face - 1, damage
    for a in range(c):
        hit = [[2 if f == cs else 0 if f == cf else int(f >= need[a, t]) for f in range(1, die + 1)]
               if side[t] != side[a] else [] for t in range(c)]  # [] for an ally: never read
        base = [int(f) for f in spec.faces[a] if f > 0]
        tables: list = [None]
        for dice in (base, base * int(spec.crit_dice)):
            size = 1
            for f in dice:
                size *= f
            if size > _TABLE_LIMIT:
                raise ValueError(f"fair_python_fights: {spec.names[a]}'s damage has {size} "
                                 f"outcomes, at most {_TABLE_LIMIT} supported")
            table = [max(v + int(spec.damage_bonus[a]), low) for v in _totals(dice)]
            tables.append((table, len(table)))
        foes = [t for t in range(c) if side[t] != side[a]]
        plan.append((a, foes, int(spec.targets[a]), hit, tables))
    hp0 = [int(h) for h in spec.hp]
    init = [int(i) for i in spec.init]
    fixed = sorted(range(c), key=lambda i: -init[i])
    ties = bool(spec.random_ties) and len(set(init)) < c
    alive0 = [side.count(0), side.count(1)]
    max_rounds = int(spec.max_rounds)
    r = rnd.random
    out = {"party_wins": 0, "creature_wins": 0, "draws": 0, "rounds_sum": 0}
    for _ in range(n):
        hp = hp0[:]
        alive = alive0[:]
        order = sorted(range(c), key=lambda i: (-init[i], r())) if ties else fixed
        turns = [plan[a] for a in order]
        rd = max_rounds
        for rd in range(1, max_rounds + 1):
            for a, foes, k, hit, tables in turns:
                if hp[a] <= 0:
                    continue
                if k == 1:
                    best, low_hp = -1, 0
                    for t in foes:
                        h = hp[t]
                        if h > 0 and (best < 0 or h < low_hp):
                            best, low_hp = t, h
                    if best < 0:  # no foe standing: the fight is over
                        break
                    picked: Sequence[int] = (best,)
                else:
                    picked = [t for _, t in sorted((hp[t], t) for t in foes if hp[t] > 0)[:k]]
                    if not picked:
                        break
                for t in picked:
                    o = hit[t][int(r() * die)]
                    if o:
                        table, size = tables[o]
                        h = hp[t] - table[int(r() * size)]
                        hp[t] = h
                        if h <= 0:
                            alive[side[t]] -= 1
            if not (alive[0] and alive[1]):
                break
        out["rounds_sum"] += rd
        if alive[0] and not alive[1]:
            out["party_wins"] += 1
        elif not alive[0]:
            out["creature_wins"] += 1
        else:
            out["draws"] += 1
    return out


KERNEL = register(Kernel("gm-fight-4v4", _sampler, _python,
                         "GM guide fight: default party vs 4 wolves, level 5, focus the weakest",
                         unit="fight", trials=1 << 21, python_trials=30_000, target_rate=1e5,
                         x_floor_target=8.0))  # issue 16: within 8x of its honest floor
