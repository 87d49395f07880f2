"""Benchmark kernels of the percentile rules (issue 5): the plain-Python twins against the rules
and against the vectorised kernels (fixed seeds, tolerances of 5 standard errors)."""
from __future__ import annotations

import math
import random

import numpy as np
import pytest

import balance as bl
from balance import bench
from balance.bench import percentile as pb
from percentile_oracle import assert_twin_agrees

P = bl.percentile
AP2 = bl.rules.resolve(None).updated({"percentile": {"combat": {"ap_per_action": 2}}})
FREE_RISE = bl.rules.resolve(None).updated({"percentile": {"duel": {"stand_up_turns": 0}}})
# the earlier readings of RULES.md 3.1 and 3.3, kept as rules switches
EARLIER = bl.rules.resolve(None).updated({"percentile": {
    "contest": {"winner_must_succeed": True}, "combat": {"wound_every_hit": False}}})


def test_python_tier_states_the_document():
    p = bl.rules.resolve(None)["percentile"]["roll"]
    t = pb.python_tier
    # 01-05 always succeed (skill 0: success, never critical), 96-00 always fail
    assert [t(r, 0, p) for r in range(1, 6)] == [2] * 5
    assert [t(r, 95, p) for r in (96, 97, 98)] == [1] * 3
    # fumble 99-00 at 100 % or less, only 00 over 100 %
    assert [t(r, 100, p) for r in (98, 99, 100)] == [1, 0, 0]
    assert [t(r, 101, p) for r in (99, 100)] == [1, 0]
    # critical within a tenth of the skill rounded up: 65 -> 01-07
    assert [t(r, 65, p) for r in (7, 8, 65, 66)] == [3, 2, 2, 1]


def test_python_tier_matches_the_vectorised_codes_on_every_face():
    rolls = np.arange(1, 101)
    for skill in list(range(0, 12)) + list(range(90, 112)) + [150, 200, 1000]:
        expected = P.tier_codes(rolls, skill).tolist()
        p = bl.rules.resolve(None)["percentile"]["roll"]
        assert [pb.python_tier(int(r), skill, p) for r in rolls] == expected, skill


def test_python_tiers_against_exact_tiers():
    n = 200_000
    counts = pb.python_tiers(n, random.Random(5))
    exact = P.tiers(pb.TIER_SKILL)
    assert sum(counts) == n
    for c, prob in zip(counts, exact):
        assert abs(c / n - prob) <= 5 * math.sqrt(prob * (1 - prob) / n)


SPECS = {
    "70 vs 50": lambda: (P.combatant(70), P.combatant(50)),
    # half-block parry (Large shield vs Huge axe), armour, knockback, STR+SIZ damage modifier
    "shield vs great axe": lambda: (
        P.combatant(60, shield="heater", armour=2),
        P.combatant(55, weapon="great_axe", characteristics={"STR": 16, "SIZ": 16})),
    # a small, clumsy fighter knocked down often: prone, standing up, stun while prone
    "axe vs small": lambda: (
        P.combatant(50, weapon="great_axe"),
        P.combatant(90, shield="heater", armour=4,
                    characteristics={"STR": 6, "SIZ": 7, "DEX": 6})),
    # over-100 rule, an evader, a small weapon, three action points
    "master vs evader": lambda: (
        P.combatant(120, weapon="dagger", action_points=3), P.combatant(40, evade=90)),
    # actions costing 2 A.P. (a rules variant): 5 A.P. give two actions, 3 A.P. one
    "2 A.P. per action": lambda: (
        P.combatant(60, action_points=5, rules=AP2), P.combatant(60, action_points=3,
                                                                  rules=AP2)),
    # standing up costs no turn (a rules variant): knocked down often, up at once
    "stand up for free": lambda: (
        P.combatant(50, weapon="great_axe", rules=FREE_RISE),
        P.combatant(90, shield="heater", armour=4, rules=FREE_RISE,
                    characteristics={"STR": 6, "SIZ": 7, "DEX": 6})),
    # light blows, tough defenders: locations at or below 0 hit again (a serious wound and its
    # Endurance roll each time, RULES.md 3.3)
    "hit again at 0 or below": lambda: (
        P.combatant(70, weapon=("1d3", "Small"), action_points=3),
        P.combatant(60, weapon=("1d3", "Small"), endurance=90, action_points=2)),
    # the same under the earlier readings (rules switches): first crossing only, and a side
    # that did not succeed wins no special effects
    "earlier readings": lambda: (
        P.combatant(70, weapon=("1d3", "Small"), action_points=3, rules=EARLIER),
        P.combatant(60, weapon=("1d3", "Small"), endurance=90, action_points=2,
                    rules=EARLIER)),
}
RULES = {"2 A.P. per action": AP2, "stand up for free": FREE_RISE, "earlier readings": EARLIER}


@pytest.mark.parametrize("name", list(SPECS))
def test_plain_python_duels_agree_with_the_vectorised_kernel(name):
    _agree(name)


@pytest.mark.parametrize("name", ["shield vs great axe", "master vs evader"])
def test_kernel_path_for_large_dice_agrees_too(name, monkeypatch):
    # dice above _PAIR_DIE faces draw attack and defence separately (no die x die table)
    from balance.percentile import _duel_kernel
    monkeypatch.setattr(_duel_kernel, "_PAIR_DIE", 0)
    _duel_kernel.tables.cache_clear()
    try:
        assert _duel_kernel.tables(P.duel_spec(*SPECS[name]())).pair is None
        _agree(name)
    finally:
        _duel_kernel.tables.cache_clear()


def _agree(name):
    fighters = SPECS[name]()
    spec = P.duel_spec(*fighters, rules=RULES.get(name))
    n_py, n_np = 6000, 100_000
    py = pb.python_duels(n_py, random.Random(11), spec)
    vec = P.duel_sampler(n_np, np.random.default_rng(12), spec)
    assert_twin_agrees(py, vec, n_py, n_np)
    # per-duel counts: exchanges, serious (or major) wounds, knockbacks (spread from the loop)
    for key, total in (("exchanges", vec["exchanges"]), ("serious_wounds",
                       vec["serious_wounds"].sum()), ("knockbacks", vec["knockbacks"])):
        m_py = py[key] / n_py
        sd_py = math.sqrt(py[f"{key}_sumsq"] / n_py - m_py ** 2)
        assert abs(m_py - int(total) / n_np) <= 5 * sd_py * math.sqrt(1 / n_py + 1 / n_np), key


def test_every_issue_kernel_is_registered():
    names = set(bench.load_kernels())
    assert {"critical-injury", "d20-test", "d100-tiers", "percentile-duel",
            "gm-fight-4v4", "campaign"} <= names
    duel = bench.KERNELS["percentile-duel"]
    assert duel.unit == "duel" and duel.target_rate == 1e5
    assert bench.KERNELS["gm-fight-4v4"].unit == "fight"


def test_duel_dice_counts_the_kernels_own_draws():
    # independent count: rerun the documented recipe from the sampler's counters
    spec, n = pb._spec(), 20_000
    out = P.duel_sampler(n, np.random.default_rng(0), spec)
    per_exchange = 4 + 1 + 1       # 4 d100, location 1d20, damage 1d8 (broadsword, no modifier)
    total = 3 * n + int(out["exchanges"]) * per_exchange + int(out["serious_wounds"].sum())
    assert spec.first.damage == "1d8"
    assert pb.duel_dice() == round(total / n)
