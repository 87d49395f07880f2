"""The campaign sampler's bookkeeping between its draws, compiled (issue 16; rules in :mod:`.campaign`).

:func:`balance.core.campaign.campaign_sampler` draws every die with numpy, in the same order and
the same sizes as before; these loops only do the bookkeeping between two draws, compiled by
numba (the numpy version needed some 25 array passes a fight, twice the cost of the dice).
The injuries the living characters carry are one sorted array of integers
``((character << slot_bits | slot) << row_bits | row) << 1 | symptomatic``, in (character,
slot) order, the order in which the treatment draws go to them; ``count`` holds each
character's number of injuries. Only the knockout test touches every living character; the
rest of a fight's work follows the knocked out and the injuries carried.

Compiled once per machine (``cache=True``: the machine code is kept beside this file, or in
numba's cache folder when that is not writable); the first call on a new machine takes about
two seconds more.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..montecarlo.pool import preload_in_helpers
from .injuries import modifier as _python_modifier

_modifier = njit(inline="always")(_python_modifier)


@njit(cache=True, nogil=True)
def knockouts(u, chance, living, count):  # pragma: no cover - compiled
    """The living characters knocked out (``u[i] < chance``, one uniform each, in order):
    their positions in ``living``, their numbers and how many injuries they carry."""
    ko = np.empty(u.size, np.int64)
    k = 0
    for i in range(u.size):
        ko[k] = i
        k += u[i] < chance
    ko = ko[:k]
    who = np.empty(k, living.dtype)
    wounds = np.empty(k, np.int64)
    for j in range(k):
        who[j] = living[ko[j]]
        wounds[j] = count[who[j]]
    return ko, who, wounds


@njit(cache=True, nogil=True)
def injury_rolls(face, seconds, npv, wounds, loss, automatic, lut, ko, ko_by_wounds):  # pragma: no cover - compiled
    """The outcome of each knocked-out character's critical-injury roll (core rules, dying
    and critical injuries): its table row, or ``rows`` (death: on the roll, or after
    ``automatic`` seconds); ``lut`` maps roll totals to outcomes
    (:func:`balance.core.injuries.outcome_rows`). Counts the knocked out and the dead by
    injuries carried in ``ko_by_wounds``; returns the outcomes, the positions in ``living``
    of the dead, and how many injuries they carried."""
    top = lut.size - 1
    rows = lut[top]
    code = np.empty(face.size, lut.dtype)
    dead = np.empty(face.size, np.int64)
    d = 0
    dead_injuries = 0
    for j in range(face.size):
        total = face[j] + _modifier(seconds[j], npv[j], wounds[j], loss)
        c = rows if seconds[j] >= automatic else lut[min(total, top)]
        code[j] = c
        ko_by_wounds[0, wounds[j]] += 1
        if c >= rows:
            ko_by_wounds[1, wounds[j]] += 1
            dead[d] = ko[j]
            d += 1
            dead_injuries += wounds[j]
    return code, dead[:d], dead_injuries


@njit(cache=True, nogil=True)
def after_fight(held, size, who, wounds, code, rows, count, slot_shift, owner_shift,
                slot_mask):  # pragma: no cover - compiled
    """The ``size`` injuries carried after a fight, in order: the knocked out ``who`` whose
    ``code`` is ``rows`` (death) leave with their ``wounds`` injuries; the others carry a new
    injury of table row ``code`` in their first empty slot, symptomatic (``count`` updated in
    place)."""
    out = np.empty(size, held.dtype)
    i = 0
    dst = 0
    for j in range(who.size):
        c = np.int64(who[j])
        mine = c << owner_shift
        while i < held.size and held[i] < mine:   # the injuries of characters before c
            out[dst] = held[i]
            dst += 1
            i += 1
        n = wounds[j]
        if code[j] >= rows:
            i += n
            count[c] = 0
            continue
        # slots increase within a character: the new injury goes before the first slot s
        # that is not s
        for s in range(n):
            h = held[i]
            if (h >> slot_shift) & slot_mask != s:
                break
            out[dst] = h
            dst += 1
            i += 1
        else:
            s = n
        out[dst] = mine | (np.int64(s) << slot_shift) | (np.int64(code[j]) << 1) | 1
        dst += 1
        for _ in range(s, n):
            out[dst] = held[i]
            dst += 1
            i += 1
        count[c] = n + 1
    while i < held.size:
        out[dst] = held[i]
        dst += 1
        i += 1
    return out


@njit(cache=True, nogil=True)
def treated(held, count, u, keep, low, owner_shift):  # pragma: no cover - compiled
    """Full treatment in place: each injury goes when ``u < keep[injury & low]`` (one uniform
    each, in order); ``count`` is updated. Returns the injuries kept (the front of ``held``)
    and how many of them are symptomatic."""
    dst = 0
    sore = 0
    for i in range(held.size):
        h = np.int64(held[i])
        kept = np.int64(u[i] < keep[h & low])
        held[dst] = h
        count[h >> owner_shift] -= 1 - kept
        dst += kept
        sore += kept & h
    return held[:dst], sore


@njit(cache=True, nogil=True)
def soothe_and_count(held, u, keep, low, light, owner_shift, living, slots):  # pragma: no cover - compiled
    """Light treatment in place (with ``light``, the symptoms of the k-th symptomatic injury
    go when ``u[k] >= keep[injury & low]``), then how many of the ``living`` characters carry
    0..slots injuries and 0..slots symptomatic ones."""
    carried = np.zeros(slots + 1, np.int64)
    symptoms = np.zeros(slots + 1, np.int64)
    k = 0
    light = light and u.size > 0       # no symptomatic injury: nothing to read
    last = u.size - 1
    run = sore = 0
    owner = -1
    for i in range(held.size):
        h = held[i]
        o = h >> owner_shift
        # a new character: count the last one's run (no branch: its outcome is not predictable)
        step = np.int64(o != owner)
        carried[run] += step
        symptoms[sore] += step
        run *= 1 - step
        sore *= 1 - step
        owner = o
        run += 1
        sym = np.int64(h & 1)
        if light:   # the same for every injury: predicted
            # reads u[k] only for a symptomatic injury (k < u.size then)
            gone = sym & np.int64(u[min(k, last)] >= keep[h & low])
            held[i] = h & ~gone
            k += sym
            sore += sym - gone
        else:
            sore += sym
    carried[run] += 1
    symptoms[sore] += 1
    # the first "run" above was no character (owner -1), or the last one when none carry any
    carried[0] -= 1
    symptoms[0] -= 1
    bearers = carried[1:].sum()
    carried[0] += living - bearers
    symptoms[0] += living - bearers
    return carried, symptoms


# helpers forked after this process has simulated campaigns start with these loops loaded
preload_in_helpers("balance.core._campaign_warm")
