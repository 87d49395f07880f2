"""Vectorised duel simulator (RULES.md 3.3): two combatants fight until one is out or time runs out.

Vectorised along the duels; Python loops only over rounds and turn slots (the loop itself is
:mod:`balance.percentile._duel_kernel`: duels grouped by initiative, compact state, lookup
tables built with :func:`balance.percentile.exchange`). Policies the document leaves open (all
stated in the README, Percentile rules: Duels):

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

import numpy as np

from ..errors import check_integer
from ..rng import RNGLike, as_generator
from ..rules import Rules, resolve
from ._common import RulesLike, section
from ._duel_kernel import Group, Results, run_group, tables
from .fighters import Fighter

__all__ = ["DuelSpec", "duel_spec", "duel_sampler"]

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
    t = tables(spec)
    R = spec.max_rounds
    res = Results(n, R)
    roll = t.initiative
    init0 = roll(n, gen) + spec.first.initiative_bonus
    init1 = roll(n, gen) + spec.second.initiative_bonus
    coin = gen.integers(0, 2, size=n)
    first = np.where(init0 > init1, 0, np.where(init1 > init0, 1, coin))
    for side in (0, 1):
        run_group(Group(np.flatnonzero(first == side), side, t), t, R, res, gen)
    end = res.end
    winner = res.winner
    return {
        "wins": np.bincount(winner, minlength=3).astype(np.int64),
        "kinds": np.bincount(np.minimum(winner, 1) * 4 + res.kind, weights=(winner < 2),
                             minlength=8).reshape(2, 4).astype(np.int64),
        "rounds": np.bincount(end, minlength=R + 1).astype(np.int64),
        "first_serious": np.bincount(res.first_serious, minlength=R + 1).astype(np.int64),
        "exchanges": np.int64(res.exchanges), "effects": res.effects.astype(float),
        "serious_wounds": res.serious, "knockbacks": np.int64(res.knockbacks),
        "rounds_sum": np.int64(end.sum()), "rounds_sumsq": np.int64((end * end).sum()),
    }
