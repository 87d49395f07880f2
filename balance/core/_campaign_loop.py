"""The campaign sampler's bookkeeping between its draws, compiled (issue 16; rules in :mod:`.campaign`).

:func:`balance.core.campaign.campaign_sampler` draws every die with numpy; these loops only do
the bookkeeping between two draws, compiled by numba (the numpy version needed some 25 array
passes a fight, twice the cost of the dice).
The injuries the living characters carry are one array of integers
``(character << row_bits | row) << 1 | symptomatic``, in the order they were taken (a fight's
new ones at the end, in character order), the order in which the treatment draws go to them;
``count`` holds each character's number of injuries. Only the knockout test touches every
living character; the rest of a fight's work follows the knocked out and the injuries carried.
(Until 2026-12-04 the array was kept sorted by character and slot, the order of the numpy
sampler before it; merging each fight's new injuries in cost a quarter of a campaign's time.)

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
def injury_rolls(face, arrive, seconds, hurt, npv, wounds, loss, automatic, lut, ko,
                 ko_by_wounds):  # pragma: no cover - compiled
    """The outcome of each knocked-out character's critical-injury roll (core rules, dying
    and critical injuries): its table row, or ``rows`` (death: on the roll, or after
    ``automatic`` seconds). Character ``j`` rolls ``face[j]`` after ``seconds[arrive[j]]``
    seconds dying at ``-npv[hurt[j]]`` HP; ``lut`` maps roll totals to outcomes
    (:func:`balance.core.injuries.outcome_rows`). Counts the knocked out and the dead by
    injuries carried in ``ko_by_wounds``; returns the outcomes and the positions in
    ``living`` of the dead."""
    top = lut.size - 1
    rows = lut[top]
    code = np.empty(face.size, lut.dtype)
    dead = np.empty(face.size, np.int64)
    d = 0
    for j in range(face.size):
        time = seconds[arrive[j]]
        total = face[j] + _modifier(time, npv[hurt[j]], wounds[j], loss)
        c = rows if time >= automatic else lut[min(total, top)]
        code[j] = c
        ko_by_wounds[0, wounds[j]] += 1
        if c >= rows:
            ko_by_wounds[1, wounds[j]] += 1
            dead[d] = ko[j]
            d += 1
    return code, dead[:d]


@njit(cache=True, nogil=True)
def after_fight(held, m, who, code, rows, count, owner_shift):  # pragma: no cover - compiled
    """The injuries carried after a fight, in place in ``held`` (the first ``m`` carried
    before it; room for one more each knocked-out character): the knocked out ``who`` whose
    ``code`` is ``rows`` (death) leave with their injuries; each of the others gets a new
    injury of table row ``code``, symptomatic, at the end (``count`` updated in place).
    Returns the new number carried."""
    died = False
    for j in range(who.size):
        c = who[j]
        if code[j] >= rows:
            count[c] = 0
            died = True
        else:
            count[c] += 1
    if died:  # drop the injuries of the dead (a living character's count is never 0 here)
        d = 0
        for i in range(m):
            h = held[i]
            held[d] = h
            d += count[h >> owner_shift] > 0
        m = d
    for j in range(who.size):
        if code[j] < rows:
            held[m] = (np.int64(who[j]) << owner_shift) | (np.int64(code[j]) << 1) | 1
            m += 1
    return m


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
def soothe_and_count(held, u, keep, light, owner_shift, scratch, fight, living,
                     slots):  # pragma: no cover - compiled
    """Light treatment in place (with ``light``, the symptoms of the k-th symptomatic injury
    go when ``u[k] >= keep[injury & low]``), then how many of the ``living`` characters carry
    0..slots injuries and 0..slots symptomatic ones. ``scratch`` (one int32 per character,
    kept between fights) holds the fight a character was last counted in (bits 20 and up),
    its injuries (bits 10-19) and its symptomatic ones (bits 0-9), added up in a first pass:
    one memory access a character in the second (up to 1,000 fights and 1,023 injuries)."""
    low = (1 << owner_shift) - 1
    k = 0
    last = u.size - 1
    light = light and u.size > 0       # no symptomatic injury: nothing to read
    for i in range(held.size):
        h = held[i]
        sym = np.int64(h & 1)
        if light:   # the same for every injury: predicted
            # reads u[k] only for a symptomatic injury (k < u.size then)
            gone = sym & np.int64(u[min(k, last)] >= keep[h & low])
            held[i] = h & ~gone
            k += sym
            sym -= gone
        scratch[h >> owner_shift] += np.int32(1024 | sym)
    # each character once, at its first injury here (no branch: its outcome is not
    # predictable); four interleaved tallies, so that no addition waits for the one before
    carried = np.zeros((4, slots + 1), np.int64)
    symptoms = np.zeros((4, slots + 1), np.int64)
    seen = np.int32(fight + 1)
    stamp = seen << 20                 # counted in this fight, the tallies cleared
    bearers = 0
    for i in range(held.size):
        c = held[i] >> owner_shift
        state = scratch[c]
        first = np.int64((state >> 20) != seen)
        scratch[c] = stamp
        carried[i & 3, (state >> 10) & 1023] += first
        symptoms[i & 3, state & 1023] += first
        bearers += first
    out_carried = carried.sum(axis=0)
    out_symptoms = symptoms.sum(axis=0)
    out_carried[0] += living - bearers
    out_symptoms[0] += living - bearers
    return out_carried, out_symptoms


# helpers forked after this process has simulated campaigns start with these loops loaded
preload_in_helpers("balance.core._campaign_warm")
