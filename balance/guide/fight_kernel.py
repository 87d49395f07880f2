"""The fight kernel of :mod:`balance.fights` (GM guide, checks and attacks; core rules, dying
and critical injuries).

Each fight is played to its end by a compiled turn loop (:mod:`._fight_loop`) that draws only
the dice the fight rolls, from buffers of numpy's 64-bit random numbers drawn from the
engine's stream. An attack is one lookup in a table of (attacker, target) holding the exact
distribution of the face and the damage (:func:`_attack_tables`), or, for damage too large for
such a table, a lookup of the outcome per (attacker, face, target) then one per damage-dice
group (:func:`_damage_tables`); the tables are computed once per call (:func:`_plan`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..dice.sampling import sum_grid
from ..rules import Rules

__all__ = ["FightSpec", "fight_sampler", "WEAKEST", "RANDOM"]

WEAKEST, RANDOM = 0, 1


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


def fight_sampler(n: int, rng: np.random.Generator, spec: FightSpec) -> dict[str, np.ndarray]:
    """Simulate ``n`` fights of ``spec``, as additive accumulators for the engine (GM guide, checks and attacks; core rules, dying and critical injuries).

    Fights are played one after the other, each to its end, by a compiled loop
    (:func:`balance.guide._fight_loop.play`) on buffers of 64-bit numbers drawn from ``rng``
    (each is two 32-bit ones); a fight draws only what it rolls: one exactly uniform pick per
    attack among the bins of its attack table (the d20 face and, on a hit, which of the
    damage's equiprobable totals: :func:`_attack_tables`), or, when no such table fits, a
    pick for the face and one per damage-dice group of a hit; one per random target pick;
    and, when it starts, a random order within each initiative tie. The expected deaths of
    the dying PCs are computed with numpy :data:`_DYING` PCs at a time.

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
        A negative ``n``; ``fight_spec`` checks the fight (and refuses one
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
    from . import _fight_loop

    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    out = _empty(spec)
    if n == 0:
        return out
    c, p = spec.hp.size, spec.pcs
    plan = _plan(spec)
    words = max(plan["need"], min(_WORDS, (n + 1) * plan["need"] // 2))

    def draw() -> np.ndarray:   # 64-bit numbers: each is two 32-bit ones
        return rng.integers(0, 2 ** 64 - 1, size=words, dtype=np.uint64, endpoint=True)

    pos = 0
    hp, order = np.empty(c, np.int64), np.empty(c, np.int64)
    below, fight = np.empty(p, np.int64), np.zeros(7, np.int64)
    cap = max(_DYING, p)
    dying_fight, dying_seconds, dying_hp = (np.empty(cap, np.int64) for _ in range(3))
    wins = np.zeros(3, np.int64)
    totals = (wins,) + tuple(out[k] for k in _TOTALS)
    started = finished = count = 0
    u = draw().view(np.uint32)
    while True:
        code, pos, started, finished, count = _fight_loop.play(
            u, pos, hp, below, order, fight, started, n, finished,
            dying_fight, dying_seconds, dying_hp, count, totals, **plan)
        if code > 0:
            u, pos = draw().view(np.uint32), 0
            continue
        if count:
            prob = death_probability(dying_seconds[:count], dying_hp[:count], spec.wounds,
                                     rules=spec.rules)
            per_fight = np.bincount(dying_fight[:count], weights=prob, minlength=finished)
            out["expected_deaths_sum"] += per_fight.sum()
            out["expected_deaths_sumsq"] += (per_fight ** 2).sum()
        finished = count = 0
        if code == 0:
            break
    out["party_wins"] += wins[0]
    out["creature_wins"] += wins[1]
    out["draws"] += wins[2]
    return out


#: 64-bit numbers drawn at a time (fewer for a short run)
_WORDS = 1 << 14
#: dying PCs listed before their death chances are computed
_DYING = 1 << 14
#: the accumulators :func:`balance.guide._fight_loop.play` adds to, after the wins
_TOTALS = ("rounds", "knocked_out", "dying", "dead", "ko_by_pc", "dying_by_pc", "dead_by_pc",
           "dying_seconds")
#: damage of one hit is capped here (HP <= 10^6)
_MAX_HIT = 1 << 22


def _plan(spec: FightSpec) -> dict:
    """The arrays :func:`balance.guide._fight_loop.play` reads, computed once per call."""
    from . import _fight_loop
    c, p = spec.hp.size, spec.pcs
    init = spec.init
    order0 = np.argsort(-init, kind="stable")
    runs = []
    if spec.random_ties:
        s = 0
        while s < c:
            e = s
            while e + 1 < c and init[order0[e + 1]] == init[order0[s]]:
                e += 1
            if e > s:
                runs.append((s, e - s + 1))
            s = e + 1
    # outcome of attacker a against target t on face f: 0 miss, 1 hit, 2 critical hit
    need = spec.defences[:, spec.attack_defence].T - spec.attack[:, None] - spec.adjust
    faces = np.arange(1, spec.die + 1)
    crit = faces == spec.critical_success
    hit = crit | ((faces != spec.critical_failure) & (faces[None, None, :] >= need[..., None]))
    outcome = (hit.astype(np.int8) + (hit & crit)).transpose(0, 2, 1)   # (a, face - 1, t)
    offsets, sizes, values = _damage_tables(spec)
    foes = np.where(np.arange(c) < p, c - p, p)
    attacks = np.minimum(spec.targets, foes)
    picks = int((attacks * (2 + sizes.shape[0])).sum()) + c + _fight_loop.SLACK
    base, scale, attack = _attack_tables(spec, outcome, offsets, sizes, values)
    return dict(base=base, scale=scale, attack=attack,
                hp0=spec.hp.astype(np.int64), pcs=p, order0=order0.astype(np.int64),
                runs=np.array(runs, dtype=np.int64).reshape(-1, 2),
                targets=spec.targets.astype(np.int64),
                policy=np.array(spec.policy, dtype=np.int64),
                outcome=np.ascontiguousarray(outcome, dtype=np.int8), die=int(spec.die),
                offsets=offsets, sizes=sizes, values=values,
                minimum_damage=int(spec.minimum_damage), max_hit=_MAX_HIT,
                max_rounds=int(spec.max_rounds), seconds_per_round=int(spec.seconds_per_round),
                automatic_death=int(spec.automatic_death), need=picks)


#: most entries of one attack table (die faces x sub-bins), and of all of them together
_ATTACK_LIMIT, _ATTACKS_LIMIT = 1 << 15, 1 << 18


def _attack_tables(spec: FightSpec, outcome: np.ndarray, offsets: np.ndarray,
                   sizes: np.ndarray, values: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Damage of one attack of ``a`` on ``t`` as one lookup: ``attack[base[a * C + t] + x]``
    for ``x`` picked uniformly among ``scale[a]`` bins.

    ``scale[a]`` is ``die * S`` with ``S`` a common multiple of the sizes of ``a``'s hit and
    critical-hit tables: bin ``face * S + j`` holds, for a miss, 0; for a hit, total
    ``j * size // S`` of that table (each total over ``S // size`` bins: the dice's exact
    distribution), held within ``[minimum_damage, max_hit]``. Attackers with the same damage
    against targets with the same outcome per face share a table (int16 when it fits: the
    tables stay in the processor's cache). Empty (``scale`` all 0) when damage needs more than
    one table group or the tables would pass :data:`_ATTACK_LIMIT` / :data:`_ATTACKS_LIMIT`:
    the loop then looks the outcome and the damage up in turn.
    """
    c, die = spec.hp.size, int(spec.die)
    none = np.zeros(c * c, np.int64), np.zeros(c, np.int64), np.zeros(0, np.int16)
    if sizes.shape[0] > 1:
        return none
    rows = []
    for a in range(c):
        hit, crit = (values[offsets[0, a * 3 + o]:offsets[0, a * 3 + o] + sizes[0, a * 3 + o]]
                     for o in (1, 2))
        sub = int(np.lcm(hit.size, crit.size))
        if die * sub > _ATTACK_LIMIT:
            return none
        rows.append((sub, [np.zeros(sub, np.int64)] + [
            np.repeat(np.clip(v, spec.minimum_damage, _MAX_HIT), sub // v.size)
            for v in (hit, crit)]))
    base, scale = np.zeros(c * c, np.int64), np.zeros(c, np.int64)
    blocks: dict[tuple[int, bytes], int] = {}
    parts, size = [], 0
    for a in range(c):
        sub, by_outcome = rows[a]
        scale[a] = die * sub
        damage = by_outcome[1].tobytes() + b"/" + by_outcome[2].tobytes()
        for t in range(c):
            if spec.side[t] == spec.side[a]:
                continue
            faces = outcome[a, :, t]
            key = (damage, faces.tobytes())     # alike attackers share a table
            if key not in blocks:
                blocks[key] = size
                parts.append(np.concatenate([by_outcome[o] for o in faces]))
                size += die * sub
                if size > _ATTACKS_LIMIT:
                    return none
            base[a * c + t] = blocks[key]
    table = np.concatenate(parts)
    return base, scale, table.astype(np.int16 if table.max() < 1 << 15 else np.int32)


#: largest table of equiprobable outcomes for one group of damage dice
_TABLE_LIMIT = 1 << 16


def _outcomes(faces: list[int]) -> np.ndarray:
    """Totals of every ordered outcome of these dice (equiprobable), as int64."""
    return sum_grid([np.arange(1, f + 1) for f in faces])


def _damage_tables(spec: FightSpec) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Damage of each (combatant, outcome) row as tables of equiprobable totals.

    Row ``combatant * 3 + outcome``: outcome 0 a miss (never read), 1 a hit, 2 a critical hit
    (the dice rolled ``crit_dice`` times). A row's dice are cut into groups whose tables hold
    at most ``_TABLE_LIMIT`` totals; a uniform draw per group of more than one total picks one,
    so the sum has exactly the dice's distribution. The damage bonus is folded into the first
    group. Returns ``offsets`` and ``sizes``, shaped (groups, rows), into the flat ``values``;
    a group a row does not have is one total of 0.
    """
    rows: list[list[np.ndarray]] = []
    for i in range(spec.hp.size):
        base = [int(f) for f in spec.faces[i] if f > 0]
        rows.append([np.zeros(1, dtype=np.int64)])   # a miss
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
            tables = [_outcomes(g) for g in groups]
            tables[0] = tables[0] + int(spec.damage_bonus[i])
            rows.append(tables)
    n_groups = max(len(r) for r in rows)
    zero = np.zeros(1, dtype=np.int64)
    parts = [[r[g] if g < len(r) else zero for r in rows] for g in range(n_groups)]
    sizes = np.array([[t.size for t in part] for part in parts], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes.ravel())[:-1]]).reshape(sizes.shape)
    values = np.concatenate([t for part in parts for t in part])
    return offsets.astype(np.int64), sizes, values


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
