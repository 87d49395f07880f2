"""The fight kernel's turn loop, compiled (issue 16; rules in :mod:`.fight_kernel`).

:func:`play` plays fights one after the other, each to its end. It draws only the dice a fight
rolls, as 32-bit random numbers (the halves of the 64-bit integers
:func:`balance.guide.fight_kernel.fight_sampler` draws with numpy, a buffer at a time): a number ``x`` picks one of ``n`` equally likely values as ``x * n >> 32``, redrawn in
the rare case that would favour some values (Lemire's method), so every pick is exactly
uniform. An attack is one pick among ``die * S`` bins of its attack table (the face, then
which of the hit's equiprobable damage totals: :func:`balance.guide.fight_kernel._attack_tables`);
when no such table fits, the face and each damage-dice group are picked in turn, only on a
hit. A random target costs one pick, an initiative tie of ``n`` combatants ``n - 1`` picks when
a fight starts; nothing is drawn for someone who is down or a fight that has ended.

The loop is written so that the processor can guess its branches: the turn order holds only
those standing (someone who goes down leaves it), the weakest standing foe of each side is kept
up to date as HP change (a full scan only when the weakest goes down), and a hit or a miss is
one table lookup. The outcomes are added up here too; only the expected deaths of the dying PCs
(the core rules' critical-injury roll) are left to numpy.

Compiled once per machine (``cache=True``: the machine code is kept beside this file, or in
numba's cache folder when that is not writable); the first call on a new machine takes a few
seconds more.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..montecarlo.pool import preload_in_helpers

#: the key of no standing combatant (above every ``HP << 8 | position``)
_NONE = np.int64(1) << 62
#: 2**32: the range of one random number
_RANGE = np.int64(1) << 32
#: picks a round may redraw beyond its reserve (a pick among n is redrawn with odds below
#: n / 2**32: 2**-17 for an attack table, 2**-16 for the largest damage table)
SLACK = 64


@njit(inline="always")
def _pick(u, p, end, n):  # pragma: no cover - compiled
    """One of ``0..n-1``, uniformly, from the numbers ``u`` at ``p``: ``(value, next p)``.
    Redraws stop at ``end``; a round reads past its reserve of ``need`` numbers only after
    :data:`SLACK` redraws, odds below ``(n / 2**32) ** 64 < 2**-1000``."""
    m = np.int64(u[p]) * n
    p += 1
    low = m & (_RANGE - 1)
    if low < n:
        floor = (_RANGE - n) % n
        while low < floor and p < end:
            m = np.int64(u[p]) * n
            p += 1
            low = m & (_RANGE - 1)
    return m >> 32, p


@njit(inline="always")
def _weakest(hp, lo, hi):  # pragma: no cover - compiled
    """The standing combatant of ``lo..hi-1`` with the lowest HP, then position (no branch)."""
    key = _NONE
    for t in range(lo, hi):
        h = hp[t]
        key = min(key, (h << 8 | t) if h > 0 else _NONE)
    return key & 0xFF


@njit(inline="always")
def _leave(order, live, t, s):  # pragma: no cover - compiled
    """Take ``t``, who went down, out of the turn order ``order[:live]`` while the turn at
    ``s`` is played: returns the new ``live`` and the slot now played."""
    q = 0
    while order[q] != t:
        q += 1
    for i in range(q, live - 1):
        order[i] = order[i + 1]
    return live - 1, s - 1 if q < s else s


@njit(cache=True, nogil=True)
def play(u, pos, hp, below, order, fight,  # pragma: no cover - compiled
         started, n, finished, dying_fight, dying_seconds_of, dying_hp, dying_count, totals,
         hp0, pcs, order0, runs, targets, policy, base, scale, attack, outcome, die, offsets,
         sizes, values, minimum_damage, max_hit, max_rounds, seconds_per_round,
         automatic_death, need):
    """Play fights ``started..n-1``; return ``(code, pos, started, finished, dying_count)``.

    ``code``: 0 every fight has ended; -1 the list of dying PCs is full (compute their death
    chances, call again with ``finished`` and ``dying_count`` 0); 1: fresh numbers ``u`` are
    needed (``pos`` 0). ``u``: 32-bit random numbers, read from ``pos``. ``hp``, ``below``
    (PCs: the round they fell below 0 HP, read only for those below 0: HP never rises in a
    fight, so they end ``round - below + 1`` rounds below 0), ``order`` (the standing, in turn
    order) and ``fight``
    (``[under way, round, standing in the party, among the creatures, in the turn order,
    weakest standing PC, creature]``) hold the fight under way between calls.

    ``totals``: the wins (party, creatures, draws), then the accumulators of
    :func:`balance.guide.fight_kernel._empty` named in ``_TOTALS``, added to here. Each dying
    PC of an ended fight is listed: ``dying_fight`` (fights ended since the list was
    emptied), ``dying_seconds_of``, ``dying_hp`` (HP below 0, positive). The rest is the fight
    (:func:`balance.guide.fight_kernel._plan`); ``need`` is the most numbers a fight's start
    and one round can use, but for redraws.
    """
    c = hp.size
    end = u.size
    groups = sizes.shape[0]
    direct = scale[0] > 0
    quick = np.empty(c, np.bool_)   # attacks the weakest foe alone, by one table lookup
    for a in range(c):
        quick[a] = direct and targets[a] == 1 and policy[0 if a < pcs else 1] == 0
    cap = dying_fight.size
    wins, rounds_at, ko_at, dying_at, dead_at, ko_pc, dying_pc, dead_pc, seconds_at = totals
    picks = np.empty(c, np.int64)
    picked = np.zeros(c, np.bool_)
    # the fight under way, in locals (the processor keeps them in registers)
    going, rnd, up0, up1, live, weak0, weak1 = fight[0], fight[1], fight[2], fight[3], \
        fight[4], fight[5], fight[6]
    while True:
        if going and end - pos < need:
            code = 1
            break
        if not going:
            if started == n:
                code = 0
                break
            if cap - dying_count < pcs:
                code = -1
                break
            if end - pos < need:
                code = 1
                break
            for i in range(c):
                hp[i] = hp0[i]
                order[i] = order0[i]
            for r in range(runs.shape[0]):   # a uniformly random order within each tie
                s0, m = runs[r, 0], runs[r, 1]
                for i in range(m - 1):       # Fisher-Yates
                    x, pos = _pick(u, pos, end, m - i)
                    x += s0 + i
                    order[s0 + i], order[x] = order[x], order[s0 + i]
            going, rnd, up0, up1, live = 1, 1, pcs, c - pcs, c
            weak0, weak1 = _weakest(hp, 0, pcs), _weakest(hp, pcs, c)
            started += 1
        s = step = chosen = 0   # the turn played, and which of its ``chosen`` attacks
        while s < live:
            a = order[s]
            foe = a < pcs                                  # the side it attacks: 1 creatures
            if (up1 if foe else up0) == 0:
                break
            if quick[a]:    # one target, the weakest, one lookup: no choice, nothing to track
                t = weak1 if foe else weak0
                x, pos = _pick(u, pos, end, scale[a])
                before = hp[t]
                h = before - attack[base[a * c + t] + x]
                hp[t] = h
                s += 1
                if h > 0:
                    continue
                if h < 0 and t < pcs:           # t stood (the weakest standing): it fell
                    below[t] = rnd              # below 0 at the end of every round from now
                lo, hi = (pcs, c) if foe else (0, pcs)     # t went down: leaves the turns
                live, s = _leave(order, live, t, s - 1)
                if foe:
                    up1 -= 1
                    weak1 = _weakest(hp, lo, hi)
                else:
                    up0 -= 1
                    weak0 = _weakest(hp, lo, hi)
                s += 1
                continue
            lo, hi = (pcs, c) if foe else (0, pcs)
            k = targets[a]
            weakest = weak1 if foe else weak0
            if step:
                t = picks[step]
            elif k == 1 and policy[1 - foe] == 0:          # the weakest standing foe
                t = weakest
                chosen = 1
            elif policy[1 - foe] == 0:                     # the k weakest standing foes
                chosen = 0
                for _ in range(k):
                    best, low = -1, 0
                    for t in range(lo, hi):
                        h = hp[t]
                        if h > 0 and not picked[t] and (best < 0 or h < low):
                            best, low = t, h
                    if best < 0:
                        break
                    picked[best] = True
                    picks[chosen] = best
                    chosen += 1
                for i in range(chosen):
                    picked[picks[i]] = False
                t = picks[0]
            else:                                          # k distinct standing foes at random
                m = 0
                for t in range(lo, hi):
                    if hp[t] > 0:
                        picks[m] = t
                        m += 1
                chosen = min(k, m)
                for i in range(chosen):
                    x, pos = _pick(u, pos, end, m - i)
                    x += i
                    picks[i], picks[x] = picks[x], picks[i]
                t = picks[0]
            if direct:                                     # face and damage in one pick
                x, pos = _pick(u, pos, end, scale[a])
                total = attack[base[a * c + t] + x]
            else:
                face, pos = _pick(u, pos, end, die)
                o = outcome[a, face, t]
                total = 0
                if o:
                    row = a * 3 + o
                    for g in range(groups):
                        size = sizes[g, row]
                        at = offsets[g, row]
                        if size > 1:
                            x, pos = _pick(u, pos, end, size)
                            at += x
                        total += values[at]
                    total = min(max(total, minimum_damage), max_hit)
            before = hp[t]
            h = before - total
            hp[t] = h
            if h <= 0:
                if h < 0 and before >= 0 and t < pcs:
                    below[t] = rnd
                if before > 0:
                    live, s = _leave(order, live, t, s)
                    if foe:
                        up1 -= 1
                    else:
                        up0 -= 1
                    if t == weakest:
                        if foe:
                            weak1 = _weakest(hp, lo, hi)
                        else:
                            weak0 = _weakest(hp, lo, hi)
            elif t != weakest and (h < hp[weakest] or (h == hp[weakest] and t < weakest)):
                if foe:
                    weak1 = t
                else:
                    weak0 = t
            step += 1
            if step == chosen:
                step = 0
                s += 1
        if up0 and up1 and rnd < max_rounds:
            rnd += 1
            continue
        wins[2 if up0 and up1 else 1 if up1 else 0] += 1
        rounds_at[rnd] += 1
        ko = dying = dead = 0
        for i in range(pcs):
            h = hp[i]
            if h > 0:
                continue
            ko += 1
            ko_pc[i] += 1
            if h == 0:
                continue
            secs = min((rnd - below[i] + 1) * seconds_per_round, automatic_death)
            dying += 1
            dying_pc[i] += 1
            seconds_at[secs] += 1
            if secs >= automatic_death:
                dead += 1
                dead_pc[i] += 1
            dying_fight[dying_count] = finished
            dying_seconds_of[dying_count] = secs
            dying_hp[dying_count] = -h
            dying_count += 1
        ko_at[ko] += 1
        dying_at[dying] += 1
        dead_at[dead] += 1
        finished += 1
        going = 0
    fight[0], fight[1], fight[2], fight[3], fight[4], fight[5], fight[6] = \
        going, rnd, up0, up1, live, weak0, weak1
    return code, pos, started, finished, dying_count


def warm() -> None:
    """Load :func:`play`'s machine code (from numba's cache: about half a second in a new
    process) without playing a fight, for the argument types
    :func:`balance.guide.fight_kernel.fight_sampler` passes (attack tables in int16)."""
    one, two = np.zeros(1, np.int64), np.zeros((1, 1), np.int64)
    play(np.zeros(2, np.uint32), 0, one.copy(), one.copy(), one.copy(), np.zeros(7, np.int64),
         0, 0, 0, one.copy(), one.copy(), one.copy(), 0, tuple(one.copy() for _ in range(9)),
         one, 0, one, np.zeros((0, 2), np.int64), one, np.zeros(2, np.int64), one, one,
         np.zeros(1, np.int16), np.zeros((1, 1, 1), np.int8), 1, two, two.copy(), one, 0, 1,
         1, 1, 1, 1)


# helpers forked after this process has played fights start with the loop loaded
preload_in_helpers("balance.guide._fight_warm")
