"""Fight simulator (RULES.md §2.3, dying §1.2): hand-worked fights, closed forms, statistics.

Statistical checks use fixed seeds and a tolerance of 5 standard errors of the estimate around
an exact value computed here, independently of the simulator.
"""
from dataclasses import replace
from fractions import Fraction
from functools import partial

import numpy as np
import pytest

import balance as bl
from balance.guide.fights import fight_sampler, fight_spec

NO_CRITS = bl.load_rules().updated({"guide": {"checks": {"critical_success": 0,
                                                         "critical_failure": 0}}})


def fighter(name, hp, *, attack=50, damage="0", bonus=0, init=20, defence=10, rules=None,
            **extra):
    """A combatant with chosen numbers (a medium creature sheet, then overridden)."""
    s = bl.creatures.sheet(level=1, base_hp=6, size="medium", name=name, damage=damage,
                           damage_bonus=bonus, rules=rules)
    return replace(s, max_hp=hp, roll_bonus=attack - s.melee_atk, init=init,
                   phys_def=defence, mag_def=defence, **extra)


def run(spec, trials, seed):
    return bl.montecarlo.run(partial(fight_sampler, spec=spec), trials, seed=seed,
                             progress=False)


def within(count, trials, p, sigmas=5):
    se = np.sqrt(p * (1 - p) / trials)
    assert abs(count / trials - p) <= sigmas * max(se, 1 / trials), (count / trials, p)


def test_deterministic_fight_without_crits():
    # PC: 5 HP, always hits for 5, acts first. Creature: 20 HP, always hits for 3.
    # Round 1: creature 15, PC 2. Round 2: creature 10, PC -1 -> dying, party down: loss.
    pc = fighter("PC", 5, bonus=5, init=15, rules=NO_CRITS)
    foe = fighter("Foe", 20, bonus=3, init=5, rules=NO_CRITS)
    spec = fight_spec([foe], [pc], rules=NO_CRITS)
    out = fight_sampler(1000, np.random.default_rng(0), spec)
    assert out["creature_wins"] == 1000 and out["party_wins"] == 0
    assert out["rounds"][2] == 1000
    assert out["dying"][1] == 1000
    # dying for the whole round it dropped in: 6 s (assumed seconds per round)
    assert out["dying_seconds"][6] == 1000
    # k = (0 + 1) x (6 + 1) = 7 -> no death on the critical-injury roll
    assert out["expected_deaths_sum"] == 0


def test_deterministic_win_in_four_rounds():
    pc = fighter("PC", 100, bonus=5, init=15, rules=NO_CRITS)
    foe = fighter("Foe", 20, bonus=3, init=5, rules=NO_CRITS)
    out = fight_sampler(500, np.random.default_rng(1), fight_spec([foe], [pc], rules=NO_CRITS))
    assert out["party_wins"] == 500 and out["rounds"][4] == 500 and out["knocked_out"][0] == 500


def test_one_hit_kills_closed_form():
    # Both always hit except on a natural 1 (crits change nothing: one hit kills).
    # PC first: P(win) = (19/20) / (1 - (1/20)^2) = 20/21; P(one round) = 1 - (1/20)^2.
    # The PC falls to -89 when it loses: dying 6 s, k = 95, P(death) = (95 - 75) / 100 = 0.2.
    pc = fighter("PC", 10, bonus=99, init=15)
    foe = fighter("Foe", 10, bonus=99, init=5)
    spec = fight_spec([foe], [pc])
    trials = 200_000
    res = run(spec, trials, 7)
    within(int(res["party_wins"]), trials, 20 / 21)
    within(int(res["rounds"][1]), trials, 1 - 1 / 400)
    p_loss = 1 / 21
    expected = p_loss * 0.2
    se = np.sqrt(p_loss * 0.04 * (1 - p_loss * 1) / trials + 1e-12)
    assert abs(res["expected_deaths_sum"] / trials - expected) <= 5 * se + 1e-9
    # and the same through the core rules' closed form
    assert bl.injuries.death_probability(seconds=6, negative_hp=89) == pytest.approx(0.2)


@pytest.mark.parametrize("kind, attack_kind", [
    ("plain", "melee"), ("weakness", "melee"), ("resistance", "melee"),
    ("plain", "ranged"), ("plain", "magic"), ("resistance", "magic"),
])
def test_hit_probability_by_enumeration(kind, attack_kind):
    # One attack decides: the PC kills with any hit; the foe (slower) can barely scratch it.
    # Melee and ranged attacks are rolled against Phys Def (17), magic against Mag Def (13).
    attack = 5
    defence = 13 if attack_kind == "magic" else 17
    extra = {"weakness": {"weaknesses": ("fire",)}, "resistance": {"resistances": ("fire",)},
             "plain": {}}[kind]
    pc = replace(fighter("PC", 1000, attack=attack, bonus=500, init=15, damage_type="fire"),
                 attack=attack_kind)
    foe = replace(fighter("Foe", 500, attack=0, bonus=1, init=5, **extra),
                  phys_def=17, mag_def=13)
    bonus = {"plain": 0, "weakness": 3, "resistance": -3}[kind]
    hits = sum(1 for face in range(1, 21)
               if face != 1 and (face == 20 or face + attack + bonus >= defence))
    trials = 100_000
    res = run(fight_spec([foe], [pc], max_rounds=1), trials, 11)
    within(int(res["party_wins"]), trials, hits / 20)


def test_critical_hit_rolls_dice_twice():
    # 1d6 never kills 7 HP in one hit; a natural 20 rolls 2d6: P(2d6 >= 7) = 21/36.
    pc = fighter("PC", 1000, attack=0, damage="1d6", init=15)
    foe = fighter("Foe", 7, attack=0, bonus=1, init=5, defence=30)
    trials = 200_000
    res = run(fight_spec([foe], [pc], max_rounds=1), trials, 3)
    within(int(res["party_wins"]), trials, (1 / 20) * (21 / 36))


def test_weakest_focus_versus_random():
    # PC (3 HP) always hits for 5 and acts first; foes A (10 HP) and B (5 HP) hit for 1.
    # weakest: B dies in round 1, A in round 3, PC ends at 1 HP: always a win.
    # random: hitting A first (1/2) lets both hit twice: PC at 0 in round 2: a loss.
    pc = fighter("PC", 3, bonus=5, init=15, rules=NO_CRITS)
    a = fighter("A", 10, bonus=1, init=5, rules=NO_CRITS)
    b = fighter("B", 5, bonus=1, init=4, rules=NO_CRITS)
    focus = fight_sampler(2000, np.random.default_rng(0),
                          fight_spec([a, b], [pc], targeting="weakest", rules=NO_CRITS))
    assert focus["party_wins"] == 2000 and focus["rounds"][3] == 2000
    trials = 40_000
    rnd = run(fight_spec([a, b], [pc], targeting="random", rules=NO_CRITS), trials, 5)
    within(int(rnd["party_wins"]), trials, 0.5)


def test_area_attack_hits_several_targets():
    # A foe hitting 2 PCs per attack (always, no crits) for 10 drops both 10-HP PCs in round 1.
    pcs = [fighter("P1", 10, bonus=1, init=5, rules=NO_CRITS),
           fighter("P2", 10, bonus=1, init=4, rules=NO_CRITS)]
    foe = fighter("Foe", 100, bonus=10, init=15, targets=2, rules=NO_CRITS)
    out = fight_sampler(100, np.random.default_rng(0), fight_spec([foe], pcs, rules=NO_CRITS))
    assert out["creature_wins"] == 100 and out["rounds"][1] == 100 and out["knocked_out"][2] == 100


def test_automatic_death_after_175_seconds():
    # Two PCs: one drops at once and lies dying while the other (unkillable) grinds on.
    rules = NO_CRITS.updated({"fights": {"max_rounds": 40}})
    weak = fighter("Weak", 1, bonus=1, init=1, rules=rules)
    tank = fighter("Tank", 10_000, bonus=1, init=2, rules=rules)
    foe = fighter("Foe", 35, bonus=2, init=15, defence=10, rules=rules)
    spec = fight_spec([foe], [weak, tank], targeting="weakest", rules=rules)
    out = fight_sampler(50, np.random.default_rng(0), spec)
    # foe hits Weak in round 1 (-1 HP), then the tank needs 35 rounds of 1 damage: 6 x 35 >= 175
    assert out["dead_by_pc"][0] == 50 and out["rounds"][35] == 50
    assert out["dying_seconds"][175] == 50


def test_same_seed_same_totals_any_chunking():
    spec = fight_spec(["Wolf"] * 4)
    a = bl.montecarlo.run(partial(fight_sampler, spec=spec), 3000, seed=9, progress=False,
                          block_size=1000)
    b = bl.montecarlo.run(partial(fight_sampler, spec=spec), 3000, seed=9, progress=False,
                          block_size=1000, chunk_size=2000)
    for k in a.totals:
        assert np.array_equal(a.totals[k], b.totals[k])
    assert int(a["party_wins"] + a["creature_wins"] + a["draws"]) == 3000


def _wilson(k, n, z=1.959963984540054):
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (0.0 if k == 0 else centre - half), (1.0 if k == n else centre + half)


def test_simulate_tables():
    n = 5000
    sim = bl.fights.simulate(["Wolf", "Wolf", "Skeleton"], level=1, trials=n, seed=2)
    t = sim.table.set_index("metric")
    assert sim.trials == n and sim.seed == 2
    # the same fights straight from the sampler: the tables restate its accumulators
    res = bl.montecarlo.run(partial(fight_sampler, spec=fight_spec(["Wolf", "Wolf", "Skeleton"],
                                                                   level=1)),
                            n, seed=2, progress=False)
    wins = int(res["party_wins"])
    assert 0 < wins < n
    row = t.loc["party_win_rate"]
    assert row["estimate"] == wins / n and row["trials"] == n
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(_wilson(wins, n), abs=1e-12)
    ko = res["knocked_out"]
    mean_ko = ko.dot(np.arange(ko.size)) / n
    sd_ko = np.sqrt((ko.dot(np.arange(ko.size) ** 2) - n * mean_ko ** 2) / (n - 1))
    assert t.loc["pcs_knocked_out", "estimate"] == pytest.approx(mean_ko)
    assert t.loc["knockout_rate", "estimate"] == pytest.approx(mean_ko / 4)
    assert t.loc["pcs_knocked_out", "se"] == pytest.approx(sd_ko / np.sqrt(n))
    assert t.loc["pcs_knocked_out", "ci_high"] - t.loc["pcs_knocked_out", "ci_low"] == \
        pytest.approx(2 * 1.959963984540054 * sd_ko / np.sqrt(n), rel=1e-6)
    r = res["rounds"]
    assert t.loc["rounds", "estimate"] == pytest.approx(r.dot(np.arange(r.size)) / n)
    dying = int(res["dying_by_pc"].sum())
    assert t.loc["dying_seconds_mean", "trials"] == dying
    if dying:
        assert t.loc["dying_seconds_mean", "estimate"] == \
            pytest.approx(res["dying_seconds"].dot(np.arange(res["dying_seconds"].size)) / dying)
    assert t.loc["expected_deaths_if_stabilised", "estimate"] == \
        pytest.approx(float(res["expected_deaths_sum"]) / n)
    pcs = sim.extra["pcs"]
    assert set(pcs["pc"]) == {"Warrior", "Ranger", "Mage", "Cleric"}


def test_infinite_fight_is_refused():
    pc = fighter("PC", 10, bonus=5)
    harmless = fighter("Ghost", 10, damage="0", bonus=0)
    with pytest.raises(ValueError, match="infinite fight: the creatures can never damage"):
        fight_spec([harmless], [pc])
    wall = fighter("Wall", 10, bonus=3, defence=99, rules=NO_CRITS)
    weakling = fighter("PC", 10, attack=0, bonus=5, rules=NO_CRITS)
    with pytest.raises(ValueError, match="the party can never damage"):
        fight_spec([wall], [weakling], rules=NO_CRITS)


@pytest.mark.parametrize("kwargs, word", [
    (dict(creatures=["Goblinn"]), "did you mean 'Goblin'"),
    (dict(creatures=[]), "creatures"),
    (dict(creatures=["Wolf"], party=[]), "party"),
    (dict(creatures=["Wolf"], targeting="nearest"), "targeting"),
    (dict(creatures=["Wolf"], targeting=5), "targeting must be 'weakest', 'random' or a pair"),
    (dict(creatures=["Wolf"], level=25), "level"),
    (dict(creatures=["Wolf"], max_rounds=0), "max_rounds"),
    (dict(creatures=["Goblin"] * 300), "at most 255 combatants"),
])
def test_bad_input(kwargs, word):
    with pytest.raises(ValueError, match=word):
        fight_spec(**kwargs)


def test_calibration_check_small_grid():
    check = bl.fights.calibration_check(levels=(3,), calibrations=(-2, 0, 2),
                                        families=(("Wolf",),), trials=2000, seed=4)
    t = check.table
    assert list(t["calibration"]) == [Fraction(-2), Fraction(0), Fraction(2)]
    assert list(t["challenge"]) == ["Easy", "Demanding", "Impossible"]
    assert list(t["encounter"]) == ["2 x Wolf", "4 x Wolf", "6 x Wolf"]
    # each encounter is simulate() with its own spawned child of the seed
    children = np.random.SeedSequence(4).spawn(3)
    for (_, row), child in zip(t.iterrows(), children):
        sim = bl.fights.simulate(["Wolf"] * row["creatures"], level=3, trials=2000, seed=child)
        st = sim.table.set_index("metric")
        assert row["party_win_rate"] == st.loc["party_win_rate", "estimate"]
        assert row["knockout_rate"] == st.loc["knockout_rate", "estimate"]
    # steps: consecutive calibrations; monotone = win rate not up and knock-out rate not down
    steps = check.steps
    assert list(zip(steps["from"], steps["to"])) == [(-2, 0), (0, 2)]
    wins, kos = list(t["party_win_rate"]), list(t["knockout_rate"])
    assert list(steps["monotone"]) == [wins[i + 1] <= wins[i] and kos[i + 1] >= kos[i]
                                       for i in range(2)]
    assert check.monotonic == (not steps["significant_reversal"].any()
                               and check.summary["across_family_reversals"].sum() == 0)


@pytest.mark.parametrize("targeting", ["weakest", "random"])
def test_vectorised_kernel_agrees_with_plain_python_loop(targeting):
    import random

    from balance.guide.fight_kernel import python_fights
    spec = fight_spec(["Wolf", "Skeleton", "Wolf"], targeting=targeting, level=3)
    n_py, n_np = 1500, 60_000
    py = python_fights(n_py, random.Random(3), spec)
    vec = run(spec, n_np, 8)
    p_py, p_np = py["party_wins"] / n_py, int(vec["party_wins"]) / n_np
    p = (py["party_wins"] + int(vec["party_wins"])) / (n_py + n_np)
    se = np.sqrt(p * (1 - p) * (1 / n_py + 1 / n_np))
    assert abs(p_py - p_np) <= 5 * se
    r_np = vec["rounds"].dot(np.arange(vec["rounds"].size)) / n_np
    sd = np.sqrt(vec["rounds"].dot(np.arange(vec["rounds"].size) ** 2) / n_np - r_np ** 2)
    assert abs(py["rounds_sum"] / n_py - r_np) <= 5 * sd * np.sqrt(1 / n_py + 1 / n_np)


@pytest.mark.parametrize("targeting", ["weakest", "random"])
def test_kernel_agrees_with_python_when_a_tie_mixes_sides(targeting):
    # At level 5 the Dragon ties the Warrior and the Cleric at Init 10 (random ties): that turn
    # slot holds either side, fight by fight, with different attacks, and the Dragon attacks
    # three PCs (each picked target excluded from the next pick).
    import random

    from balance.guide.fight_kernel import python_fights
    spec = fight_spec(["Dragon", "Goblin"], level=5, targeting=targeting)
    assert sorted(spec.init[[0, 3, 4]]) == [10, 10, 10] and spec.targets[4] == 3
    n_py, n_np = 500, 20_000
    py = python_fights(n_py, random.Random(5), spec)
    vec = run(spec, n_np, 11)
    p = (py["party_wins"] + int(vec["party_wins"])) / (n_py + n_np)
    se = np.sqrt(p * (1 - p) * (1 / n_py + 1 / n_np))
    assert abs(py["party_wins"] / n_py - int(vec["party_wins"]) / n_np) <= 5 * se
    r = np.arange(vec["rounds"].size)
    r_np = vec["rounds"].dot(r) / n_np
    sd = np.sqrt(vec["rounds"].dot(r ** 2) / n_np - r_np ** 2)
    assert abs(py["rounds_sum"] / n_py - r_np) <= 5 * sd * np.sqrt(1 / n_py + 1 / n_np)


@pytest.mark.parametrize("crits", [False, True])
def test_many_damage_dice_keep_their_distribution(crits):
    # 3d12 (6d12 on a critical hit: split into several outcome tables) against the exact
    # distribution of the dice module: P(one hit kills) = P(damage >= HP).
    rules = bl.load_rules() if crits else NO_CRITS
    hp = 42 if crits else 22
    pc = fighter("PC", 1000, attack=0 if crits else 50, damage="3d12", init=15, rules=rules)
    foe = fighter("Foe", hp, attack=0, bonus=1, init=5, defence=30 if crits else 10, rules=rules)
    dist = bl.dice.distribution("6d12" if crits else "3d12")
    p = dist.at_least(hp) * ((1 / 20) if crits else 1.0)
    trials = 100_000
    res = run(fight_spec([foe], [pc], max_rounds=1, rules=rules), trials, 13)
    within(int(res["party_wins"]), trials, p)


def test_accumulators_are_consistent():
    spec = fight_spec(["Wolf", "Goblin", "Ogre"], targeting=("weakest", "random"), level=2)
    n = 5000
    out = fight_sampler(n, np.random.default_rng(21), spec)
    assert out["party_wins"] + out["creature_wins"] + out["draws"] == n
    for key in ("knocked_out", "dying", "dead", "rounds"):
        assert out[key].sum() == n
    assert out["rounds"][0] == 0
    assert (out["dying_by_pc"] <= out["ko_by_pc"]).all()
    assert (out["dead_by_pc"] <= out["dying_by_pc"]).all()
    assert out["knocked_out"].dot(np.arange(spec.pcs + 1)) == out["ko_by_pc"].sum()
    assert out["dying_seconds"].sum() == out["dying_by_pc"].sum()
    # creature wins: the whole party is down
    assert out["knocked_out"][spec.pcs] == out["creature_wins"]
    again = fight_sampler(n, np.random.default_rng(21), spec)
    assert all(np.array_equal(out[k], again[k]) for k in out)


@pytest.mark.parametrize("ties, expected", [("random", 0.5), ("position", 1.0)])
def test_initiative_ties(ties, expected):
    # Equal Init, each kills the other with any hit (no crits, always hits): whoever acts
    # first wins. Random ties: 1/2; "position": the party is listed first, so it always wins.
    rules = NO_CRITS.updated({"fights": {"initiative_ties": ties}})
    pc = fighter("PC", 10, bonus=10, init=12, rules=rules)
    foe = fighter("Foe", 10, bonus=10, init=12, rules=rules)
    trials = 40_000
    res = run(fight_spec([foe], [pc], rules=rules), trials, 17)
    within(int(res["party_wins"]), trials, expected)


@pytest.mark.parametrize("foe_hp, loss", [(15, 0), (7, 1), (15, 1)])
def test_dying_seconds_and_negative_hp_reach_the_injury_roll(foe_hp, loss):
    # Round 1: the foe (first) drops Weak from 1 to -2 HP; the tank then needs foe_hp rounds
    # of 1 damage: Weak lies at -2 HP for foe_hp rounds of 6 s. Core rules 1.2 (closed form,
    # with the variants' HP loss per second): k = (n + 1)(d + npv + loss x d),
    # P(death) = clip((k - 75) / 100, 0, 1). Swapping d and npv would change k when loss > 0.
    rules = NO_CRITS.updated({"injuries": {"hp_loss_per_second": loss}})
    weak = fighter("Weak", 1, bonus=1, init=1, rules=rules)
    tank = fighter("Tank", 10_000, bonus=1, init=2, rules=rules)
    foe = fighter("Foe", foe_hp, bonus=3, init=15, rules=rules)
    spec = fight_spec([foe], [weak, tank], targeting="weakest", rules=rules)
    n = 200
    out = fight_sampler(n, np.random.default_rng(0), spec)
    d, npv = 6 * foe_hp, 2
    assert out["party_wins"] == n and out["rounds"][foe_hp] == n
    assert out["dying_seconds"][d] == n and out["dying_by_pc"].tolist() == [n, 0]
    k = d + npv + loss * d
    p = min(max((k - 75) / 100, 0.0), 1.0)
    assert out["expected_deaths_sum"] / n == pytest.approx(p, abs=1e-12)


def test_simulation_lists_the_assumptions_its_figures_rest_on():
    # RULES.md: values not given by the documents are flagged (assumed) next to any figure.
    spec = fight_spec(["Wolf"])
    keys = set(bl.fights.summarise(run(spec, 200, 1), spec).table.attrs["assumed"])
    assert {"fights.crit_damage_dice", "fights.seconds_per_round", "fights.initiative_ties",
            "fights.max_rounds", "fights.targeting", "party.level", "party.members",
            "bestiary.default_level", "bestiary.creatures"} <= keys


def test_spec_of_the_dragon_against_the_default_party_by_hand():
    # Guide formulas (RULES.md 2.2) on the rules data's Warrior and Dragon at level 5:
    # Atk = stat + level (+ weapon roll bonus), Def = 10 + 2 x stat + level (+ armour),
    # Max HP = base HP x level + CON; the Dragon attacks with magic, against Mag Def.
    spec = fight_spec(["Dragon"], level=5)
    assert spec.names == ("Warrior", "Ranger", "Mage", "Cleric", "Dragon")
    w, d, mage = 0, 4, 2
    assert spec.hp[w] == 9 * 5 + 2 and spec.hp[d] == 20 * 5 + 4
    assert spec.attack[w] == 3 + 5 + 2 and spec.attack[d] == 2 + 5
    assert list(spec.defences[w]) == [10 + 2 * 2 + 5 + 2, 10 + 2 * 0 + 5 + 0]
    assert list(spec.defences[d]) == [10 + 2 * 4 + 5, 10 + 2 * 1 + 5]
    assert spec.attack_defence[d] == 1 and spec.attack_defence[w] == 0
    assert spec.init[d] == 10 + 0 and spec.init[w] == 10 + 0
    assert spec.adjust[mage, d] == -3                 # the Mage's fire against a fire resistance
    assert spec.adjust[d, :4].tolist() == [0] * 4 and spec.targets[d] == 3  # no PC resists fire
    assert sorted(spec.faces[d][spec.faces[d] > 0]) == [6, 6] and spec.damage_bonus[d] == 2


def test_weakest_breaks_ties_by_listing_order():
    # A and B both have 10 HP; the PC (first, always hits, no crits) kills one per round.
    # "weakest" takes the first listed on a tie: A dies, B hits the 7-HP PC for 7: knocked out
    # in round 1. Had it taken B, A would hit for 1 and the one-round fight would be a draw.
    pc = fighter("PC", 7, bonus=10, init=15, rules=NO_CRITS)
    a = fighter("A", 10, bonus=1, init=5, rules=NO_CRITS)
    b = fighter("B", 10, bonus=7, init=4, rules=NO_CRITS)
    out = fight_sampler(500, np.random.default_rng(0),
                        fight_spec([a, b], [pc], targeting="weakest", max_rounds=1,
                                   rules=NO_CRITS))
    assert out["creature_wins"] == 500 and out["knocked_out"][1] == 500
    swapped = fight_sampler(500, np.random.default_rng(0),
                            fight_spec([b, a], [pc], targeting="weakest", max_rounds=1,
                                       rules=NO_CRITS))
    assert swapped["draws"] == 500 and swapped["knocked_out"][0] == 500
