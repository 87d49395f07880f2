"""The compiled fight loop (balance.guide._fight_loop, issue 16): its attack tables against an
enumeration of the d20 and the damage dice, its exact uniform picks, its two damage paths
against each other, and fights that stop and resume where the buffers run out.

Statistical checks use fixed seeds and 5 standard errors.
"""
import itertools
from collections import Counter
from dataclasses import replace
from fractions import Fraction
from functools import partial

import numpy as np
import pytest

import balance as bl
from balance.guide import _fight_loop, fight_kernel
from balance.guide.fights import fight_sampler, fight_spec
from fresh import run_python

NO_CRITS = bl.load_rules().updated({"guide": {"checks": {"critical_success": 0,
                                                         "critical_failure": 0}}})


def fighter(name, hp, *, attack=50, damage="0", bonus=0, init=20, defence=10, rules=None):
    s = bl.creatures.sheet(level=1, base_hp=6, size="medium", name=name, damage=damage,
                           damage_bonus=bonus, rules=rules)
    return replace(s, max_hp=hp, roll_bonus=attack - s.melee_atk, init=init,
                   phys_def=defence, mag_def=defence)


def exact_attack(spec, a, t):
    """P(damage = v) of one attack of a on t, by enumerating the d20 and every damage die."""
    faces = [int(f) for f in spec.faces[a] if f > 0]
    need = spec.defences[t, spec.attack_defence[a]] - spec.attack[a] - spec.adjust[a, t]
    out: Counter = Counter()
    for face in range(1, spec.die + 1):
        crit = face == spec.critical_success
        if not (crit or (face != spec.critical_failure and face >= need)):
            out[0] += Fraction(1, spec.die)
            continue
        dice = faces * (spec.crit_dice if crit else 1)
        rolls = list(itertools.product(*(range(1, f + 1) for f in dice)))
        for roll in rolls:
            v = max(sum(roll) + int(spec.damage_bonus[a]), spec.minimum_damage)
            out[v] += Fraction(1, spec.die * len(rolls))
    return out


@pytest.mark.parametrize("creatures", [["Wolf"] * 4, ["Goblin", "Skeleton"]])
def test_attack_tables_hold_the_exact_distribution_of_an_attack(creatures):
    spec = fight_spec(creatures, level=3)
    plan = fight_kernel._plan(spec)
    c = spec.hp.size
    assert plan["scale"][0] > 0        # these fights take the one-lookup path
    for a in range(c):
        for t in range(c):
            if spec.side[a] == spec.side[t]:
                continue
            q = int(plan["scale"][a])
            block = plan["attack"][plan["base"][a * c + t]:plan["base"][a * c + t] + q]
            got = {int(v): Fraction(int(n), q) for v, n in zip(*np.unique(block, return_counts=True))}
            assert got == {v: p for v, p in exact_attack(spec, a, t).items() if p}, (a, t)


def test_pick_is_lemire_with_rejection():
    pick = _fight_loop._pick.py_func
    u = np.array([0, 5, 2 ** 32 - 1, 1431655765], dtype=np.uint32)
    # n = 3: 2**32 mod 3 = 1, so the one number with x * 3 mod 2**32 < 1 (x = 0) is redrawn
    assert pick(u, 0, u.size, 3) == (0, 2)      # 0 rejected, then 5 * 3 >> 32 = 0
    assert pick(u, 2, u.size, 3) == (2, 3)      # (2**32 - 1) * 3 >> 32 = 2
    assert pick(u, 3, u.size, 3) == (0, 4)      # 1431655765 * 3 = 2**32 - 1
    # exact on a small model: 8-bit numbers, n = 6; each value from the same count of numbers
    counts = Counter()
    for x in range(256):
        m = x * 6
        if (m & 255) < 256 % 6:                  # the numbers Lemire's method redraws
            continue
        counts[m >> 8] += 1
    assert set(counts.values()) == {256 // 6}


def test_general_damage_path_agrees_with_the_one_lookup_path(monkeypatch):
    spec = fight_spec(["Wolf"] * 4)
    n = 40_000
    fast = fight_sampler(n, np.random.default_rng(3), spec)
    monkeypatch.setattr(fight_kernel, "_ATTACK_LIMIT", 0)
    assert fight_kernel._plan(spec)["scale"][0] == 0
    slow = fight_sampler(n, np.random.default_rng(4), spec)
    for key in ("party_wins", "creature_wins"):
        p = (int(fast[key]) + int(slow[key])) / (2 * n)
        se = np.sqrt(p * (1 - p) * 2 / n)
        assert abs(int(fast[key]) - int(slow[key])) / n <= 5 * se + 1e-12, key
    r = np.arange(fast["rounds"].size)
    mean_f, mean_s = fast["rounds"].dot(r) / n, slow["rounds"].dot(r) / n
    sd = np.sqrt(fast["rounds"].dot(r ** 2) / n - mean_f ** 2)
    assert abs(mean_f - mean_s) <= 5 * sd * np.sqrt(2 / n)


@pytest.mark.parametrize("small", [False, True])
def test_fights_resume_where_the_numbers_or_the_dying_list_run_out(monkeypatch, small):
    # A PC drops in round 1 and lies dying while a tank grinds the foe down for 35 rounds:
    # with buffers of one round's numbers and a list of one dying PC, every fight stops and
    # resumes many times, and the outcome (fixed by the numbers) is the same.
    if small:
        monkeypatch.setattr(fight_kernel, "_WORDS", 1)
        monkeypatch.setattr(fight_kernel, "_DYING", 1)
    rules = NO_CRITS.updated({"fights": {"max_rounds": 40}})
    weak = fighter("Weak", 1, bonus=1, init=1, rules=rules)
    tank = fighter("Tank", 10_000, bonus=1, init=2, rules=rules)
    foe = fighter("Foe", 35, bonus=2, init=15, rules=rules)
    spec = fight_spec([foe], [weak, tank], targeting="weakest", rules=rules)
    out = fight_sampler(30, np.random.default_rng(0), spec)
    assert out["dead_by_pc"].tolist() == [30, 0] and out["rounds"][35] == 30
    assert out["dying_seconds"][175] == 30 and out["party_wins"] == 30
    assert out["expected_deaths_sum"] == 30 and out["expected_deaths_sumsq"] == 30


def test_small_buffers_give_the_same_statistics(monkeypatch):
    spec = fight_spec(["Wolf", "Goblin", "Ogre"], targeting=("weakest", "random"), level=2)
    n = 20_000
    big = fight_sampler(n, np.random.default_rng(5), spec)
    monkeypatch.setattr(fight_kernel, "_WORDS", 1)
    monkeypatch.setattr(fight_kernel, "_DYING", 1)
    small = fight_sampler(n, np.random.default_rng(6), spec)
    for key in ("party_wins", "creature_wins"):
        p = (int(big[key]) + int(small[key])) / (2 * n)
        se = np.sqrt(p * (1 - p) * 2 / n)
        assert abs(int(big[key]) - int(small[key])) / n <= 5 * se + 1e-12, key
    assert int(small["party_wins"] + small["creature_wins"] + small["draws"]) == n
    assert small["knocked_out"].sum() == n and small["dying_seconds"].sum() == \
        small["dying_by_pc"].sum()


def test_a_fight_draws_only_what_it_rolls():
    # One PC who always hits for 5 against a 20-HP foe who always hits for 3, no ties: the PC
    # attacks 4 times, the foe 3 (it is down in round 4 before its turn): 7 numbers a fight.
    pc = fighter("PC", 100, bonus=5, init=15, rules=NO_CRITS)
    foe = fighter("Foe", 20, bonus=3, init=5, rules=NO_CRITS)
    spec = fight_spec([foe], [pc], rules=NO_CRITS)
    plan = fight_kernel._plan(spec)
    n = 1000
    u = np.random.default_rng(0).integers(0, 2 ** 32, size=10 * n, dtype=np.uint32)
    wins = np.zeros(3, np.int64)
    out = fight_kernel._empty(spec)
    totals = (wins,) + tuple(out[k] for k in fight_kernel._TOTALS)
    code, pos, started, finished, count = _fight_loop.play(
        u, 0, np.empty(2, np.int64), np.empty(1, np.int64), np.empty(2, np.int64),
        np.zeros(7, np.int64), 0, n, 0, *(np.empty(10, np.int64) for _ in range(3)), 0,
        totals, **plan)
    assert (code, started, finished, count) == (0, n, n, 0)
    assert wins.tolist() == [n, 0, 0] and out["rounds"][4] == n
    assert pos == 7 * n


def test_counted_draws_are_the_buffers():
    spec = fight_spec(["Wolf"] * 4)
    from balance.bench.counting import count_draws
    draws = count_draws(partial(fight_sampler, spec=spec), 2000, seed=0)
    assert set(draws["integers"]) == {2 ** 64} and draws["uniforms"] == 0
    assert draws["other"] == {}


# --- fight by fight against a naive reference on the same numbers -----------------------------
R32 = 1 << 32


def naive_pick(u, p, n):
    """Lemire's method with rejection, as written in the literature."""
    m = int(u[p]) * n
    p += 1
    if m % R32 < n:
        while m % R32 < R32 % n:
            m = int(u[p]) * n
            p += 1
    return m // R32, p


def naive_fight(u, pos, plan, spec):
    """One fight with the rules written the simple way: everyone down skipped, the targets
    sorted by (HP, position) before every attack; the numbers read in the kernel's order."""
    c, pcs = spec.hp.size, spec.pcs
    hp = [int(h) for h in spec.hp]
    order = [int(x) for x in plan["order0"]]
    for s0, m in plan["runs"]:
        for i in range(m - 1):
            x, pos = naive_pick(u, pos, m - i)
            order[s0 + i], order[s0 + i + x] = order[s0 + i + x], order[s0 + i]
    below, rnd = [0] * pcs, 0
    for rnd in range(1, spec.max_rounds + 1):
        for a in order:
            if hp[a] <= 0:
                continue
            foes = [t for t in range(c) if spec.side[t] != spec.side[a] and hp[t] > 0]
            if not foes:
                break
            k = int(spec.targets[a])
            if spec.policy[int(spec.side[a])] == fight_kernel.WEAKEST:
                chosen = sorted(foes, key=lambda t: (hp[t], t))[:k]
            else:
                chosen = list(foes)
                for i in range(min(k, len(chosen))):
                    x, pos = naive_pick(u, pos, len(chosen) - i)
                    chosen[i], chosen[i + x] = chosen[i + x], chosen[i]
                chosen = chosen[:k]
            for t in chosen:
                if plan["scale"][0] > 0:
                    x, pos = naive_pick(u, pos, int(plan["scale"][a]))
                    hp[t] -= int(plan["attack"][plan["base"][a * c + t] + x])
                    continue
                face, pos = naive_pick(u, pos, spec.die)
                o = int(plan["outcome"][a, face, t])
                if o:
                    total = 0
                    for g in range(plan["sizes"].shape[0]):
                        size, at = int(plan["sizes"][g, a * 3 + o]), int(plan["offsets"][g, a * 3 + o])
                        if size > 1:
                            x, pos = naive_pick(u, pos, size)
                            at += x
                        total += int(plan["values"][at])
                    hp[t] -= min(max(total, spec.minimum_damage), fight_kernel._MAX_HIT)
        for i in range(pcs):
            below[i] += hp[i] < 0
        if not (any(h > 0 for h in hp[:pcs]) and any(h > 0 for h in hp[pcs:])):
            break
    return hp, rnd, below, pos


def encounter(kind):
    rules = bl.load_rules()
    if kind == "wolves":
        return fight_spec(["Wolf"] * 4)
    if kind == "mixed":          # random targeting on one side, a three-target Dragon, ties
        return fight_spec(["Dragon", "Wolf", "Goblin"], targeting=("random", "weakest"),
                          level=8)
    if kind == "random":         # random on both sides, area attacks wider than the foes
        pcs = [fighter(f"P{i}", 12 + i, damage="1d6", init=10, rules=rules) for i in range(3)]
        for_all = replace(fighter("Storm", 30, damage="2d4", init=10, rules=rules), targets=5)
        return fight_spec([for_all, fighter("Imp", 9, damage="1d4", init=12, rules=rules)], pcs,
                          targeting="random", rules=rules)
    if kind == "groups":         # damage split over several tables
        pc = fighter("PC", 400, damage="5d20", init=15, rules=rules)
        return fight_spec([fighter("Golem", 300, damage="4d20", init=15, rules=rules)], [pc],
                          rules=rules)
    raise AssertionError(kind)


@pytest.mark.parametrize("general", [False, True])
@pytest.mark.parametrize("kind", ["wolves", "mixed", "random", "groups"])
def test_each_fight_is_the_naive_rules_on_the_same_numbers(monkeypatch, kind, general):
    if general:
        monkeypatch.setattr(fight_kernel, "_ATTACK_LIMIT", 0)
    spec = encounter(kind)
    plan = fight_kernel._plan(spec)
    assert (plan["scale"][0] == 0) == (general or kind == "groups")
    c, pcs = spec.hp.size, spec.pcs
    u = np.random.default_rng(11).integers(0, R32, size=400_000, dtype=np.uint32)
    hp, order, below, fight = (np.empty(c, np.int64), np.empty(c, np.int64),
                               np.empty(pcs, np.int64), np.zeros(7, np.int64))
    out = fight_kernel._empty(spec)
    totals = (np.zeros(3, np.int64),) + tuple(out[k] for k in fight_kernel._TOTALS)
    dying = [np.empty(pcs, np.int64) for _ in range(3)]
    pos = ref = 0
    for i in range(60):
        rounds = out["rounds"].copy()
        code, pos, *_ = _fight_loop.play(u, pos, hp, below, order, fight, i, i + 1, 0, *dying,
                                         0, totals, **plan)
        assert code == 0
        want_hp, want_round, want_below, ref = naive_fight(u, ref, plan, spec)
        got_round = int(np.flatnonzero(out["rounds"] - rounds)[0])
        # ``below``: the round each PC fell below 0 HP (read only for those below 0)
        got_below = [got_round - int(below[j]) + 1 if hp[j] < 0 else 0 for j in range(pcs)]
        assert (hp.tolist(), got_round, got_below, pos) == \
            (want_hp, want_round, want_below, ref), f"fight {i}"


def test_a_combatant_without_a_target_is_refused():
    pc = replace(fighter("P1", 10, damage="1d6"), targets=0)
    with pytest.raises(ValueError, match="targets of P1 must be between 1 and"):
        fight_spec([fighter("C1", 10, damage="1d6")], [pc])


def test_helpers_forked_after_fights_start_with_the_loop_loaded():
    import multiprocessing.forkserver

    from balance.montecarlo import pool
    assert "balance.guide._fight_warm" in pool._PRELOADS    # registered by the loop's import
    pool._context()
    assert "balance.guide._fight_warm" in multiprocessing.forkserver._forkserver._preload_modules
    # what the forkserver runs: warm() loads play for exactly the types fight_sampler passes
    script = ("import numpy as np, balance as bl\n"
              "import balance.guide._fight_warm\n"
              "from balance.guide import _fight_loop as fl\n"
              "before = len(fl.play.signatures)\n"
              "bl.fights.fight_sampler(50, np.random.default_rng(0), bl.fights.fight_spec(['Wolf']))\n"
              "print(before, len(fl.play.signatures))\n")
    assert run_python(script) == ["1", "1"]
