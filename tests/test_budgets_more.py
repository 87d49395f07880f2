"""Work that a variant or an argument sizes stays within the budgets (fuzz findings F5, F6):
the death chance never builds a table that scales with the injury rows, and the rescue's
exact columns never build the arrival x negative-HP product grid. Exact values against
enumerations written here."""
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

import balance as bl
from balance import budgets, dice
from balance.core import injuries, rescue


@pytest.fixture(scope="module")
def big():
    """A variant at the [limits]: d100000, a 1,000-row table (the table budget)."""
    rows = [{"low": 1 + 100 * i, "high": 100 * (i + 1), "modifier": -100, "en": f"I{i}",
             "fr": f"B{i}"} for i in range(999)]
    rows.append({"low": 99901, "modifier": -100, "en": "I999", "fr": "B999"})
    return bl.load_rules().updated({"injuries": {
        "die": 100_000, "death_threshold": 100_000, "automatic_death_seconds": 100_000,
        "table": rows}})


def death_by_faces(k: int, die: int, threshold: int) -> Fraction:
    """P(1d{die} + k >= threshold), counting the faces."""
    return Fraction(sum(1 for f in range(1, die + 1) if f + k >= threshold), die)


# --- F5: the death chance over every second, whatever the table ------------------------------
def test_death_curve_of_a_1000_row_table(big):
    seconds = np.arange(0, 100_001)
    p = injuries.death_probability(seconds, 5, 1, rules=big)
    assert p.shape == (100_001,)
    for s in (0, 1, 49_990, 49_997, 50_000, 77_777, 99_999):
        k = 2 * (s + 5)
        assert p[s] == float(death_by_faces(k, 100_000, 100_000)), s
    assert p[100_000] == 1.0  # automatic death


def test_row_probabilities_over_the_grid_budget_refused(big):
    with pytest.raises(ValueError) as info:
        injuries.injury_probabilities(np.arange(0, 100_001), 5, rules=big)
    text = str(info.value)
    assert "injury_probabilities" in text and "100,001 x 1,001" in text \
        and "grid budget" in text and "\n" not in text, text
    cells = budgets.MAX_GRID_CELLS // 1001  # just inside: answered
    assert injuries.injury_probabilities(np.arange(cells), 5, rules=big).shape == (cells, 1001)


# --- F6: rescue's exact columns without the product grid --------------------------------------
def faces(expr: str) -> dict[int, Fraction]:
    """Distribution of a small dice expression by enumerating every face."""
    d = dice.parse(expr)
    ranges = [range(1, f + 1) for s, c, f in d.terms for _ in range(c)]
    signs = [s for s, c, f in d.terms for _ in range(c)]
    out: dict[int, Fraction] = {}
    combos = list(itertools.product(*ranges))
    for combo in combos:
        total = d.constant + sum(s * x for s, x in zip(signs, combo))
        out[total] = out.get(total, 0) + Fraction(1, len(combos))
    return out


def brute_outcomes(rules, arrival, negative_hp, wounds, charge):
    """(wounds, rows + 2) by enumerating arrival x negative HP x the injury die."""
    inj = rules["injuries"]
    table, die, thr = inj["table"], inj["die"], inj["death_threshold"]
    loss, auto = inj["hp_loss_per_second"], inj["automatic_death_seconds"]
    out = np.zeros((len(wounds), len(table) + 2))
    for i, w in enumerate(wounds):
        acc = [Fraction(0)] * (len(table) + 2)
        for a, pa in faces(arrival).items():
            t = a + charge
            if t >= auto:
                acc[-1] += pa
                continue
            for v, pv in faces(negative_hp).items():
                for f in range(1, die + 1):
                    total = f + (w + 1) * (t + v + loss * t)
                    if total >= thr:
                        acc[-2] += pa * pv / die
                        continue
                    for j, row in enumerate(table):
                        if row["low"] <= total <= row.get("high", thr - 1):
                            acc[j] += pa * pv / die
        out[i] = [float(x) for x in acc]
    return out


CASES = [({}, "6+1d8", "1d6", 1), ({}, "2d20", "2d6+2", 3),
         ({"hp_loss_per_second": 2, "automatic_death_seconds": 40}, "20+2d8", "1d10", 2),
         ({"die": 20, "death_threshold": 40, "table": [
             {"low": 1, "high": 19, "modifier": 0, "en": "Hurt", "fr": "Blessé"},
             {"low": 20, "modifier": -5, "en": "Maimed", "fr": "Mutilé"}]}, "1d12", "1d4", 0)]


@pytest.mark.parametrize("change, arrival, negative_hp, ap", CASES)
def test_exact_outcomes_against_enumeration(change, arrival, negative_hp, ap):
    r = bl.load_rules().updated({"injuries": change}) if change else bl.load_rules()
    wounds = (0, 1, 3)
    p = rescue.plan(arrival, negative_hp, wounds, action_ap=ap, rules=r)
    got = rescue.exact_outcomes(p, rules=r)
    want = brute_outcomes(r, arrival, negative_hp, wounds, p.charge_seconds)
    assert np.abs(got - want).max() <= 1e-12


@pytest.mark.parametrize("change, arrival, negative_hp, ap", CASES[1:3])
def test_exact_death_curve_against_enumeration(change, arrival, negative_hp, ap):
    r = bl.load_rules().updated({"injuries": change}) if change else bl.load_rules()
    sim = rescue.simulate(arrival, negative_hp, (0, 2), action_ap=ap, trials=2_000, seed=1,
                          rules=r)
    inj = r["injuries"]
    charge = rescue.plan(arrival, negative_hp, action_ap=ap, rules=r).charge_seconds
    for row in sim.extra["by_time"].itertuples():
        t = row.arrival + charge
        if t >= inj["automatic_death_seconds"]:
            want = 1.0
        else:
            want = float(sum(pv * death_by_faces((row.wounds + 1) * (t + v + inj[
                "hp_loss_per_second"] * t), inj["die"], inj["death_threshold"])
                for v, pv in faces(negative_hp).items()))
        assert abs(row.exact - want) <= 1e-12, row


def test_exact_outcomes_of_huge_supports_without_the_product():
    # 9,991 x 99,901 arrival x negative-HP totals: a product grid of 10^9 cells
    r = bl.load_rules().updated({"injuries": {"die": 100_000, "death_threshold": 100_000,
                                              "automatic_death_seconds": 100_000}})
    p = rescue.plan("10d1000", "100d1000", (0,), action_ap=0, rules=r)
    got = rescue.exact_outcomes(p, rules=r)
    # independent: the sum's distribution from balance.dice, then the death chance per total
    s = dice.distribution("10d1000+100d1000")
    k = s.totals
    want = float((s.probabilities * (100_000 - np.clip(99_999 - k, 0, 100_000)) / 100_000).sum())
    assert got[0, -1] == 0.0  # no arrival reaches the automatic death
    assert abs(got[0, -2] - want) <= 1e-12
    assert abs(got[0].sum() - 1) <= 1e-12


def test_rescue_of_two_huge_supports_answers():
    p = rescue.plan("1000d1000", "1000d1000", (0, 3), rules=bl.load_rules())
    got = rescue.exact_outcomes(p)
    assert (got[:, -1] == 1.0).all() and (got[:, :-1] == 0).all()  # all arrivals >= 175 s
    assert math.isclose(rescue._death_by_arrival(np.array([0, 100, 175]), p, 0,
                                                 bl.load_rules())[0], 1.0)


# --- grids sized by API arguments -------------------------------------------------------------
def test_tier_table_held_to_the_grid_budget():
    from balance import percentile
    grades = len(bl.load_rules()["percentile"]["grades"]["table"])
    skills = budgets.MAX_GRID_CELLS // (grades * 4) + 1
    with pytest.raises(ValueError, match=rf"tier_table would have {skills:,} x {grades} x 4 "):
        percentile.tier_table(range(skills))
    with pytest.raises(ValueError, match="skills holds more than 20,000,000 values"):
        percentile.tier_table(range(10**30))
    with pytest.raises(ValueError, match="grades holds more than 20,000,000 values"):
        percentile.tier_table([50], grades=itertools.repeat("Standard"))


def test_opposed_table_held_to_the_grid_budget():
    from balance.report import data
    with pytest.raises(ValueError, match=r"opposed_table would have 4,473 x 4,473 .*grid budget"):
        data.opposed_table(itertools.islice(itertools.cycle(range(101)), 4473))
    with pytest.raises(ValueError, match="skills holds more than"):
        data.opposed_table(itertools.count())


def test_reaction_grid_held_to_the_grid_budget_and_ready_at_exact():
    from balance.core import timeline
    from balance.report import data
    with pytest.raises(ValueError, match=r"reaction_grid would have 10,001 x 2,000 "):
        data.reaction_grid(range(10_001), range(2_000))
    rng = np.random.default_rng(5)
    triggers = np.sort(rng.choice(200, size=40, replace=False))
    frame = data.reaction_grid(range(0, 12, 3), triggers)
    for c in range(0, 12, 3):
        answered = timeline.answered_triggers(triggers, cooldown=c)
        uses = [int(u) for u in triggers[answered]]
        want = [max([u + c for u in uses if u <= t] or [int(t)]) for t in triggers]
        assert frame.loc[frame["cooldown"] == c, "ready_at"].tolist() == want


def test_a_percentile_die_over_the_grid_budget_names_the_largest_that_fits():
    import re

    import balance as bl

    with pytest.raises(bl.RulesError, match="grid budget") as refused:
        bl.load_rules().updated({"percentile": {"die": 10000}})
    largest = int(re.search(r"use a die of at most ([\d,]+) faces", str(refused.value))
                  .group(1).replace(",", ""))
    # (10 x die + 1) x (die + 1) <= 2 x 10**7 cells with the bundled critical divisor of 10
    assert largest == max(d for d in range(2, 2000) if (10 * d + 1) * (d + 1) <= 2 * 10**7)
    bl.load_rules().updated({"percentile": {"die": largest}})
    with pytest.raises(bl.RulesError):
        bl.load_rules().updated({"percentile": {"die": largest + 1}})
