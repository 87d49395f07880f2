"""The vectorised fight kernel of :mod:`balance.fights` (RULES.md §2.3, dying §1.2).

State arrays are shaped ``(fights, combatants)``; Python loops run over rounds and turn slots
only. Fights that end leave the state at once and their outcome goes to the accumulators, so
a round costs in proportion to the fights still running.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .rules import Rules

__all__ = ["FightSpec", "fight_sampler", "WEAKEST", "RANDOM"]

WEAKEST, RANDOM = 0, 1
_BIG = np.int64(1 << 40)         # key of a combatant that cannot be targeted
_SHIFT = 1 << 8         # key = value * _SHIFT + position (at most 256 combatants)


@dataclass(frozen=True, eq=False)
class FightSpec:
    """A fight as plain arrays (picklable). Build it with :func:`balance.fights.fight_spec`.

    Combatants ``0..pcs-1`` are the party, the rest the creatures.
    """

    names: tuple[str, ...]
    pcs: int
    side: np.ndarray          # (C,) 0 party, 1 creatures
    hp: np.ndarray            # (C,) max HP
    defences: np.ndarray      # (C, D) every defence of every combatant
    attack_defence: np.ndarray  # (C,) index into defences used by the combatant's attack
    attack: np.ndarray        # (C,) attack modifier
    adjust: np.ndarray        # (C, C) roll adjustment of attacker i against target j
    faces: np.ndarray         # (C, K) faces of each damage die (0 = none)
    damage_bonus: np.ndarray  # (C,)
    targets: np.ndarray       # (C,) targets per attack
    init: np.ndarray          # (C,)
    policy: tuple[int, int]   # targeting of the party, of the creatures
    max_rounds: int
    seconds_per_round: int
    automatic_death: int
    die: int
    critical_success: int
    critical_failure: int
    crit_dice: int
    minimum_damage: int
    random_ties: bool
    wounds: int
    rules: Rules = field(repr=False)


def _order(spec: FightSpec, n: int, rng: np.random.Generator) -> np.ndarray:
    """Turn order, shaped (slots, fights): highest Init first; ties at random per fight."""
    c = spec.init.size
    if spec.random_ties and np.unique(spec.init).size < c:
        key = -spec.init[:, None] + rng.random((c, n)) * 0.5
        return np.argsort(key, axis=0)
    return np.repeat(np.argsort(-spec.init, kind="stable")[:, None], n, axis=1)


def fight_sampler(n: int, rng: np.random.Generator, spec: FightSpec) -> dict[str, np.ndarray]:
    """Simulate ``n`` fights of ``spec``; additive accumulators (Monte Carlo engine contract).

    Keys: ``party_wins``, ``creature_wins``, ``draws`` (round limit), ``rounds`` (histogram
    0..max_rounds), ``rounds_sum``/``rounds_sumsq``, ``knocked_out`` / ``dying`` / ``dead``
    (histograms of the number of PCs at fight end: HP <= 0, HP < 0, dead by the 175 s clock),
    ``ko_sum``/``ko_sumsq``, ``ko_by_pc``/``dying_by_pc``/``dead_by_pc`` (fights each PC ended so),
    ``dying_seconds`` (histogram over dying PCs, 0..automatic_death), ``dying_seconds_sum``,
    ``expected_deaths_sum``/``expected_deaths_sumsq`` (expected deaths per fight if every dying
    PC is stabilised at fight end: the core rules' critical-injury roll), ``creatures_down_sum``.

    The state is the (fights, combatants) table of HP held combatant-major (its transpose),
    so that one combatant's column over all fights is contiguous.
    """
    from .injuries import death_probability

    c, p = spec.hp.size, spec.pcs
    out = _empty(spec)
    if n == 0:
        return out
    hp = np.repeat(spec.hp[:, None], n, axis=1).astype(np.int32)       # (C, fights)
    col = np.arange(c, dtype=np.int64)[:, None]
    key = _weakest_key(hp, col)                                         # (C, fights)
    order = _order(spec, n, rng)                                        # (slots, fights)
    dying = np.zeros((p, n), dtype=np.int32)                            # seconds below 0 HP
    faces = np.tile(spec.faces, (1, spec.crit_dice))                    # (C, K * crit)
    kdice = spec.faces.shape[1]
    ncols = faces.shape[1]
    max_t = int(spec.targets.max())
    adjust = spec.adjust.ravel().astype(np.int64)
    defences = spec.defences.ravel().astype(np.int64)
    ndef = spec.defences.shape[1]
    side = spec.side.astype(np.int8)
    random_policy = RANDOM in spec.policy
    policy = np.asarray(spec.policy, dtype=np.int8)
    all_random = bool((policy == RANDOM).all())
    for rnd in range(1, spec.max_rounds + 1):
        m = hp.shape[1]
        rows = np.arange(m, dtype=np.int64)
        d20 = rng.integers(1, spec.die + 1, size=(c, max_t, m), dtype=np.int16)
        u = rng.random((c, max_t, ncols, m), dtype=np.float32)
        draws = rng.integers(0, 1 << 20, size=(c, c, m), dtype=np.int32) if random_policy else None
        hp_flat, key_flat = hp.reshape(-1), key.reshape(-1)
        for s in range(c):
            a = order[s]
            acting = hp_flat.take(a * m + rows) > 0
            side_a = side.take(a)
            if random_policy:  # a fresh random key per slot; "weakest" actors keep theirs
                rkey = np.where(hp > 0, draws[s].astype(np.int64), _BIG) * _SHIFT + col
                if not all_random:
                    rkey = np.where(policy.take(side_a) == RANDOM, rkey, key)
            skip = None
            for j in range(max_t):
                kk = rkey if random_policy else key
                if skip is not None:
                    kk = kk.copy()
                    kk.reshape(-1)[skip] = _BIG * _SHIFT
                best_pc = kk[:p].min(axis=0)
                best_cr = kk[p:].min(axis=0)
                best = np.where(side_a == 0, best_cr, best_pc)
                t = best & (_SHIFT - 1)
                has = acting & (best < _BIG * _SHIFT) & (spec.targets.take(a) > j)
                if not has.any():
                    break
                flat_t = t * m + rows
                skip = flat_t if skip is None else np.concatenate([skip, flat_t])
                roll = d20[s, j]
                mod = spec.attack.take(a) + adjust.take(a * c + t)
                need = defences.take(t * ndef + spec.attack_defence.take(a))
                crit = roll == spec.critical_success
                hit = has & (crit | ((roll != spec.critical_failure) & (roll + mod >= need)))
                dmg = spec.damage_bonus.take(a).astype(np.int32)
                for k in range(ncols):
                    fk = faces[:, k].take(a)
                    pips = (u[s, j, k] * fk).astype(np.int32) + 1
                    use = fk > 0 if k < kdice else (fk > 0) & crit
                    dmg = dmg + np.where(use, pips, 0)
                dmg = np.maximum(dmg, spec.minimum_damage) * hit
                new_hp = hp_flat.take(flat_t) - dmg
                hp_flat[flat_t] = new_hp
                key_flat[flat_t] = np.where(new_hp > 0, new_hp.astype(np.int64), _BIG) * _SHIFT + t
        # end of round: the dying clock runs for every PC below 0 HP (a whole round, assumed)
        below = hp[:p] < 0
        dying = np.where(below, np.minimum(dying + spec.seconds_per_round,
                                           spec.automatic_death), dying)
        party_up = (hp[:p] > 0).any(axis=0)
        creatures_up = (hp[p:] > 0).any(axis=0)
        done = ~party_up | ~creatures_up
        if rnd == spec.max_rounds:
            done[:] = True
        if done.any():
            _record(out, spec, rnd, hp[:, done].T, dying[:, done].T, party_up[done],
                    creatures_up[done], death_probability)
            keep = ~done
            hp, key, dying, order = hp[:, keep], key[:, keep], dying[:, keep], order[:, keep]
            hp, key = np.ascontiguousarray(hp), np.ascontiguousarray(key)
        if hp.shape[1] == 0:
            break
    return out


def _weakest_key(hp: np.ndarray, col: np.ndarray) -> np.ndarray:
    """Sort key of "weakest": current HP (down ones last), then position, in one int64."""
    return np.where(hp > 0, hp.astype(np.int64), _BIG) * _SHIFT + col


def _empty(spec: FightSpec) -> dict[str, np.ndarray]:
    p = spec.pcs
    z = lambda *shape: np.zeros(shape, dtype=np.int64)  # noqa: E731
    return {
        "party_wins": z(), "creature_wins": z(), "draws": z(),
        "rounds": z(spec.max_rounds + 1), "rounds_sum": z(), "rounds_sumsq": z(),
        "knocked_out": z(p + 1), "dying": z(p + 1), "dead": z(p + 1),
        "ko_sum": z(), "ko_sumsq": z(),
        "ko_by_pc": z(p), "dying_by_pc": z(p), "dead_by_pc": z(p),
        "dying_seconds": z(spec.automatic_death + 1), "dying_seconds_sum": z(),
        "expected_deaths_sum": np.zeros((), dtype=np.float64),
        "expected_deaths_sumsq": np.zeros((), dtype=np.float64),
        "creatures_down_sum": z(),
    }


def _record(out: dict, spec: FightSpec, rnd: int, hp: np.ndarray, dying: np.ndarray,
            party_up: np.ndarray, creatures_up: np.ndarray, death_probability) -> None:
    p = spec.pcs
    m = hp.shape[0]
    out["party_wins"] += np.count_nonzero(party_up & ~creatures_up)
    out["creature_wins"] += np.count_nonzero(~party_up)
    out["draws"] += np.count_nonzero(party_up & creatures_up)
    out["rounds"][rnd] += m
    out["rounds_sum"] += rnd * m
    out["rounds_sumsq"] += rnd * rnd * m
    ko = hp[:, :p] <= 0
    below = hp[:, :p] < 0
    dead = below & (dying >= spec.automatic_death)
    n_ko = ko.sum(axis=1)
    out["knocked_out"] += np.bincount(n_ko, minlength=p + 1)
    out["dying"] += np.bincount(below.sum(axis=1), minlength=p + 1)
    out["dead"] += np.bincount(dead.sum(axis=1), minlength=p + 1)
    out["ko_sum"] += n_ko.sum()
    out["ko_sumsq"] += (n_ko.astype(np.int64) ** 2).sum()
    out["ko_by_pc"] += ko.sum(axis=0)
    out["dying_by_pc"] += below.sum(axis=0)
    out["dead_by_pc"] += dead.sum(axis=0)
    secs = dying[below]
    out["dying_seconds"] += np.bincount(secs, minlength=spec.automatic_death + 1)
    out["dying_seconds_sum"] += secs.sum()
    prob = np.zeros(below.shape)
    if below.any():
        prob[below] = death_probability(secs, -hp[:, :p][below], spec.wounds, rules=spec.rules)
    per_fight = prob.sum(axis=1)
    out["expected_deaths_sum"] += per_fight.sum()
    out["expected_deaths_sumsq"] += (per_fight ** 2).sum()
    out["creatures_down_sum"] += (hp[:, p:] <= 0).sum()
