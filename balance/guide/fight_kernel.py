"""The vectorised fight kernel of :mod:`balance.fights` (GM guide, checks and attacks;
core rules, dying and critical injuries).

State arrays are shaped ``(fights, combatants)``; Python loops run over rounds and turn slots
only. Fights that end leave the state at once and their outcome goes to the accumulators, so
a round costs in proportion to the fights still running.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..rules import Rules

__all__ = ["FightSpec", "fight_sampler", "WEAKEST", "RANDOM"]

WEAKEST, RANDOM = 0, 1
_BIG = np.int32((1 << 23) - 1)   # key of a combatant that cannot be targeted (HP stays below)
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
    """Simulate ``n`` fights of ``spec``, as additive accumulators for the engine (GM guide, checks and attacks; core rules, dying and critical injuries).

    The state is the (fights, combatants) table of HP held combatant-major (its transpose), so
    that one combatant's column over all fights is contiguous; the only Python loops run over
    rounds and turn slots.

    Parameters
    ----------
    n : int
        Number of fights.
    rng : numpy.random.Generator
        The stream the engine hands this block.
    spec : FightSpec
        The fight, from ``balance.guide.fights.fight_spec`` (validated there).

    Returns
    -------
    dict of str to numpy.ndarray
        ``party_wins``, ``creature_wins``, ``draws`` (round limit), ``rounds`` (histogram
        0..max_rounds), ``knocked_out`` / ``dying`` / ``dead`` (histograms of the number of PCs at
        fight end: HP <= 0, HP < 0, dead by the automatic-death clock), ``ko_by_pc`` /
        ``dying_by_pc`` / ``dead_by_pc`` (fights each PC ended so), ``dying_seconds`` (histogram
        over dying PCs, 0..automatic_death), ``expected_deaths_sum`` / ``expected_deaths_sumsq``
        (expected deaths per fight if every dying PC is stabilised at fight end: the core rules'
        critical-injury roll). Means and their spreads come from the histograms.

    Raises
    ------
    ValueError
        Only from numpy for a negative ``n``; ``fight_spec`` checks the fight (and refuses one
        in which a side can never damage the other).

    Examples
    --------
    >>> import numpy as np
    >>> import balance as bl
    >>> out = fight_sampler(100, np.random.default_rng(1), bl.fights.fight_spec(["Goblin", "Goblin"]))
    >>> int(out["party_wins"].sum() + out["creature_wins"].sum() + out["draws"].sum())
    100
    """
    from ..core.injuries import death_probability

    c, p = spec.hp.size, spec.pcs
    out = _empty(spec)
    if n == 0:
        return out
    hp = np.repeat(spec.hp[:, None], n, axis=1).astype(np.int32)       # (C, fights)
    col = np.arange(c, dtype=np.int32)[:, None]
    key = _weakest_key(hp, col)                                         # (C, fights)
    order = _order(spec, n, rng).astype(np.int32 if c * n < 2**31 else np.int64)  # (slots, fights)
    dying = np.zeros((p, n), dtype=np.int32)                            # seconds below 0 HP
    tables = _damage_tables(spec)                                       # [(flat, sizes, L)]
    max_t = int(spec.targets.max())
    # roll needed on the die by attacker a against target t: defence - attack - adjustment
    need = (spec.defences[:, spec.attack_defence].T - spec.attack[:, None]
            - spec.adjust).ravel().astype(np.int32)                     # (C * C,)
    targets = spec.targets.astype(np.int32)
    side = spec.side.astype(np.int8)
    random_policy = RANDOM in spec.policy
    policy = np.asarray(spec.policy, dtype=np.int8)
    all_random = bool((policy == RANDOM).all())
    for rnd in range(1, spec.max_rounds + 1):
        m = hp.shape[1]
        rows = np.arange(m, dtype=order.dtype)
        d20 = rng.integers(1, spec.die + 1, size=(c, max_t, m), dtype=np.int16)
        u = rng.random((c, max_t, len(tables), m))
        draws = rng.integers(0, 1 << 22, size=(c, c, m), dtype=np.int32) if random_policy else None
        hp_flat, key_flat = hp.reshape(-1), key.reshape(-1)
        for s in range(c):
            a = order[s]
            acting = hp_flat.take(a * m + rows) > 0
            side_a = side.take(a)
            if random_policy:  # a fresh random key per slot; "weakest" actors keep theirs
                assert draws is not None
                rkey = np.where(hp > 0, draws[s], _BIG) * _SHIFT + col
                if not all_random:
                    rkey = np.where(policy.take(side_a) == RANDOM, rkey, key)
            skip = None
            for j in range(max_t):
                kk = rkey if random_policy else key
                if skip is not None:
                    kk = kk.copy()
                    kk.reshape(-1)[skip] = _BIG * _SHIFT
                best = np.where(side_a == 0, kk[p:].min(axis=0), kk[:p].min(axis=0))
                has = acting & (best < _BIG * _SHIFT)
                if j:
                    has &= targets.take(a) > j
                if not has.any():
                    break
                t = best & (_SHIFT - 1)
                flat_t = t * m + rows
                skip = flat_t if skip is None else np.concatenate([skip, flat_t])
                roll = d20[s, j]
                crit = roll == spec.critical_success
                hit = has & (crit | ((roll != spec.critical_failure)
                                     & (roll >= need.take(a * c + t))))
                sel = a * 2 + crit                       # (combatant, critical?) row
                dmg = None
                for g, (flat, sizes, width) in enumerate(tables):
                    idx = (u[s, j, g] * sizes.take(sel)).astype(np.int32)
                    part = flat.take(sel * width + idx)
                    dmg = part if dmg is None else dmg + part
                assert dmg is not None  # every combatant has a damage table (0 for no dice)
                dmg = np.maximum(dmg, spec.minimum_damage) * hit
                new_hp = hp_flat.take(flat_t) - dmg
                hp_flat[flat_t] = new_hp
                key_flat[flat_t] = np.where(new_hp > 0, new_hp, _BIG) * _SHIFT + t
        # end of round: the dying clock runs for every PC below 0 HP (a whole round, assumed)
        below = hp[:p] < 0
        dying = np.where(below, np.minimum(dying + spec.seconds_per_round,
                                           spec.automatic_death), dying)
        party_up = np.asarray((hp[:p] > 0).any(axis=0))
        creatures_up = np.asarray((hp[p:] > 0).any(axis=0))
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


#: largest table of equiprobable outcomes for one group of damage dice
_TABLE_LIMIT = 1 << 16


def _outcomes(faces: list[int]) -> np.ndarray:
    """Totals of every ordered outcome of these dice (equiprobable), as int32."""
    grid: np.ndarray = np.zeros(1, dtype=np.int32)
    for f in faces:
        grid = (grid[:, None] + np.arange(1, f + 1, dtype=np.int32)).ravel()
    return grid


def _damage_tables(spec: FightSpec) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """Damage of each (combatant, critical?) row as lookup tables of equiprobable outcomes.

    The dice of a row (rolled ``crit_dice`` times on a critical hit) are cut into groups whose
    outcome tables hold at most ``_TABLE_LIMIT`` entries; a uniform draw per group picks an
    outcome, so the sampled total has exactly the dice's distribution. The damage bonus is
    folded into the first group. Returns, per group, the flat table ``(rows * width,)``, the
    size of each row's table and the width.
    """
    rows = []
    for i in range(spec.hp.size):
        base = [int(f) for f in spec.faces[i] if f > 0]
        for crit in (False, True):
            dice = base * (spec.crit_dice if crit else 1)
            groups: list[list[int]] = []
            current: list[int] = []
            for f in dice:
                if current and np.prod(current + [f], dtype=np.float64) > _TABLE_LIMIT:
                    groups.append(current)
                    current = []
                current.append(f)
            groups.append(current)
            rows.append([_outcomes(g) for g in groups])
    n_groups = max(len(r) for r in rows)
    out = []
    for g in range(n_groups):
        parts = [r[g] if g < len(r) else np.zeros(1, dtype=np.int32) for r in rows]
        if g == 0:
            parts = [p + np.int32(spec.damage_bonus[i // 2]) for i, p in enumerate(parts)]
        width = max(p.size for p in parts)
        flat = np.zeros((len(parts), width), dtype=np.int32)
        for i, p in enumerate(parts):
            flat[i, :p.size] = p
        out.append((flat.ravel(), np.array([p.size for p in parts], dtype=np.int32), width))
    return out


def _weakest_key(hp: np.ndarray, col: np.ndarray) -> np.ndarray:
    """Sort key of "weakest": current HP (down ones last), then position, in one int64."""
    return np.where(hp > 0, hp, _BIG) * _SHIFT + col


def _empty(spec: FightSpec) -> dict[str, np.ndarray]:
    p = spec.pcs
    z = lambda *shape: np.zeros(shape, dtype=np.int64)  # noqa: E731
    return {
        "party_wins": z(), "creature_wins": z(), "draws": z(),
        "rounds": z(spec.max_rounds + 1),
        "knocked_out": z(p + 1), "dying": z(p + 1), "dead": z(p + 1),
        "ko_by_pc": z(p), "dying_by_pc": z(p), "dead_by_pc": z(p),
        "dying_seconds": z(spec.automatic_death + 1),
        "expected_deaths_sum": np.zeros((), dtype=np.float64),
        "expected_deaths_sumsq": np.zeros((), dtype=np.float64),
    }


def _record(out: dict, spec: FightSpec, rnd: int, hp: np.ndarray, dying: np.ndarray,
            party_up: np.ndarray, creatures_up: np.ndarray, death_probability) -> None:
    p = spec.pcs
    m = hp.shape[0]
    out["party_wins"] += np.count_nonzero(party_up & ~creatures_up)
    out["creature_wins"] += np.count_nonzero(~party_up)
    out["draws"] += np.count_nonzero(party_up & creatures_up)
    out["rounds"][rnd] += m
    ko = hp[:, :p] <= 0
    below = hp[:, :p] < 0
    dead = below & (dying >= spec.automatic_death)
    n_ko = ko.sum(axis=1)
    out["knocked_out"] += np.bincount(n_ko, minlength=p + 1)
    out["dying"] += np.bincount(below.sum(axis=1), minlength=p + 1)
    out["dead"] += np.bincount(dead.sum(axis=1), minlength=p + 1)
    out["ko_by_pc"] += ko.sum(axis=0)
    out["dying_by_pc"] += below.sum(axis=0)
    out["dead_by_pc"] += dead.sum(axis=0)
    secs = dying[below]
    out["dying_seconds"] += np.bincount(secs, minlength=spec.automatic_death + 1)
    prob = np.zeros(below.shape)
    if below.any():
        prob[below] = death_probability(secs, -hp[:, :p][below], spec.wounds, rules=spec.rules)
    per_fight = prob.sum(axis=1)
    out["expected_deaths_sum"] += per_fight.sum()
    out["expected_deaths_sumsq"] += (per_fight ** 2).sum()


def python_fights(n: int, rnd, spec: FightSpec) -> dict[str, int]:
    """The same fights in a plain Python loop with ``rnd.randint`` (a :class:`random.Random`).

    The benchmark's pure-Python comparison, and an independent check of :func:`fight_sampler`
    (tests compare the two statistically). Returns party_wins, creature_wins, draws, rounds_sum.
    """
    c, p = spec.hp.size, spec.pcs
    faces = [[int(f) for f in row if f > 0] for row in spec.faces]
    out = {"party_wins": 0, "creature_wins": 0, "draws": 0, "rounds_sum": 0}
    for _ in range(n):
        hp = [int(h) for h in spec.hp]
        tie = [rnd.random() if spec.random_ties else 0.0 for _ in range(c)]
        order = sorted(range(c), key=lambda i: (-int(spec.init[i]), tie[i], i))
        rounds = spec.max_rounds
        for r in range(1, spec.max_rounds + 1):
            for a in order:
                if hp[a] <= 0:
                    continue
                foes = [i for i in range(c) if spec.side[i] != spec.side[a] and hp[i] > 0]
                if spec.policy[int(spec.side[a])] == WEAKEST:
                    foes.sort(key=lambda i: (hp[i], i))
                else:
                    rnd.shuffle(foes)
                for t in foes[:int(spec.targets[a])]:
                    roll = rnd.randint(1, spec.die)
                    crit = roll == spec.critical_success
                    need = (spec.defences[t, spec.attack_defence[a]] - spec.attack[a]
                            - spec.adjust[a, t])
                    if crit or (roll != spec.critical_failure and roll >= need):
                        times = spec.crit_dice if crit else 1
                        dmg = sum(rnd.randint(1, f) for f in faces[a] * times)
                        hp[t] -= max(dmg + int(spec.damage_bonus[a]), spec.minimum_damage)
            party_up = any(h > 0 for h in hp[:p])
            foes_up = any(h > 0 for h in hp[p:])
            if not (party_up and foes_up):
                rounds = r
                break
        out["rounds_sum"] += rounds
        if party_up and not foes_up:
            out["party_wins"] += 1
        elif not party_up:
            out["creature_wins"] += 1
        else:
            out["draws"] += 1
    return out
