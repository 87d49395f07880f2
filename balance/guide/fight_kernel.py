"""The vectorised fight kernel of :mod:`balance.fights` (GM guide, checks and attacks;
core rules, dying and critical injuries).

The state is one int32 per combatant and fight, ``(HP - 1) * 256 + position``, shaped
``(combatants, fights)``; Python loops run over rounds, chunks of fights and turn slots only.
Fights that end leave the state at once and their outcome goes to the accumulators, so a round
costs in proportion to the fights still running. Hits, critical hits and damage are table
lookups (per attacker, target and die face), computed once per call.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..rules import Rules

__all__ = ["FightSpec", "fight_sampler", "WEAKEST", "RANDOM"]

WEAKEST, RANDOM = 0, 1
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

    Each round draws its dice for every fight still running, then plays the round a chunk of
    :data:`_CHUNK` fights at a time (so that a chunk's state stays in the CPU cache). A
    combatant's state is one int32, ``(HP - 1) * 256 + position``: read as unsigned it is the
    "weakest" sort key, with those down (HP <= 0) above every standing one. The only Python
    loops run over rounds, chunks and turn slots.

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
        critical-injury roll). Means and their spreads come from the histograms. One hit deals
        at most :data:`_MAX_HIT` damage (far above any HP the guide allows).

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
    plan = _Plan(spec)
    order = _order(spec, n, rng)                                         # (slots, fights)
    tied = np.ascontiguousarray(order[plan.tied_slots], dtype=np.int32)  # attacker of tied slots
    del order
    state = np.repeat(((spec.hp.astype(np.int32) - 1) * _SHIFT
                       + np.arange(c, dtype=np.int32))[:, None], n, axis=1)  # (C, fights)
    below = np.zeros((p, n), dtype=np.int32)        # rounds each PC ended below 0 HP
    n_groups = len(plan.tables)
    for rnd in range(1, spec.max_rounds + 1):
        m = state.shape[1]
        d20 = rng.integers(1, spec.die + 1, size=(c, plan.max_t, m), dtype=np.int16)
        rolls = d20.astype(np.int32) * c
        u = rng.random((c, plan.max_t, n_groups, m))
        draws = rng.integers(0, 1 << 22, size=(c, c, m), dtype=np.int32).view(np.uint32) \
            if plan.random_policy else None
        last = rnd == spec.max_rounds
        new_state, new_tied = np.empty_like(state), np.empty_like(tied)
        new_below = np.empty_like(below)
        kept, ended = 0, []
        for lo in range(0, m, _CHUNK):
            hi = min(lo + _CHUNK, m)
            k = np.ascontiguousarray(state[:, lo:hi])
            tc = tied[:, lo:hi]
            _play_chunk(k, tc, rolls[..., lo:hi], u[..., lo:hi],
                        None if draws is None else draws[..., lo:hi], plan)
            bc = below[:, lo:hi] + (k[:p] < -_SHIFT)   # HP < 0 at the end of the round
            party_up = k[:p].max(axis=0) >= 0
            creatures_up = k[p:].max(axis=0) >= 0
            live = party_up & creatures_up
            if last:
                live[:] = False
            keep = np.flatnonzero(live)
            nk = keep.size
            if nk:
                new_state[:, kept:kept + nk] = k.take(keep, axis=1)
                new_tied[:, kept:kept + nk] = tc.take(keep, axis=1)
                new_below[:, kept:kept + nk] = bc.take(keep, axis=1)
                kept += nk
            if nk < hi - lo:
                done = np.flatnonzero(~live)
                ended.append((k.take(done, axis=1), bc.take(done, axis=1),
                              party_up[done], creatures_up[done]))
        if ended:
            ks, bs, pu, cu = (np.concatenate(x, axis=-1) for x in zip(*ended))
            hp = (ks >> 8) + 1
            dying = np.minimum(bs * spec.seconds_per_round, spec.automatic_death)
            _record(out, spec, rnd, hp.T, dying.T, pu, cu, death_probability)
        state, tied, below = new_state[:, :kept], new_tied[:, :kept], new_below[:, :kept]
        if kept == 0:
            break
    return out


#: fights played together within a round (a chunk's state stays in the CPU cache)
_CHUNK = 1 << 14
#: a candidate that cannot be targeted (read unsigned; the low byte keeps its position)
_DOWN = np.uint32(0xFFFFFF00)
#: damage of one hit is capped here, so that (HP - 1) * 256 stays an int32 (HP <= 10^6)
_MAX_HIT = 1 << 22


class _Plan:
    """What the turn loop reads, computed once per call: who acts in each slot, on which side,
    the hit outcome of every (attacker, target, die face) and the damage tables."""

    def __init__(self, spec: FightSpec) -> None:
        c, p = spec.hp.size, spec.pcs
        self.c, self.p = c, p
        self.die = spec.die
        init = spec.init
        ranked = np.argsort(-init, kind="stable")
        ties = spec.random_ties and np.unique(init).size < c
        self.attacker: list[int] = []   # >= 0: the combatant; < 0: -1 - row of `tied`
        self.tied_slots: list[int] = []
        self.side: list[int] = []       # 0, 1, or -1 when the slot's tie group holds both sides
        sorted_init = init[ranked]
        for s in range(c):
            group = np.flatnonzero(init == sorted_init[s])
            if ties and group.size > 1:
                self.attacker.append(-1 - len(self.tied_slots))
                self.tied_slots.append(s)
            else:
                self.attacker.append(int(ranked[s]))
            sides = np.unique(spec.side[group])
            self.side.append(int(sides[0]) if sides.size == 1 else -1)
        self.targets = spec.targets.astype(np.int32)
        self.max_t = int(spec.targets.max())
        self.policy = tuple(int(x) for x in spec.policy)
        self.random_policy = RANDOM in self.policy
        self.sides = spec.side.astype(np.int32)[:, None]
        self.col = np.arange(c, dtype=np.uint32)[:, None]
        # outcome of attacker a against target t on face f: 0 miss, 1 hit, 2 critical hit
        need = spec.defences[:, spec.attack_defence].T - spec.attack[:, None] - spec.adjust
        faces = np.arange(spec.die + 1)
        crit = faces == spec.critical_success
        hit = crit | ((faces != spec.critical_failure) & (faces[None, None, :] >= need[..., None]))
        hit[..., 0] = False
        outcome = (hit.astype(np.int32) + (hit & crit)).transpose(0, 2, 1)   # (a, face, t)
        self.outcome = np.ascontiguousarray(outcome).ravel()   # (a * (die + 1) + face) * C + t
        self.outcome_of = [self.outcome[i * outcome[0].size:(i + 1) * outcome[0].size]
                           for i in range(c)]
        self.tables = _damage_tables(spec)
        self.single = len(self.tables) == 1
        self.minimum_damage = spec.minimum_damage
        if self.single:  # each attacker's three rows (miss, hit, critical hit), as views
            table, sizes, width = self.tables[0]
            self.table_of = [table[3 * i * width:3 * (i + 1) * width] for i in range(c)]
            self.sizes_of = [sizes[3 * i:3 * (i + 1)] for i in range(c)]
        # the combatant whose tables a slot reads: its attacker, or any member of a tie group
        # whose members attack alike (-1 when they differ: each fight looks up its attacker's)
        self.profile: list[int] = []
        for s in range(c):
            if self.attacker[s] >= 0:
                self.profile.append(self.attacker[s])
                continue
            group = np.flatnonzero(init == sorted_init[s])
            alike = self.single and all(
                np.array_equal(self.outcome_of[i], self.outcome_of[group[0]])
                and np.array_equal(self.table_of[i], self.table_of[group[0]])
                and np.array_equal(self.sizes_of[i], self.sizes_of[group[0]])
                and self.targets[i] == self.targets[group[0]] for i in group)
            self.profile.append(int(group[0]) if alike else -1)


def _play_chunk(k: np.ndarray, tied: np.ndarray, rolls: np.ndarray, u: np.ndarray,
                draws: np.ndarray | None, plan: _Plan) -> None:
    """One round of a chunk of fights, every slot's attacks applied to ``k`` in place.

    ``rolls`` are the round's die faces times the number of combatants (the outcome table's
    stride), ``u`` its uniform draws for the damage tables, ``draws`` the random targeting keys.
    """
    c, p, w = plan.c, plan.p, k.shape[1]
    flat = k.reshape(-1)
    ku = k.view(np.uint32)
    local = np.arange(w, dtype=np.int32)
    rows = np.arange(c, dtype=np.int32)[:, None]
    for s in range(c):
        a, like = plan.attacker[s], plan.profile[s]
        if a >= 0:
            av: int | np.ndarray = a
            acting = k[a] >= 0
        else:
            av = tied[-1 - a]
            acting = flat.take(av * w + local) >= 0
        if not acting.any():
            continue
        side_s = plan.side[s]
        if side_s >= 0:
            r0, r1 = (p, c) if side_s == 0 else (0, p)
            if plan.policy[side_s] == RANDOM:
                assert draws is not None
                cand = np.where(k[r0:r1] >= 0, draws[s, r0:r1] * np.uint32(_SHIFT)
                                + plan.col[r0:r1], _DOWN + plan.col[r0:r1])
                own = True
            else:
                cand, own = ku[r0:r1], False
        else:  # a tie group with both sides: each fight's attacker has its own foes
            r0, r1 = 0, c
            side_a = plan.sides.take(av)
            cand = ku
            if draws is not None:
                rand = np.where(k >= 0, draws[s] * np.uint32(_SHIFT) + plan.col,
                                _DOWN + plan.col)
                pol = np.asarray(plan.policy, dtype=np.int32).take(side_a)
                cand = rand if min(plan.policy) == RANDOM else \
                    np.where(pol == RANDOM, rand, ku)
            cand = np.where(plan.sides == side_a, _DOWN + plan.col, cand)
            own = True
        t = local  # each target picked is masked for the next ones (``targets`` > 1)
        for j in range(plan.max_t):
            if j:
                if like >= 0 and plan.targets[like] <= j:
                    break
                if not own:
                    cand, own = cand.copy(), True
                cand.reshape(-1)[(t - r0) * w + local] = _DOWN + t.astype(np.uint32)
            best = cand.min(axis=0).view(np.int32)
            has = acting & (best >= 0)
            if j and like < 0:
                has &= plan.targets.take(av) > j
            if not has.any():
                break
            t = best & 0xFF
            if like >= 0:
                outcome = plan.outcome_of[like].take(rolls[s, j] + t)
            else:
                outcome = plan.outcome.take(av * plan.outcome_of[0].size + rolls[s, j] + t)
            outcome *= has
            if plan.single and like >= 0:
                idx = (u[s, j, 0] * plan.sizes_of[like].take(outcome)).astype(np.int32)
                dmg = plan.table_of[like].take(outcome * plan.tables[0][2] + idx)
            else:
                dmg = _damage(plan, av * 3 + outcome, outcome, u[s, j])
            k[r0:r1] -= dmg * (t == rows[r0:r1])


def _damage(plan: _Plan, sel: np.ndarray, outcome: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Damage (times 256) of each attack: row ``sel`` = attacker * 3 + outcome."""
    if plan.single:
        table, sizes, width = plan.tables[0]
        return table.take(sel * width + (u[0] * sizes.take(sel)).astype(np.int32))
    total = None
    for g, (table, sizes, width) in enumerate(plan.tables):
        part = table.take(sel * width + (u[g] * sizes.take(sel)).astype(np.int32))
        total = part if total is None else total + part
    assert total is not None
    dmg = np.minimum(np.maximum(total, plan.minimum_damage), _MAX_HIT) * (outcome > 0)
    return (dmg * _SHIFT).astype(np.int32)


#: largest table of equiprobable outcomes for one group of damage dice
_TABLE_LIMIT = 1 << 16


def _outcomes(faces: list[int]) -> np.ndarray:
    """Totals of every ordered outcome of these dice (equiprobable), as int32."""
    grid: np.ndarray = np.zeros(1, dtype=np.int32)
    for f in faces:
        grid = (grid[:, None] + np.arange(1, f + 1, dtype=np.int32)).ravel()
    return grid


def _damage_tables(spec: FightSpec) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """Damage of each (combatant, outcome) row as lookup tables of equiprobable outcomes.

    Row ``combatant * 3 + outcome``: outcome 0 a miss (no damage), 1 a hit, 2 a critical hit
    (the dice rolled ``crit_dice`` times). A row's dice are cut into groups whose outcome
    tables hold at most ``_TABLE_LIMIT`` entries; a uniform draw per group picks an outcome, so
    the sampled total has exactly the dice's distribution. The damage bonus is folded into the
    first group; with one group, so are the minimum damage, the cap :data:`_MAX_HIT` and the
    factor 256 of the state. Returns, per group, the flat table ``(rows * width,)``, the size
    of each row's table and the width.
    """
    rows: list[list[np.ndarray] | None] = []
    for i in range(spec.hp.size):
        base = [int(f) for f in spec.faces[i] if f > 0]
        rows.append(None)                       # a miss
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
            tables = [_outcomes(g).astype(np.int64) for g in groups]
            tables[0] += int(spec.damage_bonus[i])
            rows.append(tables)
    n_groups = max(len(r) for r in rows if r is not None)
    out = []
    for g in range(n_groups):
        parts = [np.zeros(1, dtype=np.int64) if r is None or g >= len(r) else r[g] for r in rows]
        if n_groups == 1:
            parts = [np.zeros(1, dtype=np.int64) if r is None else
                     np.clip(part, spec.minimum_damage, _MAX_HIT) * _SHIFT
                     for r, part in zip(rows, parts)]
        width = max(part.size for part in parts)
        flat = np.zeros((len(parts), width), dtype=np.int32 if n_groups == 1 else np.int64)
        for i, part in enumerate(parts):
            flat[i, :part.size] = part
        out.append((flat.ravel(), np.array([part.size for part in parts], dtype=np.int32), width))
    return out


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
