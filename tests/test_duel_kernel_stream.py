"""The duel kernel's random stream is pinned (issue 16: faster, but the same draws).

Seeded duel figures are quoted in the docs, the tests and the regression baselines, so a change
to :mod:`balance.percentile._duel_kernel` must draw the same dice in the same order and give
the same results. Each case pins, for 3,000 duels from seed 7, the wins, the exchanges and a
digest of every output of :func:`balance.percentile.duel_sampler` together with the
generator's state afterwards (how far the stream was consumed), in six situations (one with
armour so large that the location keys need 64 bits). The values were taken from the kernel
as it was before the issue-16 rework (commit 9e502e3) and checked again after it.
Regenerate them only on purpose, for a change that is meant to alter the stream.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

import balance as bl

P = bl.percentile

_D1000 = {"percentile": {"die": 1000, "roll": {
    "automatic_failure_min": 996, "fumble_min": 999, "high_skill_fumble_min": 1000}}}


def _spec(case: str):
    c = P.combatant
    if case == "bench":
        return P.duel_spec(c(70), c(50))
    if case == "armour-shields-legacy":
        return P.duel_spec(c(60, weapon="great_axe", armour=2, shield="heater"),
                           c(65, shield="buckler", armour={"head": 3}),
                           policies=("legacy", "default"))
    if case == "surprise-charge":
        return P.duel_spec(c(60), c(60, shield="buckler"), surprise="second", charge="first")
    if case == "evade-timeouts":
        return P.duel_spec(c(40, evade=80, armour=3), c(35, evade=70), max_rounds=3)
    if case == "huge-armour":           # location keys beyond int32: computed in int64
        return P.duel_spec(c(70, armour=10**9), c(50, armour=3 * 10**8, shield="heater"),
                           charge="first")
    rules = bl.rules.resolve(None).updated(_D1000)   # a d1000: no table of roll pairs
    return P.duel_spec(c(70, rules=rules), c(50, rules=rules), rules=rules, charge="both")


def _digest(out: dict, gen: np.random.Generator) -> str:
    h = hashlib.sha256()
    for key in sorted(out):
        h.update(key.encode() + np.asarray(out[key]).astype(np.int64).tobytes())
    h.update(repr(gen.bit_generator.state["state"]).encode())
    return h.hexdigest()[:16]


@pytest.mark.parametrize("case, wins, exchanges, digest", [
    ("bench", [2214, 786, 0], 15099, "d7eac0084bb9b5d9"),
    ("armour-shields-legacy", [2200, 800, 0], 9644, "8fcdc27a2487f5be"),
    ("surprise-charge", [1816, 1184, 0], 11676, "d0e37a33b107fcaa"),
    ("evade-timeouts", [669, 197, 2134], 14130, "597f824d700506e8"),
    ("huge-armour", [1252, 420, 1328], 78808, "7d1a558d1eb628ef"),
    ("d1000", [1423, 919, 658], 64573, "df237623eb4e18e2"),
])
def test_duel_kernel_draws_and_results_are_pinned(case, wins, exchanges, digest):
    gen = np.random.default_rng(7)
    out = P.duel_sampler(3000, gen, _spec(case))
    assert out["wins"].tolist() == wins
    assert int(out["exchanges"]) == exchanges
    assert _digest(out, gen) == digest
