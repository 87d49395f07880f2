"""Duel simulator (RULES.md 3.3): hand-worked exchanges with fixed dice, then statistics
against exact single-exchange probabilities computed here by enumeration."""
from __future__ import annotations

import math
from functools import partial

import numpy as np
import pytest

import balance as bl
from percentile_oracle import ref_code, ref_effects, ref_wound
from balance import montecarlo
from balance.percentile import exchange

P = bl.percentile
# CON+SIZ 24, in table order: right leg, left leg, abdomen, chest, right arm, left arm, head
HP = [5, 5, 6, 7, 4, 4, 5]
RIGHT_ARM, HEAD = 4, 6
# the earlier readings of RULES.md 3.1 / 3.3, kept as rules switches
OLD_EFFECTS = bl.rules.resolve(None).updated({"percentile": {"contest": {
    "winner_must_succeed": True}}})


def run(att_skill, def_skill, rolls, *, defends=True, parry=True, weapon_size=1, parry_size=1,
        armour=0, hp=None, endurance=22, knock=33, siz=13, rules=None):
    hp = np.array([hp if hp is not None else HP])
    attacker = {"skill": np.array([att_skill]), "weapon_size": np.array([weapon_size])}
    defender = {"defends": np.array([defends]), "parry": np.array([parry]),
                "skill": np.array([def_skill]), "parry_size": np.array([parry_size]),
                "armour": np.full((1, 7), armour), "hp": hp, "hp_max": np.array([HP]),
                "siz": np.array([siz]), "endurance": np.array([endurance]),
                "knockback_skill": np.array([knock])}
    base = {"attack": 50, "defence": 50, "endurance": 50, "knockback": 50, "location": 1,
            "damage": 1}
    base.update(rolls)
    out = exchange(attacker, defender, {k: np.array([v]) for k, v in base.items()}, rules)
    return {k: v[0].item() for k, v in out.items()}


def test_missed_attack_parried():
    out = run(70, 50, {"attack": 80, "defence": 30})
    assert (out["attack_tier"], out["defence_tier"], out["effects"]) == (1, 2, -1)
    assert not out["hit"] and out["damage"] == 0 and out["wound"] == 0


def test_effect_chooses_weapon_arm_serious_wound_failed_endurance():
    # 30 vs 70: success; 60 vs 50: failed parry -> 1 effect: choose location. Fewest hit points
    # (+ armour): the right arm (4); 6 damage -> -2: serious; Endurance 50 vs 22 fails.
    out = run(70, 50, {"attack": 30, "defence": 60, "location": 19, "damage": 6,
                       "endurance": 50})
    assert out["effects"] == 1 and out["chosen"] and out["location"] == RIGHT_ARM
    assert (out["damage"], out["hp_after"], out["wound"]) == (6, -2, 2)
    assert out["crippled"] and out["outcome"] == 3          # weapon arm: incapacitation


def test_endurance_must_beat_the_attack_roll():
    # attack 10 (success), Endurance 20 vs 22 (success, higher roll): resisted
    out = run(70, 50, {"attack": 10, "defence": 60, "damage": 6, "endurance": 20})
    assert out["wound"] == 2 and out["endurance_passed"] and out["outcome"] == 0
    # Endurance 20 against an attack roll of 30: same tier, lower roll: fails
    out = run(70, 50, {"attack": 30, "defence": 60, "damage": 6, "endurance": 20})
    assert not out["endurance_passed"] and out["outcome"] == 3


def test_half_block_in_defenders_favour_then_armour():
    # critical (5 <= 7) vs success: 1 effect; dagger-sized parry (one size smaller) blocks
    # ceil(7 / 2) = 4 of 7; armour 2 takes 2 more: 1 damage
    out = run(70, 50, {"attack": 5, "defence": 40, "damage": 7}, weapon_size=1, parry_size=0,
              armour=2)
    assert (out["attack_tier"], out["defence_tier"], out["effects"]) == (3, 2, 1)
    assert not out["bypass"] and out["damage"] == 1 and out["wound"] == 1


@pytest.mark.parametrize("weapon_size,parry_size,taken", [(1, 1, 0), (1, 2, 0), (1, 0, 3),
                                                          (2, 0, 7), (4, 1, 7)])
def test_parry_by_size(weapon_size, parry_size, taken):
    out = run(70, 50, {"attack": 30, "defence": 30, "damage": 7, "location": 10},
              weapon_size=weapon_size, parry_size=parry_size)
    assert out["effects"] == 0 and out["location"] == 3 and out["damage"] == taken


def test_critical_second_effect_bypasses_armour():
    out = run(70, 50, {"attack": 5, "defence": 70, "damage": 7, "endurance": 99}, armour=3)
    assert out["effects"] == 2 and out["bypass"] and out["damage"] == 7
    assert out["hp_after"] == -3 and out["wound"] == 2 and out["outcome"] == 3


def test_successful_evade_avoids_the_blow_and_knockback():
    out = run(70, 40, {"attack": 30, "defence": 10, "damage": 30}, parry=False)
    assert not out["hit"] and out["damage"] == 0 and not out["knocked_back"]


def test_no_defence_counts_as_failure():
    out = run(70, 50, {"attack": 50, "defence": 1}, defends=False)
    assert out["defence_tier"] == 1 and out["effects"] == 1


def test_major_wound_to_the_head_with_failed_endurance_kills():
    hp = list(HP)
    hp[HEAD] = 1
    out = run(70, 50, {"attack": 50, "damage": 6, "endurance": 90}, defends=False, hp=hp)
    assert out["location"] == HEAD and out["hp_after"] == -5 and out["wound"] == 3
    assert out["outcome"] == 1
    # the same with a passed Endurance roll: incapacitated
    out = run(70, 50, {"attack": 50, "damage": 6, "endurance": 60}, defends=False, hp=hp,
              endurance=80)
    assert out["wound"] == 3 and out["outcome"] == 3


def test_serious_vital_failed_endurance_knocks_out():
    # a failed parry (60 > 50), rolled location 10 (chest, 7 hit points), 7 damage: serious
    out = run(70, 50, {"attack": 40, "defence": 60, "damage": 7, "location": 10,
                       "endurance": 90}, hp=[9, 9, 9, 7, 9, 9, 9])
    assert out["location"] == 3 and out["wound"] == 2 and out["outcome"] == 2


def test_knockback_when_raw_damage_exceeds_siz():
    # fully parried (same size) but raw 20 > SIZ 13: pushed 1 m (7 // 5), Acrobatics 90 fails
    out = run(70, 50, {"attack": 30, "defence": 30, "damage": 20, "knockback": 90})
    assert out["damage"] == 0 and out["knocked_back"]
    assert out["knockback_metres"] == 1 and out["knocked_prone"]
    out = run(70, 50, {"attack": 30, "defence": 30, "damage": 20, "knockback": 20})
    assert out["knocked_back"] and not out["knocked_prone"]


def test_over_100_rule_in_the_exchange():
    # 150 vs 80 -> 100 vs 30: a 99 is a fumble, a defence 40 fails; failure vs fumble: the
    # defender wins the margin, 1 effect (RULES.md 3.1)
    out = run(150, 80, {"attack": 99, "defence": 40})
    assert (out["attack_tier"], out["defence_tier"], out["effects"]) == (0, 1, -1)
    out = run(150, 80, {"attack": 99, "defence": 40}, rules=OLD_EFFECTS)
    assert out["effects"] == 0                       # the earlier reading, a rules switch


# -- a location already at or below 0 hit again (RULES.md 3.3), every roll enumerated -------
OUTCOME_OF = {"fighting": 0, "death": 1, "unconsciousness": 2, "incapacitation": 3}


def ref_hit_again(before, dmg, where, every_hit, att=70, endurance=40):
    """Wound, Endurance passed and outcome of every (attack roll, Endurance roll) pair when an
    unparried blow of ``dmg`` goes to ``where`` (the right arm or the head, 4 / 5 HP maximum)
    at ``before`` hit points; written from RULES.md 3.3, roll by roll."""
    top = {RIGHT_ARM: 4, HEAD: 5}[where]
    wounds, passed, outcomes = [], [], []
    for r1 in range(1, 101):
        t1 = ref_code(r1, att)
        for e in range(1, 101):
            wound = ref_wound(before, dmg, top, every_hit) if t1 >= 2 else "none"
            ok = opposed_first_wins(ref_code(e, endurance), e, t1, r1)
            outcome = "fighting"
            if wound == "major":
                outcome = "incapacitation" if ok else "death" if where == HEAD \
                    else "unconsciousness"
            elif wound == "serious" and not ok:
                outcome = "unconsciousness" if where == HEAD else "incapacitation"
            wounds.append(["none", "minor", "serious", "major"].index(wound))
            passed.append(ok and wound in ("serious", "major"))
            outcomes.append(OUTCOME_OF[outcome])
    return wounds, passed, outcomes


@pytest.mark.parametrize("every_hit", [True, False])
@pytest.mark.parametrize("where", [RIGHT_ARM, HEAD])
@pytest.mark.parametrize("before,dmg", [(1, 1), (1, 3), (0, 1), (0, 3), (-1, 2), (-2, 2),
                                        (-3, 5), (-4, 1), (-6, 2), (2, 0), (-1, 0)])
def test_a_location_at_or_below_zero_hit_again(before, dmg, where, every_hit):
    # no defence (a failure): a blow that lands wins >= 1 effect and picks the location with
    # the fewest hit points, vital first on a tie: the head when it is as low as the right arm
    grid = np.arange(1, 101)
    att, end = np.repeat(grid, 100), np.tile(grid, 100)
    m = att.size
    hp = np.tile([9, 9, 9, 9, before, 9, before if where == HEAD else 9], (m, 1))
    hp_max = np.tile([9, 9, 9, 9, 4, 9, 5], (m, 1))
    one = lambda v: np.full(m, v)  # noqa: E731
    rules = bl.rules.resolve(None).updated({"percentile": {"combat": {
        "wound_every_hit": every_hit}}})
    out = exchange({"skill": one(70), "weapon_size": one(1)},
                   {"defends": one(False), "parry": one(True), "skill": one(50),
                    "parry_size": one(1), "armour": np.zeros((m, 7), dtype=int), "hp": hp,
                    "hp_max": hp_max, "siz": one(13), "endurance": one(40),
                    "knockback_skill": one(33)},
                   {"attack": att, "defence": one(50), "endurance": end, "knockback": one(50),
                    "location": one(1), "damage": one(dmg)}, rules)
    assert (out["location"][out["hit"]] == where).all()
    wounds, passed, outcomes = ref_hit_again(before, dmg, where, every_hit)
    assert out["wound"].tolist() == wounds
    assert out["endurance_passed"].tolist() == passed
    assert out["outcome"].tolist() == outcomes


# -- statistics against exact single exchanges ------------------------------------------


def opposed_first_wins(t1, r1, t2, r2):
    return t1 >= 2 and (t1 > t2 or (t1 == t2 and r1 > r2))


@pytest.fixture(scope="module")
def one_exchange():
    """Duels of exactly one exchange: a fast 70 % broadsword always attacks first (1 A.P.
    each, one round), a 50 % dagger parries."""
    first = P.combatant(70, weapon="broadsword", characteristics={"DEX": 30, "INT": 30},
                        action_points=1)
    second = P.combatant(50, weapon="dagger", action_points=1)
    spec = P.duel_spec(first, second, max_rounds=1)
    n = 200_000
    res = montecarlo.run(partial(P.duel_sampler, spec=spec), n, seed=2024, progress=False)
    return res, n


def exact_exchange():
    """Probabilities of: special effects each side wins (means), a serious-or-worse wound,
    and the defender going out, by enumeration of attack roll x defence roll x location x
    1d8 x Endurance roll."""
    att, par, endurance = 70, 50, 22
    d_tiers = [ref_code(r, par) for r in range(1, 101)]
    p_def = [d_tiers.count(t) / 100 for t in range(4)]
    eff_att = eff_def = p_wound = p_out = 0.0
    for r1 in range(1, 101):
        t1 = ref_code(r1, att)
        p_end_fail = sum(not opposed_first_wins(ref_code(e, endurance), e, t1, r1)
                         for e in range(1, 101)) / 100
        for t2 in range(4):
            pr = p_def[t2] / 100
            if pr == 0:
                continue
            e = ref_effects(t1, t2)
            eff_att += pr * max(e, 0)
            eff_def += pr * max(-e, 0)
            if t1 < 2:
                continue
            locations = [(RIGHT_ARM, 1.0)] if e >= 1 else \
                [(i, n / 20) for i, n in enumerate([3, 3, 3, 3, 3, 3, 2])]
            for loc, pl in locations:
                for dmg in range(1, 9):
                    taken = dmg - math.ceil(dmg / 2) if t2 >= 2 else dmg
                    p = pr * pl / 8
                    if taken >= HP[loc]:
                        p_wound += p
                        major = taken >= 2 * HP[loc]
                        vital_or_weapon = loc in (2, 3, HEAD, RIGHT_ARM)
                        if major or vital_or_weapon:
                            p_out += p if major else p * p_end_fail
    return eff_att, eff_def, p_wound, p_out


def test_single_exchange_statistics(one_exchange):
    res, n = one_exchange
    t = res.totals
    assert t["exchanges"] == n                       # exactly one exchange per duel
    eff_att, eff_def, p_wound, p_out = exact_exchange()
    # effects per duel: 0..3, variance <= 9/4; 5-sigma tolerances
    assert abs(t["effects"][0] / n - eff_att) < 5 * 1.5 / math.sqrt(n)
    assert abs(t["effects"][1] / n - eff_def) < 5 * 1.5 / math.sqrt(n)
    for observed, p in ((t["first_serious"][1], p_wound), (t["wins"][0], p_out)):
        assert abs(observed / n - p) < 5 * math.sqrt(p * (1 - p) / n)
    assert t["wins"][1] == 0                          # the defender never attacks


def test_identical_fighters_are_even():
    f = P.combatant(60, weapon="broadsword", shield="buckler", armour=2)
    sim = P.duel(f, f, trials=60_000, seed=7, progress=False)
    p1, p2 = sim.table.loc["first_wins", "estimate"], sim.table.loc["second_wins", "estimate"]
    se = math.sqrt((p1 + p2 - (p1 - p2) ** 2) / 60_000)
    assert abs(p1 - p2) < 5 * se
    outcome_total = sim.table.loc[["first_wins", "second_wins", "timeout"], "estimate"].sum()
    assert outcome_total == pytest.approx(1.0)


def test_sampler_accumulators_are_consistent_and_seeded():
    spec = P.duel_spec(P.combatant(70), P.combatant(50), max_rounds=5)
    a = P.duel_sampler(3000, 9, spec)
    b = P.duel_sampler(3000, 9, spec)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert a["wins"].sum() == 3000 and a["rounds"].sum() == 3000
    assert a["kinds"].sum() == a["wins"][:2].sum() and a["kinds"][:, 0].sum() == 0
    assert a["first_serious"].sum() == 3000 and a["rounds"].shape == (6,)


def test_tables_shape_and_seeds():
    grid = P.duel_table([40, 70], trials=500, seed=3)
    assert list(grid[["first_skill", "second_skill"]].itertuples(index=False, name=None)) == \
        [(40, 40), (40, 70), (70, 40), (70, 70)]
    assert (grid["ci_low"] <= grid["first_wins"]).all() and len(set(grid["spawn_key"])) == 4
    match = P.weapon_matchups(["dagger", "great_axe"], trials=500, seed=3)
    assert list(match["first_weapon"]) == ["dagger", "dagger", "great_axe", "great_axe"]


# -- action points: per-action cost is rule data, refreshed each round ---------------------
def _harmless(skill, ap, **kw):
    """A fighter whose blows do no damage (duels always time out), fast when DEX/INT high."""
    return P.combatant(skill, weapon=("0", "Medium"), action_points=ap, **kw)


def test_action_point_cost_is_rule_data():
    # RULES.md 3.3 "1 A.P. per action by default": [percentile.combat] ap_per_action. At 2 A.P.
    # per action, two 2-A.P. fighters get one attack and one defence each round between them.
    rules = bl.load_rules().updated({"percentile": {"combat": {"ap_per_action": 2}}})
    first = _harmless(70, 2, characteristics={"DEX": 30, "INT": 30}, rules=rules)
    second = _harmless(50, 2, rules=rules)
    out = P.duel_sampler(500, 1, P.duel_spec(first, second, max_rounds=3, rules=rules))
    assert out["exchanges"] == 500 * 3          # first attacks (2), second parries (2): done
    assert out["wins"].tolist() == [0, 0, 500]
    # 3 A.P. at 2 per action: one action, the odd point is wasted
    first = _harmless(70, 3, characteristics={"DEX": 30, "INT": 30}, rules=rules)
    out = P.duel_sampler(500, 1, P.duel_spec(first, second, max_rounds=3, rules=rules))
    assert out["exchanges"] == 500 * 3


def exact_effects(att, dfn, defends):
    """Mean and variance of the special effects the attacker / defender win in one exchange
    (attack roll x defence roll enumerated; no defence = a failure)."""
    values = {"att": [], "def": []}
    for r1 in range(1, 101):
        t1 = ref_code(r1, att)
        for r2 in range(1, 101):
            t2 = ref_code(r2, dfn) if defends else 1
            e = ref_effects(t1, t2)
            values["att"].append(max(e, 0))
            values["def"].append(max(-e, 0))
    return {k: (float(np.mean(v)), float(np.var(v))) for k, v in values.items()}


def test_action_points_refresh_each_round_and_no_ap_means_no_defence():
    # 3 A.P. against 1, blows that do no damage, 4 rounds: each round the fast side attacks
    # three times; the first attack is parried (1 A.P.), the next two meet no defence (a
    # failure); the slow side never attacks. Effects per duel against the exact enumeration.
    rounds, n = 4, 40_000
    first = _harmless(70, 3, characteristics={"DEX": 30, "INT": 30})
    second = _harmless(50, 1)
    # (policy "legacy": only the attacker spends, so no lost turn changes the exchanges)
    out = montecarlo.run(partial(P.duel_sampler, spec=P.duel_spec(
        first, second, max_rounds=rounds, policies="legacy")),
                         n, seed=31, progress=False).totals
    assert out["exchanges"] == 3 * rounds * n and out["wins"].tolist() == [0, 0, n]
    parried, open_ = exact_effects(70, 50, True), exact_effects(70, 50, False)
    for side, key in ((0, "att"), (1, "def")):
        mean = rounds * (parried[key][0] + 2 * open_[key][0])
        var = rounds * (parried[key][1] + 2 * open_[key][1])
        assert abs(out["effects"][side] / n - mean) <= 5 * math.sqrt(var / n) + 1e-12


# -- one decisive exchange: evade, parry two sizes smaller, major wounds and their kinds -----
LOCATION_FACES = [3, 3, 3, 3, 3, 3, 2]      # 1d20 faces of each location, table order
VITAL = {2, 3, HEAD}


def exact_decisive(att, dfn, evades):
    """One exchange in which every blow that lands (20 damage, no armour) is a major wound:
    P(attacker wins) and P(loser dead / unconscious / incapacitated), by enumeration of attack
    roll x defence roll x location x Endurance roll (Endurance 22 vs the attack roll)."""
    p = {"wins": 0.0, 1: 0.0, 2: 0.0, 3: 0.0}
    for r1 in range(1, 101):
        t1 = ref_code(r1, att)
        if t1 < 2:
            continue
        p_fail = sum(not opposed_first_wins(ref_code(e, 22), e, t1, r1)
                     for e in range(1, 101)) / 100
        for r2 in range(1, 101):
            t2 = ref_code(r2, dfn)
            if evades and t2 >= 2:
                continue                                  # a successful evade avoids the blow
            effects = t1 - t2 if t1 > t2 else 0
            locs = [(RIGHT_ARM, 1.0)] if effects >= 1 else \
                [(i, k / 20) for i, k in enumerate(LOCATION_FACES)]
            for loc, pl in locs:
                q = pl / 1e4
                p["wins"] += q
                p[3] += q * (1 - p_fail)                  # passed Endurance: incapacitated
                p[1 if loc in VITAL else 2] += q * p_fail  # failed: dead (vital) / unconscious
    return p


@pytest.mark.parametrize("mode", ["evade", "parry_two_sizes_smaller"])
def test_decisive_exchange_statistics(mode):
    n = 100_000
    fast = {"DEX": 30, "INT": 30}
    first = P.combatant(70, weapon=("20", "Large"), characteristics=fast, action_points=1)
    if mode == "evade":       # Evade 60 > Combat Style 50: the defender evades
        second = P.combatant(50, weapon="dagger", evade=60, action_points=1)
    else:                     # a Small dagger against a Large weapon blocks nothing
        second = P.combatant(50, weapon="dagger", action_points=1)
    spec = P.duel_spec(first, second, max_rounds=1)
    t = montecarlo.run(partial(P.duel_sampler, spec=spec), n, seed=77, progress=False).totals
    assert t["exchanges"] == n and t["wins"][1] == 0
    exact = exact_decisive(70, 60 if mode == "evade" else 50, evades=mode == "evade")
    observed = {"wins": t["wins"][0], 1: t["kinds"][0, 1], 2: t["kinds"][0, 2],
                3: t["kinds"][0, 3]}
    for key, p in exact.items():
        assert abs(observed[key] / n - p) <= 5 * math.sqrt(p * (1 - p) / n), key
    assert t["first_serious"][1] == t["wins"][0]      # every landed blow is a major wound


def test_initiative_decides_who_strikes_first():
    # 1d10 + 13 - ceil(ENC 6 / 5) = 1d10 + 11 against 1d10 + 12; ties broken by a fair coin.
    # One A.P. each: whoever acts first attacks, the other spends its A.P. parrying. Only the
    # first side's blow can tell (20 damage: a major wound wherever it lands; the second's
    # weapon does none); the second parries with a Large weapon, which blocks all of it.
    first = P.combatant(70, weapon=("20", "Large"), armour_enc=6, action_points=1,
                        characteristics={"DEX": 13, "INT": 13})
    second = P.combatant(50, weapon=("0", "Large"), action_points=1,
                         characteristics={"DEX": 11, "INT": 13})
    assert (first.initiative_bonus, second.initiative_bonus) == (11, 12)
    n = 100_000
    spec = P.duel_spec(first, second, max_rounds=1)
    t = montecarlo.run(partial(P.duel_sampler, spec=spec), n, seed=5, progress=False).totals
    assert t["exchanges"] == n and t["wins"][1] == 0
    p_first = sum((d1 + 11 > d2 + 12) + 0.5 * (d1 + 11 == d2 + 12)
                  for d1 in range(1, 11) for d2 in range(1, 11)) / 100
    p_land = sum(ref_code(r, 70) >= 2 for r in range(1, 101)) / 100
    p_parry_fails = sum(ref_code(r, 50) < 2 for r in range(1, 101)) / 100
    p = p_first * p_land * p_parry_fails
    assert abs(t["wins"][0] / n - p) <= 5 * math.sqrt(p * (1 - p) / n)


def test_serious_wound_stuns_the_defender_out_of_its_next_defence():
    # 6 damage, parried (same size) or not at all. A blow that lands beat a failed parry, so it
    # wins an effect and picks the right arm (4 HP): -2, serious. Endurance 90 against the
    # attack roll: failed -> weapon arm, incapacitated; passed -> stunned 1d3 of its turns.
    # Round 2 (A.P. refreshed): a stunned defender cannot parry; the next blow to the arm
    # (-8 <= -4) is a major wound. A fresh defender parries again.
    fast = {"DEX": 30, "INT": 30}
    first = P.combatant(70, weapon=("6", "Medium"), characteristics=fast, action_points=1)
    second = P.combatant(50, weapon=("0", "Medium"), endurance=90, action_points=1)
    n = 100_000
    spec = P.duel_spec(first, second, max_rounds=2, policies="legacy")   # only the attacker
    t = montecarlo.run(partial(P.duel_sampler, spec=spec), n, seed=13, progress=False).totals
    p_hit = sum(ref_code(r, 70) >= 2 for r in range(1, 101)) / 100
    p_parry_fails = sum(ref_code(r, 50) < 2 for r in range(1, 101)) / 100
    p_out = p_wounded = 0.0                 # round 1: out, or seriously wounded and stunned
    for r1 in range(1, 101):
        t1 = ref_code(r1, 70)
        if t1 < 2:
            continue
        fail = sum(not opposed_first_wins(ref_code(e, 90), e, t1, r1)
                   for e in range(1, 101)) / 100
        p_out += p_parry_fails * fail / 100
        p_wounded += p_parry_fails * (1 - fail) / 100
    p_clean = 1 - p_out - p_wounded
    p_win = p_out + p_wounded * p_hit + p_clean * p_out
    observed = {"wins": t["wins"][0] / n, "serious_in_round_1": t["first_serious"][1] / n,
                "serious_in_round_2": t["first_serious"][2] / n}
    exact = {"wins": p_win, "serious_in_round_1": p_out + p_wounded,
             "serious_in_round_2": p_clean * p_hit * p_parry_fails}
    for key, p in exact.items():
        assert abs(observed[key] - p) <= 5 * math.sqrt(p * (1 - p) / n), key
    assert t["wins"][1] == 0 and t["knockbacks"] == 0


@pytest.mark.parametrize("str_siz,bonus_faces,sign", [((18, 18), 6, 1), ((3, 3), 6, -1),
                                                      ((11, 13), 0, 1)])
def test_combatant_damage_is_weapon_plus_damage_modifier(str_siz, bonus_faces, sign):
    # STR+SIZ 36 -> +1d6, 6 -> -1d6, 24 -> none (RULES.md 3.2); a broadsword is 1d8
    f = P.combatant(60, characteristics={"STR": str_siz[0], "SIZ": str_siz[1]})
    expected = {}
    for w in range(1, 9):
        for b in (range(1, bonus_faces + 1) if bonus_faces else [0]):
            v = w + sign * b
            expected[v] = expected.get(v, 0) + 1 / (8 * max(bonus_faces, 1))
    assert bl.dice.distribution(f.damage).to_dict() == pytest.approx(expected)


def test_negative_raw_damage_counts_as_zero():
    # a -1d6 damage modifier can take a blow below 0: raw damage is never below
    # [percentile.duel] minimum_damage (0), so nothing is taken and nobody is knocked back
    out = run(70, 50, {"attack": 30, "defence": 60, "damage": -3})
    assert out["hit"] and (out["raw_damage"], out["damage"], out["wound"]) == (0, 0, 0)
    assert out["hp_after"] == HP[RIGHT_ARM] and not out["knocked_back"]


@pytest.mark.parametrize("endurance", [0, 22, 60, 100, 130])
def test_endurance_failures_per_attack_roll_match_the_opposed_roll(endurance):
    # the duel kernel draws Endurance as "face < failing faces of this attack roll": the count
    # of failing faces, against brute-force opposed rolls (RULES.md 3.1), every attack tier
    from balance.percentile._duel_kernel import _endurance_fails
    for skill in (0, 35, 70, 100, 150):
        a_tier = np.array([ref_code(r, skill) for r in range(1, 101)])
        got = _endurance_fails(a_tier, 100, endurance, bl.rules.resolve(None))
        want = [sum(not opposed_first_wins(ref_code(e, endurance), e, int(t1), r1)
                    for e in range(1, 101)) for r1, t1 in zip(range(1, 101), a_tier)]
        assert got.tolist() == want, skill


# -- repeated serious wounds in a duel: the kernel against an exact enumeration ---------------
def exact_chain(every_hit, att=70, par=50, endurance=50, attacks=3, arm=4, dmg=2):
    """One round: a fast attacker with ``attacks`` A.P. strikes ``dmg`` at a defender with one
    A.P. (a same-size parry of the first blow blocks all; the others meet no defence). Every
    blow that lands wins an effect and picks the right arm (``arm`` HP, the weapon arm): a
    serious wound with a failed Endurance roll (opposed to the attack roll) incapacitates.
    Returns P(attacker wins), mean and mean square of serious-or-worse wounds per duel, and
    the mean number of exchanges (the duel stops at the wound that takes the defender out), by
    enumeration over attack, parry and Endurance rolls and a chain over the blows."""
    p_parry_fails = sum(ref_code(r, par) < 2 for r in range(1, 101)) / 100
    land_fail = land_pass = 0.0                 # per unparried blow: lands and Endurance ...
    for r1 in range(1, 101):
        t1 = ref_code(r1, att)
        if t1 < 2:
            continue
        fail = sum(not opposed_first_wins(ref_code(e, endurance), e, t1, r1)
                   for e in range(1, 101)) / 100
        land_fail += fail / 100
        land_pass += (1 - fail) / 100
    # state: (blows landed, serious wounds, out) -> probability
    states = {(0, 0, False): 1.0}
    exchanges = 0.0
    for i in range(attacks):
        exchanges += sum(p for (_, _, out), p in states.items() if not out)
        q = p_parry_fails if i == 0 else 1.0
        nxt: dict = {}
        for (k, s, out), p in states.items():
            if out:
                nxt[(k, s, out)] = nxt.get((k, s, out), 0.0) + p
                continue
            wound = ref_wound(arm - k * dmg, dmg, arm, every_hit)
            miss = 1 - q * (land_fail + land_pass)
            nxt[(k, s, False)] = nxt.get((k, s, False), 0.0) + p * miss
            if wound in ("serious", "major"):
                # major: out whatever the roll; serious on the weapon arm: out if failed
                for fails, pr in ((True, land_fail), (False, land_pass)):
                    key = (k + 1, s + 1, fails or wound == "major")
                    nxt[key] = nxt.get(key, 0.0) + p * q * pr
            else:
                key = (k + 1, s, False)
                nxt[key] = nxt.get(key, 0.0) + p * q * (land_fail + land_pass)
        states = nxt
    win = sum(p for (_, _, out), p in states.items() if out)
    mean = sum(p * s for (_, s, _), p in states.items())
    square = sum(p * s * s for (_, s, _), p in states.items())
    return win, mean, square, exchanges


@pytest.mark.parametrize("every_hit", [True, False])
def test_repeated_serious_wounds_against_exact_chain(every_hit):
    # the weapon arm goes 4 -> 2 -> 0 (serious) -> -2: serious again, with its Endurance roll
    # (RULES.md 3.3), or nothing new under the earlier reading (combat.wound_every_hit = false)
    rules = bl.rules.resolve(None).updated({"percentile": {"combat": {
        "wound_every_hit": every_hit}}})
    first = P.combatant(70, weapon=("2", "Medium"), characteristics={"DEX": 30, "INT": 30},
                        action_points=3, rules=rules)
    second = P.combatant(50, weapon=("0", "Medium"), endurance=50, action_points=1, rules=rules)
    assert list(second.hit_points) == HP
    n = 200_000
    spec = P.duel_spec(first, second, max_rounds=1, policies="legacy", rules=rules)
    t = montecarlo.run(partial(P.duel_sampler, spec=spec), n, seed=2026, progress=False).totals
    assert t["wins"][1] == 0 and t["knockbacks"] == 0
    win, mean, square, exchanges = exact_chain(every_hit)
    assert abs(t["exchanges"] / n - exchanges) <= 5 * 1.0 / math.sqrt(n)   # 1..3: sd <= 1
    assert abs(t["wins"][0] / n - win) <= 5 * math.sqrt(win * (1 - win) / n)
    sd = math.sqrt(square - mean ** 2)
    assert abs(t["serious_wounds"][1] / n - mean) <= 5 * sd / math.sqrt(n)
    assert (t["kinds"][0, 3] == t["wins"][0])          # the weapon arm: incapacitation


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_report_duel_text_states_the_readings_the_rules_set(lang):
    # the report's duel section names the two readings its figures rest on, as set by the rules
    from balance.report.topics import duels
    from balance.report.topics._base import Context
    earlier = bl.rules.resolve(None).updated({"percentile": {
        "contest": {"winner_must_succeed": True}, "combat": {"wound_every_hit": False}}})
    new = duels._readings(Context(rules=bl.rules.resolve(None), settings=None, lang=lang))
    old = duels._readings(Context(rules=earlier, settings=None, lang=lang))
    assert "winner_must_succeed = false" in new["effects"]
    assert "wound_every_hit = true" in new["wounds"]
    assert "winner_must_succeed = true" in old["effects"]
    assert "wound_every_hit = false" in old["wounds"]


def test_grid_run_options_may_set_progress():
    # run_options go to montecarlo.run; a progress key replaces the grid's default (off)
    # instead of clashing with it
    a = P.duel_table([40, 70], trials=300, seed=3, run_options={"progress": False})
    b = P.duel_table([40, 70], trials=300, seed=3)
    assert a["first_wins"].tolist() == b["first_wins"].tolist()
