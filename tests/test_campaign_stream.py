"""The campaign sampler's random stream is pinned (issue 16: faster, but the same draws).

Seeded campaign figures are quoted in the docs, the tests and the regression baselines, so a
change to :func:`balance.core.campaign.campaign_sampler` must draw the same values in the same
order and give the same results. Each case pins, from seed 7, the deaths, the knockouts and a
digest of every output together with the generator's state afterwards (how far the stream was
consumed): the default plan, injuries carried in with light treatment only, a long campaign
with full treatment only, a deadly rescue (every knockout, 1d100 seconds), and a block large
enough that the sampler's injury keys need 64 bits. The values were taken from the sampler as
it was before the issue-16 rework (commit b6a5060) and checked again after it, and again
after its bookkeeping was compiled with numba (the four cases added then were pinned from the
numpy sampler of commit eaf8589). Regenerate them
only on purpose, for a change that is meant to alter the stream.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

import balance as bl
from fresh import run_python

CASES = {
    "default": ({}, 3000),
    "carried-in-light": ({"fights": 6, "knockout_chance": 0.5, "arrival": "2d20", "start_wounds": 2,
                          "policy": "light", "hours_between": 2, "cunning": 8}, 3000),
    "full-long": ({"fights": 40, "knockout_chance": 0.35, "arrival": 20, "negative_hp": 3,
                   "policy": "full", "hours_between": 48, "cunning": 14}, 3000),
    "deadly": ({"fights": 4, "knockout_chance": 1.0, "arrival": "1d100", "negative_hp": "2d6"},
               3000),
    # 64 slots and 270,000 characters: (characters << bits of slot, row, symptom) passes 2**31
    "int64-keys": ({"fights": 60, "knockout_chance": 0.1, "start_wounds": 4, "hours_between": 30},
                   270_000),
    # added with the compiled bookkeeping (issue 16), pinned from the numpy sampler before it
    # (commit eaf8589): no treatment, no time to treat, only carried injuries, one fight
    "no-treatment": ({"fights": 8, "knockout_chance": 0.6, "policy": "none", "start_wounds": 1,
                      "arrival": "3d10"}, 3000),
    "no-time": ({"fights": 5, "knockout_chance": 0.4, "hours_between": 0}, 3000),
    "carried-only-light": ({"fights": 3, "knockout_chance": 0.0, "start_wounds": 3,
                            "policy": "light"}, 3000),
    "one-fight": ({"fights": 1, "knockout_chance": 1.0}, 3000),
}


@pytest.mark.parametrize("case, deaths, knockouts, digest", [
    ("default", 0, 7497, "02653c81431c3634"),
    ("carried-in-light", 1932, 6843, "39f00473239b5117"),
    ("full-long", 83, 41638, "5cffcd2572dd1990"),
    ("deadly", 2677, 8478, "3815b75ecd9dfe91"),
    ("int64-keys", 1605, 1609793, "890df31ca7dbd097"),
    ("no-treatment", 1790, 12121, "cec9c82ac8e1c231"),
    ("no-time", 3, 5971, "246c9e6459a98962"),
    ("carried-only-light", 0, 0, "cc51bd07b465c124"),
    ("one-fight", 0, 3000, "f2fc8b4c2010eeb3"),
])
def test_campaign_stream_is_pinned(case, deaths, knockouts, digest):
    rules = bl.load_rules()
    kwargs, n = CASES[case]
    gen = np.random.default_rng(7)
    out = bl.campaign.campaign_sampler(n, gen, plan=bl.campaign.plan(**kwargs, rules=rules),
                                       rules=rules)
    h = hashlib.sha256()
    for key in sorted(out):
        h.update(key.encode() + np.asarray(out[key]).astype(np.int64).tobytes())
    h.update(repr(gen.bit_generator.state["state"]).encode())
    assert (int(out["deaths"].sum()), int(out["ko_by_wounds"][0].sum()), h.hexdigest()[:16]) \
        == (deaths, knockouts, digest)


def test_helpers_forked_after_campaigns_start_with_the_loops_loaded():
    import balance.core._campaign_loop  # noqa: F401 - its import registers the preload
    from balance.montecarlo import pool
    assert "balance.core._campaign_warm" in pool._PRELOADS
    # what the forkserver runs: a tiny campaign loads every loop for the types a block uses
    script = ("import numpy as np\n"
              "import balance.core._campaign_warm\n"
              "from balance.core import _campaign_loop as cl\n"
              "from balance.core.campaign import campaign_sampler, plan\n"
              "from balance.rules import resolve\n"
              "names = ('knockouts', 'injury_rolls', 'after_fight', 'treated', 'soothe_and_count')\n"
              "before = [len(getattr(cl, n).signatures) for n in names]\n"
              "campaign_sampler(50_000, np.random.default_rng(0), plan=plan(), rules=resolve(None))\n"
              "print(before == [1] * 5, [len(getattr(cl, n).signatures) for n in names] == [1] * 5)\n")
    assert run_python(script) == ["True", "True"]
