"""Special effects, surprise and charges in the duel kernel (RULES.md 3.3-3.4), with fixed dice.

The kernel draws every die with ``gen.integers(low, high, ...)``; :class:`FixedDice` answers by
``high`` (10000: the attack and defence d100s as (attack - 1) * 100 + defence - 1; 100: the
Endurance face 0..99; 101: the knockback d100; 20: the location index; other table sizes: the
index of the outcome in the sorted table of the dice expression). One round, one A.P. each:
side 0 attacks once, side 1 parries. Each effect changes exactly what its row says, compared
with the same dice under the policy ``none``.
"""
from __future__ import annotations

import dataclasses
import math
import random

import numpy as np
import pytest

import balance as bl
from balance.bench import percentile as pb
from balance.percentile import _duel_kernel as K
from percentile_oracle import assert_twin_agrees, ref_code, ref_graded

P = bl.percentile
CHEST, RIGHT_ARM = 3, 4


class FixedDice:
    """A generator whose ``integers`` returns fixed values by ``high`` (a list: in turn)."""

    def __init__(self, values: dict):
        self.values = {k: list(v) if isinstance(v, (list, tuple)) else [v]
                       for k, v in values.items()}
        self.calls = {k: 0 for k in values}

    def integers(self, low, high, size=None, dtype=np.int64):
        if high not in self.values:
            return np.full(size, low, dtype=dtype)
        seq = self.values[high]
        v = seq[min(self.calls[high], len(seq) - 1)]
        self.calls[high] += 1
        return np.full(size, v, dtype=dtype)


def pair(attack, defence):
    return (attack - 1) * 100 + defence - 1


def run(att, dfn, policies, *, weapon=("6", "Medium"), shield=None, armour=0, dice=None,
        first=0, rounds=1, before=None, first_ap=1, surprise=None, charge=None,
        second_weapon=("0", "Medium"), rules=None):
    """One group of one duel with fixed dice; returns the group and the results."""
    one = P.combatant(70, weapon=weapon, characteristics={"DEX": 30, "INT": 30},  # +0 dm
                      action_points=first_ap)
    two = P.combatant(50, weapon=second_weapon, shield=shield, armour=armour,
                      characteristics={"CON": 18, "SIZ": 18}, action_points=1)
    spec = P.duel_spec(one, two, max_rounds=rounds, policies=policies, surprise=surprise,
                       charge=charge, rules=rules)
    t = K.tables(spec)
    res = K.Results(1, rounds)
    g = K.Group(np.array([0]), first, t)
    if before:
        before(g)
    values = {10000: pair(att, dfn), 100: 99, 101: 1, 20: 10, 3: 0}
    values.update(dice or {})
    K.run_group(g, t, rounds, res, FixedDice(values))
    return g, res, t


def state(g):
    return {k: getattr(g, k).copy() for k in ("hp", "prone", "stun", "lost", "shield")}


def changed(a, b):
    """The state fields that differ between two groups."""
    sa, sb = state(a), state(b)
    return {k for k in sa if not np.array_equal(sa[k], sb[k])}


def attacker_only(*keys):
    return ({"attacker": list(keys)}, "none")


def spent(res, side, key):
    keys = list(P.special_effects().index)
    return int(res.spent[side][keys.index(key)])


def test_choose_location_moves_the_blow_to_the_weakest_location():
    # success (10 <= 70) against a failed parry (80 > 50): one effect. Rolled: 1d20 = 11 ->
    # chest; chosen: the right arm (7 HP, the lowest 2 * (hp + armour) - vital)
    base, _, _ = run(10, 80, "none")
    g, res, _ = run(10, 80, attacker_only("choose_location"))
    assert base.hp[1, CHEST, 0] == 10 - 6 and base.hp[1, RIGHT_ARM, 0] == 7
    assert g.hp[1, RIGHT_ARM, 0] == 7 - 6 and g.hp[1, CHEST, 0] == 10
    assert changed(base, g) == {"hp"} and spent(res, 0, "choose_location") == 1


def test_bypass_armour_needs_a_critical():
    # critical (3 <= 7) against a failed parry: two effects; armour 2 everywhere
    base, _, _ = run(3, 80, "none", armour=2)
    g, _, _ = run(3, 80, attacker_only("bypass_armour"), armour=2)
    assert base.hp[1, CHEST, 0] == 10 - (6 - 2) and g.hp[1, CHEST, 0] == 10 - 6
    assert changed(base, g) == {"hp"}
    # a plain success cannot take it: nothing changes
    plain, res, _ = run(10, 80, attacker_only("bypass_armour"), armour=2)
    assert changed(run(10, 80, "none", armour=2)[0], plain) == set()
    assert spent(res, 0, "bypass_armour") == 0


def test_maximise_damage_takes_the_weapon_dice_at_their_maximum():
    # weapon 1d6 (table 1..6), the die shows 1 (index 0); maximised: 6
    base, _, _ = run(3, 80, "none", weapon=("1d6", "Medium"), dice={6: 0})
    g, _, _ = run(3, 80, attacker_only("maximise_damage"), weapon=("1d6", "Medium"),
                  dice={6: 0})
    assert base.hp[1, CHEST, 0] == 10 - 1 and g.hp[1, CHEST, 0] == 10 - 6
    assert changed(base, g) == {"hp"}


def test_impale_rolls_damage_twice_and_keeps_the_higher():
    dice = {6: [1, 4]}                      # first roll 2, second 5
    base, _, _ = run(10, 80, "none", weapon=("1d6", "Medium"), dice=dice)
    g, _, _ = run(10, 80, attacker_only("impale"), weapon=("1d6", "Medium"), dice=dice)
    assert base.hp[1, CHEST, 0] == 10 - 2 and g.hp[1, CHEST, 0] == 10 - 5
    dice = {6: [4, 1]}                      # first 5, second 2: still 5
    g, _, _ = run(10, 80, attacker_only("impale"), weapon=("1d6", "Medium"), dice=dice)
    assert g.hp[1, CHEST, 0] == 10 - 5


def test_stun_location_only_when_the_blow_does_damage():
    base, _, _ = run(10, 80, "none")
    g, _, _ = run(10, 80, attacker_only("stun_location"))
    assert changed(base, g) == {"stun"} and g.stun[1, 0] == 1
    armoured, res, _ = run(10, 80, attacker_only("stun_location"), armour=6)
    assert armoured.stun[1, 0] == 0 and spent(res, 0, "stun_location") == 1


@pytest.mark.parametrize("key,field,value", [("trip", "prone", True), ("disarm", "lost", 1)])
def test_attacker_trip_and_disarm_act_on_the_defender(key, field, value):
    base, _, _ = run(10, 80, "none")
    g, _, _ = run(10, 80, attacker_only(key))
    assert changed(base, g) == {field} and getattr(g, field)[1, 0] == value


@pytest.mark.parametrize("key,field,value", [("trip", "prone", True), ("disarm", "lost", 1),
                                             ("overextend", "lost", 1)])
def test_defender_effects_act_on_the_attacker(key, field, value):
    # the attack fails (80 > 70), the parry succeeds (10 <= 50): one effect to the defender
    base, _, _ = run(80, 10, "none")
    g, res, _ = run(80, 10, ("none", {"defender": [key]}))
    assert changed(base, g) == {field} and getattr(g, field)[0, 0] == value
    assert spent(res, 1, key) == 1 and spent(res, 0, key) == 0


def test_overextend_needs_a_failed_attack():
    # a success (10) parried by a critical (3 <= 5): one effect to the defender, but the attack
    # did not fail: overextend is not available, disarm (next in line) is taken
    g, res, _ = run(10, 3, ("none", {"defender": ["overextend", "disarm"]}))
    assert spent(res, 1, "overextend") == 0 and spent(res, 1, "disarm") == 1


def test_sunder_destroys_the_defenders_shield():
    base, _, _ = run(10, 80, "none", shield="buckler")
    g, _, _ = run(10, 80, attacker_only("sunder"), shield="buckler")
    assert changed(base, g) == {"shield"} and not g.shield[1, 0]


def test_arise_stands_a_prone_defender_up():
    def down(g):
        g.prone[1] = True
    base, _, _ = run(80, 10, "none", before=down)
    g, _, _ = run(80, 10, ("none", {"defender": ["arise"]}), before=down)
    assert base.prone[1, 0] and not g.prone[1, 0] and changed(base, g) == {"prone"}


@pytest.mark.parametrize("key", ["bleed", "withdraw", "riposte"])
def test_effects_without_a_duel_mechanic_are_counted_only(key):
    att, dfn = (10, 80) if key == "bleed" else (80, 10)
    pol = attacker_only(key) if key == "bleed" else ("none", {"defender": [key]})
    base, _, _ = run(att, dfn, "none")
    g, res, _ = run(att, dfn, pol)
    assert changed(base, g) == set()
    assert spent(res, 0 if key == "bleed" else 1, key) == 1


def test_a_lost_turn_skips_the_attack_but_not_the_defence():
    # side 0 has 2 A.P.: with a lost turn its first turn passes, side 1 attacks and side 0
    # parries with its second A.P.: one exchange, by side 1. Without: side 0 attacks twice.
    def lose(g):
        g.lost[0] = 1
    _, res, _ = run(80, 80, "none", first_ap=2, before=lose)
    _, plain, _ = run(80, 80, "none", first_ap=2)
    assert res.exchanges == 1 and plain.exchanges == 2


def test_surprise_flat_footed_and_the_bonus_effect():
    # the surprised defender cannot parry before its first turn (the 10 would have parried):
    # the blow lands unblocked (same-size weapon would block all), and the first hit gains one
    # effect: success vs a failed defence (1) + 1 = 2, spent on location and trip
    pol = attacker_only("choose_location", "trip")
    g, res, _ = run(10, 10, pol, surprise="second")
    # (tripped, side 1 spends its turn standing up: one exchange in the round)
    assert g.hp[1, RIGHT_ARM, 0] == 7 - 6 and g.struck[1, 0] and res.exchanges == 1
    assert int(res.effects[0]) == 2 and spent(res, 0, "trip") == 1
    # not surprised: the parry (same size) blocks it all, no effect
    g, res, _ = run(10, 10, pol)
    assert int(res.effects[0]) == 0 and not g.prone[1, 0]
    assert g.hp[1, RIGHT_ARM, 0] == 7 and g.hp[1, CHEST, 0] == 10


def test_surprise_without_flat_footing_still_parries():
    # [percentile.surprise] flat_footed = false: the surprised side parries before its first
    # turn (the same-size parry blocks the whole blow), but its first hit still gains the bonus
    # effect: success vs success (0) + 1
    rules = bl.load_rules().updated({"percentile": {"surprise": {"flat_footed": False}}})
    g, res, _ = run(10, 10, attacker_only("choose_location", "trip"), surprise="second",
                    rules=rules)
    assert g.hp[1, RIGHT_ARM, 0] == 7 and g.hp[1, CHEST, 0] == 10
    assert int(res.effects[0]) == 1 and g.struck[1, 0]


def test_surprise_is_only_initiative_without_flat_footing_or_bonus():
    # with neither flat-footing nor a bonus effect, surprise is the -10 initiative alone: the
    # same duels, die for die, as a second fighter 10 initiative slower and not surprised
    rules = bl.load_rules().updated(
        {"percentile": {"surprise": {"flat_footed": False, "bonus_effects": 0}}})
    penalty = bl.load_rules()["percentile"]["combat"]["surprise"]
    one = P.combatant(60, rules=rules)
    two = P.combatant(55, rules=rules)
    slow = dataclasses.replace(two, initiative_bonus=two.initiative_bonus + penalty)
    surprised = P.duel_sampler(4000, np.random.default_rng(5),
                               P.duel_spec(one, two, surprise="second", rules=rules))
    plain = P.duel_sampler(4000, np.random.default_rng(5), P.duel_spec(one, slow, rules=rules))
    assert penalty < 0 and surprised["wins"][1] > 0
    for key in ("wins", "kinds", "rounds", "first_serious", "exchanges", "effects", "spent"):
        assert np.array_equal(np.asarray(surprised[key]), np.asarray(plain[key])), key


def test_surprised_side_acting_first_is_ready_again():
    # side 1 surprised but acting first: its turn ends being flat-footed; it attacks, side 0
    # parries with its one A.P., and nobody has A.P. left: one exchange
    g, res, _ = run(10, 10, attacker_only("choose_location", "trip"), surprise="second",
                    first=1)
    assert g.ready[1, 0] and res.exchanges == 1 and not g.struck[1, 0]


def test_charge_grade_damage_step_and_size():
    # a charge: 70 at Hard = 47, so an attack roll of 50 fails; without a charge it succeeds
    assert ref_graded(70, "Hard") == 47
    g, res, _ = run(50, 80, "none", charge="first")
    assert (g.hp[1] == np.array([8, 8, 9, 10, 7, 7, 8])[:, None]).all()   # missed
    g, _, _ = run(50, 80, "none")
    assert g.hp[1, CHEST, 0] == 10 - 6
    # damage modifier one step up (+0 -> +1d2: table of 6 + 1d2 = [7, 8], index 1 -> 8) and
    # size + 1 (Medium -> Large against a Medium parry: half blocked, rounded up)
    g, _, _ = run(10, 10, "none", charge="first", dice={2: 1})
    assert g.hp[1, CHEST, 0] == 10 - (8 - 4)
    g, _, _ = run(10, 10, "none", dice={2: 1})
    assert g.hp[1, CHEST, 0] == 10                # same size: all blocked
    # only the first attack is a charge
    assert not g.charging.any()


def test_charge_row_of_the_fighter():
    f = P.combatant(60, characteristics={"STR": 13, "SIZ": 13})      # 26: +1d2
    assert (f.damage_bonus, f.charge_bonus) == ("+1d2", "+1d4")
    q = P.combatant(60, characteristics={"STR": 13, "SIZ": 13}, quadruped=True)
    assert q.charge_bonus == "+1d6"


# -- the documents' statements --------------------------------------------------------------
def test_surprise_costs_ten_initiative_exactly():
    # 1d10 + 12 each; surprised second: 1d10 + 2. One A.P. each, the first to act lands a 20
    # (a major wound anywhere) unless parried; the second's weapon does nothing. With surprise
    # the second's parry never happens before its first turn.
    one = P.combatant(70, weapon=("20", "Large"), action_points=1)
    two = P.combatant(50, weapon=("0", "Large"), action_points=1)
    n = 60_000
    t = bl.montecarlo.run(lambda k, rng: P.duel_sampler(k, rng, P.duel_spec(
        one, two, max_rounds=1, surprise="second", policies="legacy")), n, seed=3,
        progress=False).totals
    p_first = sum((d1 + 12 > d2 + 2) + 0.5 * (d1 + 12 == d2 + 2)
                  for d1 in range(1, 11) for d2 in range(1, 11)) / 100
    assert p_first == 1.0
    p_land = sum(ref_code(r, 70) >= 2 for r in range(1, 101)) / 100
    # flat-footed: no parry, so every blow that lands is a major wound (a win: the loser is
    # out whatever the Endurance roll)
    assert abs(t["wins"][0] / n - p_land) <= 5 * math.sqrt(p_land * (1 - p_land) / n)


def test_every_effect_row_is_in_the_table_with_its_reading():
    table = P.special_effects()
    for key in ("choose_location", "bypass_armour", "maximise_damage", "impale", "bleed",
                "stun_location", "trip", "disarm", "sunder", "withdraw", "riposte",
                "overextend", "arise"):
        assert key in table.index
    assert "percentile.special_effects" in set(bl.rules.resolve(None).assumptions["key"])


def test_function_policies_are_checked():
    def greedy(won, sit):
        return ["bypass_armour"] * won
    sit = P.situation("attacker", "critical", "failure")
    with pytest.raises(ValueError, match="twice"):
        P.spend_effects(2, sit, greedy)
    with pytest.raises(ValueError, match="may not choose"):
        P.spend_effects(1, P.situation("attacker", "success", "failure"), greedy)
    assert P.spend_effects(1, sit, greedy) == ("bypass_armour",)


# -- the vectorised duel against the plain-Python twin ---------------------------------------
def _shield_bearer():
    return (P.combatant(65, weapon="broadsword", shield="heater", armour=2),
            P.combatant(55, weapon="great_axe", armour={"head": 3, "chest": 3}))


def always_bypass(won, sit):
    """A function policy: bypass armour first when it can, then choose the location."""
    out = []
    if sit["role"] == "attacker" and sit["hit"]:
        if sit["own_tier"] == "critical":
            out.append("bypass_armour")
        out.append("choose_location")
    elif sit["role"] == "defender":
        out.append("disarm")
    return out[:won]


CASES = {
    "default, surprise, charge": dict(surprise="second", charge="first"),
    "none policy": dict(policies="none"),
    "function policy, both charge": dict(policies=always_bypass, charge="both"),
    "every effect": dict(policies=({"attacker": ["maximise_damage", "impale", "sunder",
                                                  "stun_location", "trip", "disarm"],
                                     "defender": ["arise", "trip", "overextend", "disarm"]},
                                    "default"), surprise="first"),
    "surprise, not flat-footed": dict(surprise="second", rules=bl.load_rules().updated(
        {"percentile": {"surprise": {"flat_footed": False}}})),
}


@pytest.mark.parametrize("name", list(CASES))
def test_vectorised_duel_agrees_with_the_plain_python_twin(name):
    spec = P.duel_spec(*_shield_bearer(), **CASES[name])
    n_py, n_np = 4000, 60_000
    py = pb.python_duels(n_py, random.Random(7), spec)
    vec = P.duel_sampler(n_np, np.random.default_rng(8), spec)
    assert_twin_agrees(py, vec, n_py, n_np)
    # effects spent per duel, per side and effect: Poisson-like counts, se from the pooled mean
    for side in (0, 1):
        for j in range(vec["spent"].shape[1]):
            a, b = py["spent"][side][j] / n_py, vec["spent"][side, j] / n_np
            pooled = (py["spent"][side][j] + vec["spent"][side, j]) / (n_py + n_np)
            se = math.sqrt(max(pooled, 1e-9) * 3 * (1 / n_py + 1 / n_np))
            assert abs(a - b) <= 5 * se + 1e-9, (side, j, a, b)


# -- GM guide: weakness and resistance (RULES.md 2.3), one public helper --------------------
@pytest.mark.parametrize("kind,weak,resist,expected", [
    ("fire", ["fire"], [], 3), ("fire", [], ["fire"], -3), ("fire", ["fire"], ["fire"], 0),
    ("fire", ["cold"], ["acid"], 0), (None, ["fire"], [], 0), ("", ["fire"], [], 0)])
def test_weakness_and_resistance_adjust_the_attack_by_three(kind, weak, resist, expected):
    assert bl.guide.attack_adjustment(kind, weak, resist) == expected


def test_the_fight_simulator_uses_the_weakness_helper(monkeypatch):
    # the simulator's adjustment matrix comes from the helper: a changed helper changes it
    import balance.guide.simulation as sim
    seen = []
    real = sim.attack_adjustment

    def spy(*args, **kw):
        seen.append(args[0])
        return real(*args, **kw)
    monkeypatch.setattr(sim, "attack_adjustment", spy)
    bl.fights.simulate(["Wolf"], trials=10, seed=1)
    assert seen


# -- what a situation is worth, and the report section ---------------------------------------
def test_duel_situations_rows_are_the_duels_they_name():
    a, b = P.combatant(70), P.combatant(50)
    sit = {"as set": {}, "ambush": {"surprise": "second"}, "charge": {"charge": "first"}}
    t = P.duel_situations(a, b, sit, trials=3000, seed=11)
    children = np.random.SeedSequence(11).spawn(3)
    for i, (name, kw) in enumerate(sit.items()):
        direct = P.duel(a, b, trials=3000, seed=children[i], progress=False, **kw)
        assert t["first_wins"].iloc[i] == direct.table.loc["first_wins", "estimate"]
    assert t["change"].iloc[1] == t["first_wins"].iloc[1] - t["first_wins"].iloc[0]
    lo, hi = t["change_low"].iloc[1], t["change_high"].iloc[1]
    se = math.sqrt(sum(p * (1 - p) / 3000 for p in t["first_wins"].iloc[:2]))
    assert hi - lo == pytest.approx(2 * 1.959964 * se, rel=1e-3)
    with pytest.raises(ValueError, match="duel_spec keywords"):
        P.duel_situations(a, b, {"bad": {"ambush": True}}, trials=10)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_report_section_on_surprise_and_effects(lang):
    from types import SimpleNamespace
    from balance.report.topics import TOPICS, special_effects as topic
    from balance.report.topics._base import Context
    assert "special_effects" in TOPICS
    rules = bl.rules.resolve(None)
    settings = SimpleNamespace(trials=1000, seed=5, workers=1)
    results = topic.compute(rules, settings)
    table = results["situations"]
    # one row per default situation and per effect the default policy lists
    pol = rules["percentile"]["special_effects"]["policies"]["default"]
    assert len(table) == len(P.SITUATIONS) + len(set(pol["attacker"]) | set(pol["defender"]))
    section = topic.render(results, Context(rules, settings, lang))
    assert section.title == topic.WORDS["title"][lang]
    assert any("special_effects" in line for line in section.assumed)
    assert len(section.tables[0].frame) == len(table)


def test_the_coverage_page_names_real_functions():
    # docs/explanation/percentile-coverage.md: every `bl.percentile.<name>` and bare `<name>`
    # in its function column exists in the public API
    import re
    from pathlib import Path
    page = (Path(__file__).parents[1] / "docs" / "explanation" /
            "percentile-coverage.md").read_text(encoding="utf-8")
    names = set()
    for line in page.splitlines():
        cells = line.split("|")
        if len(cells) > 4 and "implemented" in cells[2] and "not implemented" not in cells[2]:
            names |= set(re.findall(r"`(?:bl\.percentile\.)?([a-z_]+)", cells[3]))
    assert len(names) > 40
    missing = sorted(n for n in names if not hasattr(P, n))
    assert missing == []
    assert hasattr(bl.guide, "attack_adjustment")


# -- policies: properties over random preference lists and situations ------------------------
from hypothesis import given, strategies as st  # noqa: E402

KEYS = list(P.special_effects().index)
TIER_NAMES = ("fumble", "failure", "success", "critical")


def ref_allowed(row, role, own, other, hit, parried, evaded, prone):
    """RULES.md 3.4 as the effects table reads it, written again for the test."""
    if row["chooser"] not in (role, "either"):
        return False
    attack = own if role == "attacker" else other
    return {"any": True, "hit": hit,
            "critical": own == "critical" and (role == "defender" or hit),
            "parried": role == "defender" and parried,
            "evaded": role == "defender" and evaded,
            "defended": role == "defender" and (parried or evaded),
            "attack_failed": role == "defender" and attack in ("fumble", "failure"),
            "prone": prone}[row["requires"]]


@given(prefs=st.lists(st.sampled_from(KEYS), max_size=8), won=st.integers(0, 4),
       role=st.sampled_from(["attacker", "defender"]), own=st.sampled_from(TIER_NAMES),
       other=st.sampled_from(TIER_NAMES), evaded=st.booleans(), prone=st.booleans())
def test_a_list_policy_spends_allowed_effects_in_order(prefs, won, role, own, other, evaded,
                                                       prone):
    table = P.special_effects()
    parried = not evaded and role == "defender" and own in ("success", "critical")
    evaded = evaded and role == "defender" and own in ("success", "critical")
    sit = P.situation(role, own, other, parried=parried, evaded=evaded, prone=prone)
    pol = {"attacker": prefs} if role == "attacker" else {"defender": prefs}
    got = P.spend_effects(won, sit, pol)
    allowed = [k for k in dict.fromkeys(prefs)
               if ref_allowed(table.loc[k], role, own, other, sit["hit"], parried, evaded,
                              prone)]
    # no effect stacks in the bundled table: the first `won` allowed ones, in order
    assert got == tuple(allowed[:won])


def test_a_stacking_effect_may_be_taken_again():
    rows = [dict(r) for r in bl.rules.resolve(None)["percentile"]["special_effects"]["table"]]
    for r in rows:
        if r["key"] == "impale":
            r["stacks"] = True
    rules = bl.rules.resolve(None).updated({"percentile": {"special_effects": {"table": rows}}})
    sit = P.situation("attacker", "critical", "fumble")
    assert P.spend_effects(3, sit, {"attacker": ["impale", "choose_location"]}, rules) == (
        "impale", "choose_location", "impale")
