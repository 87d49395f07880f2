"""The campaign sampler's random stream is pinned: a change that alters it is made on purpose.

Seeded campaign figures are quoted in the docs and the tests, so a change to
:func:`balance.core.campaign.campaign_sampler` must draw the same values in the same order and
give the same results, or say that it does not. Each case pins, from seed 7, the deaths, the
knockouts and a digest of every output together with the generator's state afterwards (how
far the stream was consumed): the default plan, injuries carried in with light treatment only,
a long campaign with full treatment only, a deadly rescue (every knockout, 1d100 seconds), a
large block of a long campaign, no treatment, no time to treat, carried injuries only, one
fight.

History: pinned from the numpy sampler before the issue-16 rework (commit b6a5060), held
through that rework and through the compiled bookkeeping (commit eaf8589 for the four cases
added then). Regenerated on 2026-12-04 for a new stream, on purpose: the injuries carried are
kept in the order they were taken, not merged into (character, slot) order, so the treatment
draws go to them in another order, and the injury roll's d100 is drawn as a 16-bit integer
(``balance.dice.draw_dtype``); the same distributions (the statistical tests in
``tests/test_campaign.py`` and ``tests/test_campaign_bench.py``; old and new samplers compared
cell by cell on 9 cases of 800,000 characters: mean squared z 1.3 and 1.06, against 0.94 and
1.02 for the new sampler against itself on other seeds). Regenerated on 2026-12-07, on
purpose: the rescue's arrival and negative-HP dice are drawn as indices into the table of
their totals, 16-bit for these cases (``balance.dice.sample_indices``), read in the compiled
pass, instead of 64-bit ones gathered by ``Dice.sample``; the same distributions (old and new compared cell by
cell on 5 cases of 800,000 characters, other seeds: mean squared z 1.04 and 0.87, against 0.81
for the old sampler against itself). The two cases with fixed rescue dice (full-long,
carried-only-light) kept their pins: a table of one total draws nothing. Regenerate them only
on purpose.
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
    # a large block of a long campaign (64-bit keys before 2026-12-04, when keys had slot bits)
    "int64-keys": ({"fights": 60, "knockout_chance": 0.1, "start_wounds": 4, "hours_between": 30},
                   270_000),
    # added with the compiled bookkeeping (issue 16): no treatment, no time to treat, only
    # carried injuries, one fight
    "no-treatment": ({"fights": 8, "knockout_chance": 0.6, "policy": "none", "start_wounds": 1,
                      "arrival": "3d10"}, 3000),
    "no-time": ({"fights": 5, "knockout_chance": 0.4, "hours_between": 0}, 3000),
    "carried-only-light": ({"fights": 3, "knockout_chance": 0.0, "start_wounds": 3,
                            "policy": "light"}, 3000),
    "one-fight": ({"fights": 1, "knockout_chance": 1.0}, 3000),
}


@pytest.mark.parametrize("case, deaths, knockouts, digest", [
    ("default", 2, 7340, "2a11ca74c69d172d"),
    ("carried-in-light", 1905, 6801, "3753009db789655b"),
    ("full-long", 66, 41618, "c796530f0de31f89"),
    ("deadly", 2680, 8417, "772ce73911dabbc4"),
    ("int64-keys", 1614, 1609484, "f370f533bd4f1d05"),
    ("no-treatment", 1831, 12081, "54d3e6a8356c4b41"),
    ("no-time", 4, 6015, "24ca46bae8d06264"),
    ("carried-only-light", 0, 0, "cc51bd07b465c124"),
    ("one-fight", 0, 3000, "8569724c2f15e02c"),
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


def test_64_bit_keys_give_the_same_campaigns(monkeypatch):
    # the keys are 64-bit only past 2**31 >> 6 (33 M) characters a call: the same draws and
    # results as 32-bit ones, checked here by lowering the limit
    from balance.core import campaign

    rules = bl.load_rules()
    kwargs, _ = CASES["full-long"]
    p = bl.campaign.plan(**kwargs, rules=rules)
    narrow = campaign.campaign_sampler(2000, np.random.default_rng(3), plan=p, rules=rules)
    monkeypatch.setattr(campaign, "KEY32_LIMIT", 2)
    wide = campaign.campaign_sampler(2000, np.random.default_rng(3), plan=p, rules=rules)
    assert narrow.keys() == wide.keys()
    for key in narrow:
        np.testing.assert_array_equal(narrow[key], wide[key])


def test_a_plan_beyond_the_scratch_is_refused():
    # plan() allows 500 fights and 550 injury slots; a plan made by hand past what the
    # counting scratch holds is refused, not counted wrong
    import dataclasses

    rules = bl.load_rules()
    p = dataclasses.replace(bl.campaign.plan(rules=rules), fights=1001)
    with pytest.raises(ValueError, match="at most 1,000 fights and 1,023 injuries"):
        bl.campaign.campaign_sampler(10, np.random.default_rng(0), plan=p, rules=rules)
