"""Rules fuzzing (issue 10 item 2): random valid variants give valid numbers everywhere, random
invalid ones give one ``RulesError`` from Python and from every command that reads rules.

The strategies (tests/strategies.py) are derived from the bundled data: every number with a
``[limits]`` entry and every interval table of the three rule sets is redrawn somewhere.

Properties, on every valid variant that loads: every probability of the public exact functions
in [0, 1]; every distribution sums to 1 within 1e-12; means finite; each Monte Carlo twin within
5 standard errors (plus two counts, for cells whose exact chance is far below 1/trials) of its
exact value, at fixed seeds; ``balance snapshot``'s measurement and the report's compute step
run on a few variants.

Profiles: by default every test is derandomized (``derandomize=True``: the same examples on every
run, CI never flakes) and the file runs in well under a minute on one core. A developer hunting
for new failures runs the long profile, 20x the examples from fresh random seeds::

    BALANCE_FUZZ=long python -m pytest -q -p no:cacheprovider tests/test_fuzz_rules.py

and copies a failing example into tests/strategies.py's ``CROSS_FIELD`` or a unit test.
"""
from __future__ import annotations

import contextlib
import functools
import math
import os
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

import strategies as S
from balance.core import d20, injuries, negotiation, rest, timeline, treatment
from balance.guide import design, economy, encounters
from balance import dice, guide, montecarlo, percentile as P
from balance.guide import creatures as cr
from balance.errors import RulesError
from balance.rules import default_rules, load_rules
from cli_run import in_process
from cli_table import BASE, RULES_POSITIONAL, commands, takes_rules

LONG = os.environ.get("BALANCE_FUZZ", "") == "long"


def fuzz(examples: int):
    """Hypothesis settings of this file (the long profile: 20x the examples, random seeds)."""
    return settings(max_examples=examples * (20 if LONG else 1), derandomize=not LONG,
                    deadline=None, database=None, print_blob=LONG,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def load(overlay: dict):
    """The variant's rules; a variant a cross-field check refuses is skipped (counted by
    hypothesis), test_valid_variants_load reports it."""
    try:
        return default_rules().updated(overlay, source="fuzz.toml")
    except RulesError:
        reject()


def probabilities(values, what: str) -> np.ndarray:
    arr = np.asarray(values, dtype=float)
    assert np.isfinite(arr).all() and (arr >= 0).all() and (arr <= 1).all(), (what, arr)
    return arr


def distribution(values, what: str, tol: float = 1e-12) -> np.ndarray:
    arr = probabilities(values, what)
    assert abs(arr.sum() - 1) <= tol, (what, arr.sum(), arr)
    return arr


def finite(values, what: str) -> np.ndarray:
    arr = np.asarray(values, dtype=float)
    assert np.isfinite(arr).all(), (what, arr)
    return arr


def agrees(estimate, exact, trials: int, what: str) -> None:
    """Monte Carlo within 5 standard errors of the exact value, plus two counts."""
    estimate, exact = np.asarray(estimate, float), np.asarray(exact, float)
    se = np.sqrt(exact * (1 - exact) / trials)
    bad = np.abs(estimate - exact) > 5 * se + 2 / trials
    assert not bad.any(), (what, estimate[bad], exact[bad])


# --- independent computations (enumeration over the die faces, from the variant's own data) --
def injuries_by_enumeration(r, seconds: int, hp: int, wounds: int) -> list[float]:
    """RULES.md 1.2: total = 1d{die} + (wounds + 1) x (seconds + negative HP, which grows by
    hp_loss_per_second); the row holding the total, death from death_threshold, and death
    without a roll from automatic_death_seconds. Probabilities in table order, then death."""
    inj = r["injuries"]
    rows, die = inj["table"], inj["die"]
    p = [0.0] * (len(rows) + 1)
    if seconds >= inj["automatic_death_seconds"]:
        p[-1] = 1.0
        return p
    modifier = (wounds + 1) * (seconds + hp + inj["hp_loss_per_second"] * seconds)
    for face in range(1, die + 1):
        total = face + modifier
        if total >= inj["death_threshold"]:
            p[-1] += 1 / die
            continue
        hits = [i for i, row in enumerate(rows)
                if row["low"] <= total <= row.get("high", inj["death_threshold"] - 1)]
        assert len(hits) == 1, f"total {total} falls in {len(hits)} rows"
        p[hits[0]] += 1 / die
    return p


def psychology_by_enumeration(r, psychology: int, ask: float) -> tuple[float, float, float,
                                                                       float]:
    """RULES.md 1.5 over the d20 faces: (unchanged, partial, full, expected change)."""
    die, neg = r["d20"]["die"], r["negotiation"]
    unchanged = partial = full = change = 0.0
    for face in range(1, die + 1):
        points = psychology - face
        if points < 0 or points < ask / neg["partial_divisor"]:
            unchanged += 1 / die
        elif points < ask / neg["full_divisor"]:
            partial += 1 / die
            change += points / die
        else:
            full += 1 / die
            change += ask / die
    return unchanged, partial, full, change


def charisma_by_enumeration(r, charisma: int, difficulty: int) -> list[float]:
    """RULES.md 2.3/2.6: d20 + CHA >= difficulty, natural faces critical: economy.OUTCOMES."""
    chk = r["guide"]["checks"]
    p = dict.fromkeys(economy.OUTCOMES, 0.0)
    for face in range(1, chk["die"] + 1):
        if face == chk["critical_success"]:
            p["critical_success"] += 1 / chk["die"]
        elif face == chk["critical_failure"]:
            p["critical_failure"] += 1 / chk["die"]
        else:
            p["success" if face + charisma >= difficulty else "failure"] += 1 / chk["die"]
    return [p[k] for k in economy.OUTCOMES]


# --- valid variants ---------------------------------------------------------------------------
@pytest.mark.parametrize("rule_set", sorted(S.RULE_SETS))
@fuzz(60)
@given(data=st.data())
def test_valid_variants_load(rule_set, data, tmp_path_factory):
    """Every variant the strategies call valid loads, from a dict and from a file, the same."""
    overlay = data.draw(S.valid_variants(rule_set))
    rules = default_rules().updated(overlay)  # a RulesError here: over-strict or a bad strategy
    path = tmp_path_factory.mktemp("v") / "variant.toml"
    path.write_text(S.to_toml(overlay), encoding="utf-8")
    assert load_rules(path).fingerprint == rules.fingerprint


@fuzz(150)
@given(overlay=S.valid_variants("core"), data=st.data())
def test_core_exact_functions(overlay, data):
    r = load(overlay)
    die = r["d20"]["die"]
    c, m = data.draw(st.integers(-3, die + 3)), data.draw(st.integers(-5, 5))
    pts = d20.test_points(c, m, rules=r)
    distribution(pts, "d20.test_points")
    chance = float(d20.success_chance(c, m, rules=r))
    probabilities(chance, "d20.success_chance")
    assert abs(chance - pts[pts.index >= 0].sum()) <= 1e-12

    auto = r["injuries"]["automatic_death_seconds"]
    s, hp, w = (data.draw(st.integers(0, auto + 2)), data.draw(st.integers(1, 30)),
                data.draw(st.integers(0, 3)))
    dist = injuries.injury_distribution(s, hp, w, rules=r)
    distribution(dist["probability"], "injury_distribution")
    expected = injuries_by_enumeration(r, s, hp, w)
    assert np.abs(dist["probability"].to_numpy(float) - expected).max() <= 1e-12, \
        (s, hp, w, list(dist["probability"]), expected)
    death = float(injuries.death_probability(s, hp, w, rules=r))
    probabilities(death, "death_probability")
    assert abs(death - dist["probability"].iloc[-1]) <= 1e-12
    distribution(injuries.injury_probabilities(s, hp, w, rules=r), "injury_probabilities")
    surface = injuries.injury_surface([s, s + 1], [hp, hp + 3], [w, w + 1], rules=r, tidy=False)
    probabilities(surface, "injury_surface")
    assert np.abs(surface.sum(axis=-1) - 1).max() <= 1e-12
    finite(injuries.roll_modifier(s, hp, w, rules=r), "roll_modifier")
    face = data.draw(st.integers(1, r["injuries"]["die"]))
    outcome = injuries.dying_outcome(s, hp, w, roll=face, rules=r)
    if s < auto:
        total = face + (w + 1) * (s + hp + r["injuries"]["hp_loss_per_second"] * s)
        assert outcome["total"] == total, (outcome, total)
        assert outcome.get("injury", None) == str(injuries.injury_for_total(total, rules=r)) \
            or outcome["outcome"] != "injury", outcome
    assert len(injuries.injury_table(rules=r)) == len(injuries.severity(rules=r)) \
        == len(r["injuries"]["table"])

    names = [row["en"] for row in r["injuries"]["table"]]
    injury, level = data.draw(st.sampled_from(names)), data.draw(st.sampled_from(["light", "full"]))
    cunning = data.draw(st.integers(-5, die + 5))
    p = float(treatment.treatment_chance(cunning, injury, level, rules=r))
    probabilities(p, "treatment_chance")
    minutes = float(treatment.expected_cure_minutes(cunning, injury, level, rules=r))
    assert minutes >= 0 and (math.isfinite(minutes) == (p > 0)), (p, minutes)
    within = probabilities(treatment.cured_within(cunning, injury, level, [0, 60, 6000],
                                                  rules=r), "cured_within")
    assert (np.diff(within) >= 0).all()
    cure = treatment.cure_time_distribution(cunning, injury, level, rules=r)
    probabilities(cure["probability"], "cure_time_distribution")
    # a geometric law: the rows hold 1 - (1 - p)^attempts
    assert abs(cure["probability"].sum() - (1 - (1 - p) ** len(cure))) <= 1e-12
    probabilities(treatment.cure_table([cunning], rules=r)["chance"], "cure_table")
    attempts = treatment.attempts_within([0, 59, 60, 1440, 10 ** 5], level, rules=r)
    assert (np.diff(attempts) >= 0).all() and attempts[0] >= 0, attempts
    assert len(treatment.levels(rules=r)) == 2

    psychology = data.draw(st.integers(-3, die + 3))
    ask = data.draw(st.one_of(st.integers(1, 100), st.floats(0.5, 100)))
    out = negotiation.ask_outcomes(psychology, ask, rules=r)
    distribution(out[["unchanged", "partial", "full"]], "ask_outcomes")
    finite(out["expected_change"], "expected_change")
    assert np.abs(out[["unchanged", "partial", "full", "expected_change"]].to_numpy(float)
                  - psychology_by_enumeration(r, psychology, ask)).max() <= 1e-9, \
        (psychology, ask, out)
    table = negotiation.ask_table(psychology, rules=r)
    assert np.abs(table[["unchanged", "partial", "full"]].sum(axis=1) - 1).max() <= 1e-12
    assert negotiation.best_ask(psychology, rules=r) in set(table.index)
    finite(negotiation.price_change(np.arange(-3, 30), ask, rules=r), "price_change")

    rr = r["rest"]
    score = rest.rest_score(data.draw(st.sampled_from(sorted(rr["thirst"]))),
                            data.draw(st.sampled_from(sorted(rr["hunger"]))),
                            data.draw(st.integers(0, 24)),
                            data.draw(st.integers(0, rr["comfort_max"])), rules=r)
    finite(score, "rest_score")
    segments = data.draw(st.lists(st.tuples(st.integers(0, 30), st.integers(-5, 30)),
                                  min_size=1, max_size=4))
    hours = rest.counted_hours(segments, rules=r)
    assert all(0 <= h <= s_[0] for h, s_ in zip(hours, segments))
    assert sum(hours) <= max(rr["max_hours_per_day"] * -(-sum(s_[0] for s_ in segments)
                                                         // rr["window_hours"]), 0) or not hours
    finite(rest.rest_log(segments, hp=0, max_hp=50, rules=r)["regeneration"], "rest_log")
    cost = data.draw(st.integers(1, 20))
    finite(timeline.charge_seconds(cost, rules=r), "charge_seconds")
    assert timeline.completion_second(5, cost, rules=r) >= 5
    finite(timeline.charge_at(0, cost, [0, 1, 5, 50], rules=r), "charge_at")
    triggers = sorted(data.draw(st.lists(st.integers(0, 100), min_size=1, max_size=8)))
    answered = np.asarray(timeline.answered_triggers(triggers, rules=r), bool)
    assert answered.shape == (len(triggers),) and answered[0]
    finite(rest.rest_needed(data.draw(st.integers(0, 500)), data.draw(st.integers(1, 30)),
                            rules=r)["days"], "rest_needed")


@fuzz(100)
@given(overlay=S.valid_variants("guide"), data=st.data())
def test_guide_exact_functions(overlay, data):
    r = load(overlay)
    level = data.draw(st.integers(r["creatures"]["level_min"], r["creatures"]["level_max"]))
    for row in r["bestiary"]["creatures"]:
        sheet = cr.creature(row["en"], level, rules=r)
        finite([sheet.max_hp, sheet.init, sheet.phys_def, sheet.mag_def, sheet.melee_atk,
                sheet.ranged_atk, sheet.mag_atk, float(sheet.adversity_ratio)],
               f"creature {row['en']}")
    for pc in cr.party(rules=r):
        finite([pc.max_hp], f"pc {pc.name}")
    table = cr.bestiary(level, rules=r)
    finite(table[["max_hp", "phys_def", "mag_def", "init"]], "bestiary")
    finite(cr.summary_table(sheet).drop(columns="adversity_ratio"), "summary_table")
    d = r["design"]
    for v in range(d["creature_stat_min"], d["creature_stat_max"] + 1):
        assert isinstance(design.stat_meaning(v, rules=r), str)
    design.check_creature({k: d["creature_stat_min"] for k in d["stats"]}, rules=r)
    design.check_ancestry({k: 0 for k in d["stats"]}, rules=r)
    design.check_class({k: 0 for k in d["stats"]}, rules=r)

    rungs = encounters.ladder(rules=r)
    assert all(a < b for a, b in zip(rungs, rungs[1:])), rungs
    for row in r["encounters"]["base_ratios"]:
        assert encounters.base_ratio(row["size"], row["kind"], rules=r) in rungs
        total = data.draw(st.integers(6 * d["creature_stat_min"], 6 * d["creature_stat_max"]))
        adjusted = encounters.adjusted_ratio(row["size"], row["kind"], total, rules=r)
        assert adjusted > 0 and math.isfinite(float(adjusted)), (row, total, adjusted)
    ratios = data.draw(st.lists(st.sampled_from([str(x) for x in rungs]), min_size=1,
                                max_size=4))
    pcs = data.draw(st.integers(1, min(8, r["encounters"]["max_pcs"])))
    with warnings.catch_warnings():  # advice (too many creatures...) is not the point here
        warnings.simplefilter("ignore", encounters.EncounterAdvice)
        cal = encounters.calibration(ratios, pcs, rules=r)
    finite(float(cal[0]), "calibration")
    assert cal[1] in [row["en"] for row in r["encounters"]["challenges"]]
    assert encounters.challenge(cal[0], rules=r) == cal[1]

    price, cha = data.draw(st.integers(0, 1000)), data.draw(st.integers(-5, 10))
    diff = data.draw(st.integers(1, r["guide"]["checks"]["die"] + 5))
    out = economy.charisma_negotiation(price, cha, diff, selling=data.draw(st.booleans()),
                                       rules=r)
    distribution([out[k] for k in economy.OUTCOMES], "charisma_negotiation")
    assert np.abs(np.array([out[k] for k in economy.OUTCOMES], float)
                  - charisma_by_enumeration(r, cha, diff)).max() <= 1e-12, (cha, diff, out)
    finite(out["expected_price"], "expected_price")
    for count in range(1, r["economy"]["max_dice_two_handed"] + 1):
        finite(economy.bonus_caps(count, rules=r), "bonus_caps")
    finite(economy.resale_price(price, rules=r), "resale_price")
    for outcome in economy.OUTCOMES:
        finite(economy.negotiated_price(price, outcome, rules=r), "negotiated_price")
    e = r["economy"]
    finite([economy.weapon_cost(e["roll_bonus_min"], "1d6", e["damage_bonus_min"], rules=r),
            economy.damage_cost("1d6", e["damage_bonus_min"], rules=r),
            economy.equipment_cost(e["equipment_bonus_min"], rules=r),
            economy.roll_upgrade_cost(e["roll_bonus_min"], e["roll_bonus_max"], rules=r),
            economy.bonus_upgrade_cost(e["equipment_bonus_min"], e["equipment_bonus_max"],
                                       rules=r)], "economy costs")

    heights = data.draw(st.lists(st.floats(0, 30, allow_nan=False), min_size=1, max_size=5))
    table = guide.fall_table(heights, rules=r)
    assert set(table["outcome"]) <= {b["outcome"] for b in r["guide"]["falls"]["bands"]}
    finite(table["mean_damage"], "fall mean damage")
    finite(guide.fatigue_penalty(data.draw(st.integers(0, 10)), data.draw(st.integers(0, 10)),
                                 rules=r), "fatigue_penalty")


@fuzz(150)
@given(overlay=S.valid_variants("percentile"), data=st.data())
def test_percentile_exact_functions(overlay, data):
    r = load(overlay)
    pc = r["percentile"]
    die = pc["die"]
    grades = [row["en"] for row in pc["grades"]["table"]]
    skill, other = data.draw(st.integers(0, 2 * die)), data.draw(st.integers(0, 2 * die))
    grade, other_grade = data.draw(st.sampled_from(grades)), data.draw(st.sampled_from(grades))
    distribution(P.tiers(skill, grade, rules=r), "tiers")
    table = P.tier_table(sorted({skill, other}), [grade], rules=r)
    assert np.abs(table.groupby(["skill", "grade"])["probability"].sum() - 1).max() <= 1e-12
    distribution(P.opposed(skill, other, first_grade=grade, second_grade=other_grade, rules=r),
                 "opposed")
    diff = P.differential(skill, other, first_grade=grade, second_grade=other_grade, rules=r)
    distribution(diff, "differential")
    assert (np.abs(diff.index) <= pc["contest"]["max_effects"]).all()

    for name in pc["characteristics"]["names"]:
        dist = P.human_distribution(name, rules=r)
        distribution(dist, f"human_distribution {name}")
    low, high = pc["characteristics"]["minimum"], min(pc["characteristics"]["maximum"], 300)
    x = data.draw(st.integers(low, high))  # one characteristic
    for attr in ("experience_modifier", "healing_rate", "luck_points", "magic_points",
                 "endurance", "willpower", "evade"):
        finite(getattr(P, attr)(x, rules=r), attr)
    x = data.draw(st.integers(2 * low, 2 * high))  # the sum of two
    for attr in ("action_points", "initiative_bonus", "combat_style_base"):
        finite(getattr(P, attr)(x, rules=r), attr)
    finite(dice.parse(str(P.damage_modifier(x, rules=r))).mean, "damage_modifier")
    hp = P.location_hp(max(x, 1), rules=r)
    assert (np.asarray(hp) >= 1).all(), hp
    for mounted in (False, True):
        distribution(P.hit_locations(mounted, rules=r)["probability"], "hit_locations")
    distribution(P.initiative(x, data.draw(st.integers(0, 30)), rules=r), "initiative")
    assert 0 <= P.veneration_source(10, data.draw(st.integers(0, 20000)), rules=r) <= 10
    for strength in range(1, len(pc["magic"]["location_fractions"]) + 1):
        assert 0 <= P.location_source(10, strength, rules=r) <= 10
    graded = P.graded_skill(skill, grade, rules=r)  # None: a grade that allows no roll
    assert graded is None or graded >= 0, graded
    rolls = data.draw(st.lists(st.integers(1, die), min_size=1, max_size=6))
    codes = P.tier_codes(rolls, [skill] * len(rolls), rules=r)
    assert ((codes >= 0) & (codes < len(pc["tiers"]["table"]))).all(), codes
    assert all(0 <= s_ <= max(skill, other) for s_ in P.contest_skills([skill, other], rules=r))
    assert (np.abs(P.effects_won(codes, codes[::-1], rules=r))
            <= pc["contest"]["max_effects"]).all()
    P.damage_modifier_step(data.draw(st.integers(0, 40)), rules=r)
    sizes = [row["en"] for row in pc["combat"]["sizes"]["table"]]
    damage = data.draw(st.integers(0, 50))
    blocked = P.parry_blocked(damage, data.draw(st.sampled_from(sizes)),
                              data.draw(st.sampled_from(sizes)), rules=r)
    assert 0 <= int(blocked) <= damage, blocked
    assert float(P.knockback_metres(damage, data.draw(st.integers(low, high)), rules=r)) >= 0
    assert P.harder_grade(grade, 1, rules=r) in grades
    assert P.abilities_known(skill, rules=r) >= 0
    P.casting_conditions(wound=data.draw(st.sampled_from(
        [None] + [w["key"] for w in pc["magic"]["wounds"]])), rules=r)


def _snapshot(r):
    from balance.regression import snapshot

    return snapshot.take(r, trials=200, seed=1)


# --- variants the fuzzers found, pinned (a random search may not draw them again) -------------
FOUND = [
    ("fall shorter than metres_per_die", {"guide": {"falls": {"metres_per_die": 3}}},
     lambda r: finite(guide.fall_table([2.0, 2.5, 3.0], rules=r)["mean_damage"], "falls")),
    ("roll bonus range without 0", {"economy": {"roll_bonus_min": 1, "roll_bonus_max": 5,
                                                "cap_reduction_per_extra_die": 1}},
     lambda r: (economy.damage_cost("1d6", rules=r), _snapshot(r))),
    ("roll bonus range of -1 only", {"economy": {"roll_bonus_min": -1, "roll_bonus_max": -1,
                                                 "cap_reduction_per_extra_die": 0}},
     lambda r: (economy.damage_cost("1d6", rules=r), _snapshot(r))),
    ("default asks past the ask cap", {"negotiation": {"full_divisor": 1,
                                                   "partial_divisor": 36}},
     lambda r: (negotiation.ask_table(29, rules=r), negotiation.best_ask(29, rules=r))),
    ("falls: centimetres_per_metre 1", {"guide": {"falls": {"centimetres_per_metre": 1}}},
     lambda r: finite(guide.fall_table([0.5, 2.0, 11.0], rules=r)["mean_damage"], "falls")),
]


@pytest.mark.parametrize("what, overlay, call", FOUND, ids=[f[0] for f in FOUND])
def test_found_variants(what, overlay, call):
    """Refused at load, or answered with valid numbers: never a failure later."""
    try:
        rules = default_rules().updated(overlay)
    except RulesError:
        return
    call(rules)


#: invalid variants the fuzzers found refused with the wrong file or key: (overlay, key named)
FOUND_INVALID = [
    ({"percentile": {"roll": {"critical_divisor": 10001}}}, "critical_divisor"),
    ({"percentile": {"roll": {"critical_divisor": 5000}}}, "critical_divisor"),
]


@pytest.mark.parametrize("overlay, key", FOUND_INVALID, ids=[k for _, k in FOUND_INVALID])
def test_found_refusals_name_the_variant(overlay, key, tmp_path):
    """The refusal names the variant file and the key it set (not a bundled file)."""
    path = tmp_path / "bad.toml"
    path.write_text(S.to_toml(overlay), encoding="utf-8")
    with pytest.raises(RulesError) as info:
        load_rules(path)
    assert str(path) in str(info.value) and key in str(info.value), info.value


# --- Monte Carlo twins --------------------------------------------------------------------------
TWIN_TRIALS = 20_000


@fuzz(30)
@given(overlay=S.valid_variants("core"), data=st.data())
def test_core_twins(overlay, data):
    r = load(overlay)
    auto = r["injuries"]["automatic_death_seconds"]
    s, hp, w = (data.draw(st.integers(0, auto + 2)), data.draw(st.integers(1, 20)),
                data.draw(st.integers(0, 2)))
    sim = injuries.simulate(s, hp, w, trials=TWIN_TRIALS, seed=3, rules=r)
    exact = injuries.injury_distribution(s, hp, w, rules=r)
    agrees(sim.table["probability"], exact["probability"], TWIN_TRIALS, "injuries.simulate")
    c, m = data.draw(st.integers(-2, r["d20"]["die"] + 2)), data.draw(st.integers(-3, 3))
    sim = d20.simulate(c, m, trials=TWIN_TRIALS, seed=5, rules=r)
    exact = d20.test_points(c, m, rules=r)
    assert list(sim.table.index) == list(exact.index)
    agrees(sim.table["estimate"], exact, TWIN_TRIALS, "d20.simulate")
    psychology, ask = data.draw(st.integers(0, r["d20"]["die"] + 2)), data.draw(st.integers(1, 60))
    sim = negotiation.simulate(psychology, ask, trials=TWIN_TRIALS, seed=9, rules=r)
    exact = negotiation.ask_outcomes(psychology, ask, rules=r)
    agrees(sim.table["probability"], exact[["unchanged", "partial", "full"]], TWIN_TRIALS,
           "negotiation.simulate")


@fuzz(30)
@given(overlay=S.valid_variants("percentile"), data=st.data())
def test_percentile_twins(overlay, data):
    r = load(overlay)
    die = r["percentile"]["die"]
    skill = data.draw(st.integers(0, 2 * die))
    grades = [row["en"] for row in r["percentile"]["grades"]["table"]]
    grade = data.draw(st.sampled_from(grades))
    run = montecarlo.run(functools.partial(P.tier_sampler, skill=skill, grade=grade, rules=r),
                         TWIN_TRIALS, seed=7)
    exact = P.tiers(skill, grade, rules=r)
    agrees(run.totals["tiers"] / TWIN_TRIALS, exact, TWIN_TRIALS, "tier_sampler")
    humans = P.sample_humans(TWIN_TRIALS, 11, rules=r)
    name = data.draw(st.sampled_from(list(r["percentile"]["characteristics"]["names"])))
    exact = P.human_distribution(name, rules=r)
    counts = humans[name].value_counts().reindex(exact.index, fill_value=0)
    assert counts.sum() == TWIN_TRIALS, "sample_humans drew a value outside its distribution"
    agrees(counts / TWIN_TRIALS, exact, TWIN_TRIALS, f"sample_humans {name}")


# --- snapshot and report on a sample ------------------------------------------------------------
@pytest.mark.parametrize("rule_set", sorted(S.RULE_SETS))
@fuzz(1)
@given(data=st.data())
def test_snapshot_and_report_compute(rule_set, data):
    from balance.regression import snapshot
    from balance.report.bundle import compute_bundle

    r = load(data.draw(S.valid_variants(rule_set)))
    snap = snapshot.take(r, trials=500, seed=1)
    for metric in snap.metrics:
        value = finite(snap.measurements[metric.name].value, metric.name)
        if metric.unit == "probability":
            (distribution if metric.shape == "distribution" else probabilities)(value,
                                                                               metric.name)
    bundle = compute_bundle(r, trials=500, seed=1)
    assert not bundle.missing


# --- invalid variants ---------------------------------------------------------------------------
def run_cli(argv: list[str]) -> tuple[int, str, str]:
    return in_process(*argv)


def assert_refused(code, err: str, what) -> None:
    lines = err.splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("balance: error:") \
        and "Traceback" not in err, (what, code, err)


def rules_invocations(file: str, baseline: str) -> list[list[str]]:
    """Every command that reads rules, each with ``file`` as its rules."""
    out = []
    for path in commands():
        if not takes_rules(path):
            continue
        args = [a.replace("{baseline}", baseline) for a in BASE[path]]
        if path in RULES_POSITIONAL:
            args[RULES_POSITIONAL[path]] = file
        else:
            args += ["--rules", file]
        out.append(list(path) + args)
    return out


def test_every_rules_command_is_fuzzed():
    assert {tuple(a[:2]) if a[0] == "rules" else (a[0],)
            for a in rules_invocations("x.toml", "b.json")} == \
        {p for p in commands() if takes_rules(p)}
    assert len([p for p in commands() if takes_rules(p)]) >= 17


@pytest.mark.parametrize("rule_set", sorted(S.RULE_SETS))
@fuzz(3)
@given(data=st.data())
def test_valid_variants_run_every_command(rule_set, data, tmp_path_factory, baseline):
    """What `balance rules check` accepts, every command answers (exit 0, or 1 where a
    metric moved): nothing fails later with a bare key name or a dice error."""
    overlay = data.draw(S.valid_variants(rule_set))
    r = load(overlay)
    folder = tmp_path_factory.mktemp("ok")
    (folder / "ok.toml").write_text(S.to_toml(overlay), encoding="utf-8")
    with contextlib.chdir(folder):
        for argv in rules_invocations("ok.toml", baseline):
            if "--injury" in argv:  # an injury of the variant's own table
                argv[argv.index("--injury") + 1] = r["injuries"]["table"][-1]["en"]
            code, _, err = run_cli(argv)
            assert code in (0, 1) and "balance: error" not in err, (overlay, argv, err)


@fuzz(150)
@given(case=S.invalid_variants())
def test_invalid_variants_refused_in_python(case, tmp_path_factory):
    overlay, what = case
    try:
        default_rules().updated(overlay, source="bad.toml")
    except RulesError as exc:
        assert "\n" not in str(exc), (what, str(exc))
    else:
        pytest.fail(f"accepted by Rules.updated: {what}" + (f": {overlay}" if len(str(overlay))
                                                             < 300 else ""))
    path = tmp_path_factory.mktemp("bad") / "bad.toml"
    path.write_text(S.to_toml(overlay), encoding="utf-8")
    with pytest.raises(RulesError) as info:
        load_rules(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value), (what, info.value)


@fuzz(40)
@given(case=S.invalid_variants())
def test_invalid_variants_refused_by_every_command(case, tmp_path_factory, baseline):
    overlay, what = case
    folder = tmp_path_factory.mktemp("cli")
    (folder / "bad.toml").write_text(S.to_toml(overlay), encoding="utf-8")
    with contextlib.chdir(folder):
        for argv in rules_invocations("bad.toml", baseline):
            code, _, err = run_cli(argv)
            assert_refused(code, err, (what, argv))
    assert sorted(p.name for p in folder.iterdir()) == ["bad.toml"], "output left behind"


@pytest.mark.parametrize("overlay, what", S.CROSS_FIELD, ids=[w for _, w in S.CROSS_FIELD])
def test_cross_field_breaks_refused(overlay, what, tmp_path, baseline, monkeypatch):
    """Each hand-listed cross-field break, from Python and from every command."""
    with pytest.raises(RulesError):
        default_rules().updated(overlay)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.toml").write_text(S.to_toml(overlay), encoding="utf-8")
    for argv in rules_invocations("bad.toml", baseline):
        code, _, err = run_cli(argv)
        assert_refused(code, err, argv)


@pytest.mark.parametrize("text, what", [
    (b"[injuries]\ndeath_threshold = \xff\n", "Latin-1 bytes"),
    (b"[injuries\n", "broken TOML"),
    (b"a = " + b"[" * 1000 + b"]" * 1000 + b"\n", "nested 1000 deep"),
    (b"[percentile]\ndie = 100\n[percentile]\ndie = 90\n", "section twice"),
    (b"limits = { \"d20.die\" = [1, 2] }\n", "[limits] in a variant"),
    (b"[assumed]\n\"d20.die\" = 3\n", "[assumed] note not text"),
])
def test_unreadable_files_refused(text, what, tmp_path, baseline, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.toml").write_bytes(text)
    with pytest.raises(RulesError) as info:
        load_rules("bad.toml")
    assert "bad.toml" in str(info.value)
    for argv in rules_invocations("bad.toml", baseline):
        code, _, err = run_cli(argv)
        assert_refused(code, err, (what, argv))
