"""Vectorised duel simulator (percentile rules, combat): two combatants fight until one is out or time runs out.

Vectorised along the duels; Python loops only over rounds and turn slots (the loop itself is
:mod:`balance.percentile._duel_kernel`: duels grouped by initiative, compact state, lookup
tables built with :func:`balance.percentile.exchange`). Policies the document leaves open (all
stated in the docs, how-to/percentile.md, "Duels: what the simulator does"):

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
- the exchange itself: :mod:`balance.percentile.exchange` (parry by size, armour, wounds,
  Endurance, knockback); both sides spend the special effects they win by their policy
  (:mod:`balance.percentile.effects`, percentile rules, special effects: default ``"default"``);
- surprise (``duel_spec(surprise=...)``): -10 initiative, no defence until the side's first
  turn, a bonus effect on the first hit against it; a charge (``charge=...``): the side's first
  attack is one grade harder, with the damage modifier one step up and the weapon one size
  larger; a lost turn (disarm, overextend) skips the side's next turn but not its defences;
- the duel ends at death, unconsciousness or incapacitation of one side, else after
  ``duel.max_rounds`` rounds (timeout).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from ..errors import check_integer
from ..rng import as_generator
from ..rules import Rules, resolve
from ._common import RulesLike, section
from ._duel_kernel import Group, Results, run_group, tables
from .effects import PolicyLike, policy
from .fighters import Fighter

__all__ = ["DuelSpec", "duel_spec", "duel_sampler", "simulate"]

@dataclass(frozen=True)
class DuelSpec:
    """Two fighters, a round cap and the rules: everything a duel sampler needs (picklable)."""

    first: Fighter
    second: Fighter
    max_rounds: int
    rules: Rules
    policies: tuple = ()        # (first's, second's): ListPolicy or function
    surprised: int = -1         # side surprised (flat-footed, -10 initiative); -1 none
    charging: tuple = (False, False)   # sides that open with a charge


_SIDES = {"first": 0, "second": 1}


def _side(name: str, value: object) -> int:
    if value is None:
        return -1
    if value in (0, 1) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, str) and value in _SIDES:
        return _SIDES[value]
    raise ValueError(f"{name} must be 'first', 'second' or None, got {value!r}")


def duel_spec(first: Fighter, second: Fighter, *, max_rounds: int | None = None,
              policies: PolicyLike | tuple = None, surprise: str | None = None,
              charge: str | None = None, rules: RulesLike = None) -> DuelSpec:
    """Check and bundle a duel (percentile rules, combat; surprise and special effects).

    Parameters
    ----------
    first, second : Fighter
        The combatants (:func:`combatant`).
    max_rounds : int, optional
        Round cap (default ``[percentile.duel] max_rounds``).
    policies : policy or (policy, policy), optional
        How each side spends the special effects it wins (:func:`balance.percentile.policy`:
        a name of ``[percentile.special_effects.policies]``, a mapping of roles to effect keys,
        or a function); one policy for both sides, or a pair. Default ``"default"``.
    surprise : {"first", "second"}, optional
        The surprised side: -10 initiative, cannot defend until its first turn (when
        ``[percentile.surprise] flat_footed``, the bundled reading), and the first hit against
        it gains ``[percentile.surprise] bonus_effects`` special effect(s).
    charge : {"first", "second", "both"}, optional
        Side(s) whose first attack is a charge: one grade harder, damage modifier one step up
        (two for a quadruped), weapon size + 1.

    Raises
    ------
    ValueError
        A fighter that is not a :class:`Fighter`, a bad side name or policy.

    Examples
    --------
    >>> import balance as bl
    >>> f = bl.percentile.combatant(60)
    >>> bl.percentile.duel_spec(f, f, surprise="second", charge="first").charging
    (True, False)
    """
    rules = resolve(rules)
    for name, f in (("first", first), ("second", second)):
        if not isinstance(f, Fighter):
            raise ValueError(f"{name} must be a combatant (bl.percentile.combatant(70, ...)), "
                             f"got {f!r}")
    rounds = section(rules)["duel"]["max_rounds"] if max_rounds is None else max_rounds
    if isinstance(policies, (tuple, list)) and len(policies) == 2:
        pols = tuple(policy(p, rules) for p in policies)
    else:
        pols = (policy(cast(PolicyLike, policies), rules),) * 2  # policy() refuses a tuple
    if charge == "both":
        charging = (True, True)
    else:
        c = _side("charge", charge)
        charging = (c == 0, c == 1)
    return DuelSpec(first, second, check_integer("max_rounds", rounds, min=1), rules, pols,
                    _side("surprise", surprise), charging)


def duel_sampler(n: int, rng: np.random.Generator,
                 spec: DuelSpec) -> dict[str, np.ndarray | np.int64]:
    """Simulate ``n`` duels (Monte Carlo engine contract): additive count arrays.

    Returns
    -------
    dict
        ``wins`` (3,): first wins, second wins, timeout; ``kinds`` (2, 4): winner side x how
        the loser went out (index 1 death, 2 unconsciousness, 3 incapacitation);
        ``rounds`` (max_rounds + 1,): histogram of the round the duel ended (timeouts at
        max_rounds); ``first_serious`` (max_rounds + 1,): round of the first serious or major
        wound (0 = none); ``exchanges``, ``effects`` (2,) special effects won by each side,
        ``spent`` (2, effects) how often each side spent each effect of the table,
        ``serious_wounds`` (2,) suffered by each side, ``knockbacks``, ``rounds_sum``,
        ``rounds_sumsq``.
    """
    n = check_integer("n", n, min=0)
    if not isinstance(spec, DuelSpec):
        raise ValueError(f"spec must be a DuelSpec (bl.percentile.duel_spec(first, second)), "
                         f"got {spec!r}")
    return simulate(n, as_generator(rng, "rng"), spec)


def simulate(n: int, gen: np.random.Generator,
             spec: DuelSpec) -> dict[str, np.ndarray | np.int64]:
    """:func:`duel_sampler` on a generator-like ``gen`` (its ``integers`` draws every die:
    tests pass one that returns fixed dice)."""
    t = tables(spec)
    R = spec.max_rounds
    res = Results(n, R)
    roll = t.initiative
    surprise = section(spec.rules)["combat"]["surprise"]
    init0 = roll(n, gen) + spec.first.initiative_bonus + (surprise if spec.surprised == 0 else 0)
    init1 = roll(n, gen) + spec.second.initiative_bonus + (surprise if spec.surprised == 1
                                                            else 0)
    coin = gen.integers(0, 2, size=n)
    first = np.where(init0 == init1, coin, init1 > init0)  # the higher acts first, a tie: coin
    for side in (0, 1):
        run_group(Group(np.flatnonzero(first == side), side, t), t, R, res, gen)
    outcomes = res.outcomes.reshape(3, 4)
    r = np.arange(R + 1, dtype=np.int64)
    return {
        "wins": outcomes.sum(axis=1),
        "kinds": outcomes[:2].copy(),
        "rounds": res.rounds,
        "first_serious": res.first_serious,
        "exchanges": np.int64(res.exchanges), "effects": res.effects.astype(float),
        "spent": (res.spent if res.spent is not None else np.zeros(
            (2, len(section(spec.rules)["special_effects"]["table"])), dtype=np.int64)),
        "serious_wounds": res.serious, "knockbacks": np.int64(res.knockbacks),
        "rounds_sum": np.int64(res.rounds @ r), "rounds_sumsq": np.int64(res.rounds @ (r * r)),
    }
