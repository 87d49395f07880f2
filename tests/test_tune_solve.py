"""bl.tune.solve against brute force: every candidate value evaluated independently here."""
from __future__ import annotations

import math

import numpy as np
import pytest

import balance as bl
from balance.errors import RulesError
from balance.regression.metrics import metric_seed
from balance.regression.registry import metric as catalogue_metric

BASE = bl.load_rules()


def death_closed_form(threshold: int, seconds: int, hp: int, wounds: int, die: int = 100):
    """RULES.md 1.2: P(death) = clip((D - (T - k) + 1) / D, 0, 1), k = (n + 1)(d + npv)."""
    k = (wounds + 1) * (seconds + hp)
    return min(max((die - (threshold - k) + 1) / die, 0.0), 1.0)


def brute_force(values, metric, target, current):
    """The valid value closest to the target; ties: closest to current, then lower."""
    scored = []
    for v in values:
        try:
            rules = BASE.updated({"injuries": {"death_threshold": v}})
        except RulesError:
            continue
        scored.append((abs(metric(rules) - target), abs(v - current), v))
    return min(scored)[2]


def test_the_issue_example_is_the_brute_force_answer():
    metric = lambda rules: bl.injuries.death_probability(seconds=40, negative_hp=6, wounds=1,
                                                         rules=rules)
    res = bl.tune.solve(metric, target=0.10, vary="injuries.death_threshold")
    expected = brute_force(range(2, 260), lambda r: death_closed_form(
        r["injuries"]["death_threshold"], 40, 6, 1), 0.10, 176)
    assert (res.value, expected) == (183, 183)
    assert res.achieved == pytest.approx(death_closed_form(183, 40, 6, 1), abs=1e-12)
    assert res.reachable and res.method == "bisection" and res.monotone
    for v, m in zip(res.curve["value"], res.curve["metric"]):
        assert m == pytest.approx(death_closed_form(v, 40, 6, 1), abs=1e-12)
    assert res.rules["injuries"]["death_threshold"] == 183
    assert res.rules.updated({"injuries": {"death_threshold": 176}}) == BASE


def test_a_catalogue_metric_by_name_gives_the_same_answer():
    res = bl.tune.solve("death.p@40s,6hp,1w", target=0.10, vary="injuries.death_threshold")
    assert res.value == 183 and res.metric == "death.p@40s,6hp,1w"


@pytest.mark.parametrize("target", [0.035, 0.17])
def test_scanned_range_matches_brute_force(target):
    metric = lambda r: death_closed_form(r["injuries"]["death_threshold"], 60, 10, 0)
    res = bl.tune.solve(metric, target=target, vary="injuries.death_threshold",
                        bounds=(160, 230))
    assert res.method == "scan"
    assert res.value == brute_force(range(160, 231), metric, target, 176)


def test_invalid_candidates_are_skipped_and_never_evaluated():
    seen = []

    def metric(rules):
        seen.append(rules["injuries"]["death_threshold"])
        return death_closed_form(seen[-1], 40, 6, 1)

    res = bl.tune.solve(metric, target=0.10, vary="injuries.death_threshold", bounds=(150, 220))
    assert min(seen) == 176  # 150..175 lie inside the injury table: invalid
    assert res.skipped == 26 and len(seen) == 220 - 176 + 1 and res.value == 183


def test_the_note_says_which_values_were_skipped_and_why():
    """The audit's finding: 'skipped 26' alone left a designer guessing. The note names the
    range and the rules' own refusal of the invalid value nearest the valid ones (175)."""
    res = bl.tune.solve(lambda r: death_closed_form(r["injuries"]["death_threshold"], 40, 6, 1),
                        target=0.10, vary="injuries.death_threshold", bounds=(150, 220))
    with pytest.raises(RulesError) as refused:
        bl.load_rules().updated({"injuries": {"death_threshold": 175}})
    why = str(refused.value).splitlines()[0].split(": ", 1)[1]  # without the source name
    assert res.note == ("skipped 26 values in 150..175 that the rules refuse, e.g. "
                        f"injuries.death_threshold = 175: {why}")


def test_ties_go_to_the_smallest_change_then_the_lower_value():
    ident = lambda r: float(r["injuries"]["death_threshold"])
    # 200 and 201 are both 0.5 away from 200.5: 200 is nearer the current 176
    assert bl.tune.solve(ident, target=200.5, vary="injuries.death_threshold",
                         bounds=(176, 230)).value == 200
    # a metric flat at 0 above 193: the nearest to the current value among the zeros
    res = bl.tune.solve("death.p@40s,6hp,1w", target=0.0, vary="injuries.death_threshold",
                        bounds=(176, 230))
    assert res.value == 193


def test_an_unreachable_target_says_so_with_the_closest_value():
    res = bl.tune.solve("death.p@40s,6hp,1w", target=0.9, vary="injuries.death_threshold")
    assert not res.reachable and res.value == 176
    assert res.achieved == pytest.approx(death_closed_form(176, 40, 6, 1))
    assert "out of reach" in res.note and "176" in res.note


def test_a_non_monotone_metric_over_a_wide_range_is_refused_and_scanned_when_narrow():
    bump = lambda r: float(abs(r["injuries"]["death_threshold"] - 20000))
    with pytest.raises(ValueError, match="not monotone.*bounds="):
        bl.tune.solve(bump, target=50, vary="injuries.death_threshold")
    res = bl.tune.solve(bump, target=25, vary="injuries.death_threshold",
                        bounds=(19_950, 20_050))
    assert res.value == 19_975 and not res.monotone  # 19,975 and 20,025 tie: nearer 176 wins


def test_a_table_transform_shifts_the_inner_row_boundaries():
    k = bl.tune.knob("injuries.shift_rows")
    table = k.apply(3)["injuries"]["table"]
    bundled = BASE["injuries"]["table"]
    assert table[0]["low"] == 1 and table[-1]["high"] == bundled[-1]["high"]
    assert [r["high"] for r in table[:-1]] == [r["high"] + 3 for r in bundled[:-1]]
    width = lambda r: r["injuries"]["table"][0]["high"] - r["injuries"]["table"][0]["low"] + 1
    res = bl.tune.solve(width, target=13, vary="injuries.shift_rows")
    assert res.value == 3 and res.skipped > 0  # k <= -10 empties the first row: invalid
    assert k.apply(-10) is None


def test_a_real_transform_with_brentq_is_no_worse_than_a_fine_grid():
    price = catalogue_metric("economy.price.longsword")
    metric = lambda r: price.compute(r).value
    res = bl.tune.solve(metric, target=200, vary="economy.scale_prices")
    k = bl.tune.knob("economy.scale_prices")
    grid = [metric(k.apply(f)) for f in np.linspace(0.25, 4, 120)]
    assert abs(res.achieved - 200) <= min(abs(g - 200) for g in grid)
    assert res.achieved == metric(k.apply(res.value))


def test_monte_carlo_uses_one_seed_and_returns_the_values_whose_interval_holds_the_target():
    res = bl.tune.solve("mc.death@60s,10hp,1w", target=0.5, vary="injuries.death_threshold",
                        trials=20_000, seed=3)
    m = catalogue_metric("mc.death@60s,10hp,1w")
    for _, row in res.curve.iterrows():  # each candidate alone, from the same seed stream
        again = m.compute(BASE.updated({"injuries": {"death_threshold": int(row["value"])}}),
                          20_000, metric_seed(3, m.name))
        assert again.value == row["metric"]
    holding = res.curve[res.curve["holds_target"]]["value"]
    assert res.interval == (holding.min(), holding.max())
    # the exact answer (241 - T) / 100 = 0.5 at T = 191 lies in the interval
    assert res.interval[0] <= 191 <= res.interval[1]
    assert res.ci[0] <= res.achieved <= res.ci[1]


def test_save_writes_only_what_changed_and_refuses_to_overwrite(tmp_path):
    res = bl.tune.solve("death.p@40s,6hp,1w", target=0.10, vary="injuries.death_threshold")
    path = tmp_path / "tuned.toml"
    res.rules.save(path)
    body = [line for line in path.read_text().splitlines() if line and not line.startswith("#")]
    assert body == ["[injuries]", "death_threshold = 183"]
    assert bl.load_rules(path) == res.rules
    with pytest.raises(ValueError, match="already exists.*overwrite=True"):
        res.save(path)
    res.save(path, overwrite=True)


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(vary="injuries.nope"), "not a numeric rules key"),
    (dict(vary="injuries.table"), "not a numeric rules key"),
    (dict(vary="injuries.death_threshold", bounds=(1, 300)), "within the [limits] of injuries.death_threshold"),
    (dict(vary="injuries.death_threshold", bounds=(300, 200)), "low < high"),
    (dict(vary="injuries.death_threshold", bounds=(2, 100)), "no valid value"),
    (dict(vary="injuries.death_threshold", target=math.nan), "target"),
    (dict(vary="injuries.death_threshold", metric="nope"), "catalogue name"),
    (dict(vary="injuries.death_threshold", metric="injuries.outcomes@60s,5hp,0w"),
     "distribution"),
    (dict(vary="injuries.death_threshold", metric=lambda r: "x"), "must return a number"),
])
def test_bad_input_is_one_line(kwargs, fragment):
    args = dict(metric="death.p@40s,6hp,1w", target=0.1) | kwargs
    with pytest.raises(ValueError) as err:
        bl.tune.solve(**args)
    assert fragment in str(err.value) and "\n" not in str(err.value)


# --- plateaus, ties within a tolerance, targets jumped over (review of issue 13) -------------
def issue_metric(rules):
    return bl.injuries.death_probability(seconds=40, negative_hp=6, wounds=1, rules=rules)


def closest_with_tolerance(scores: dict, target: float, current: float):
    """Brute force of the documented rule: the least distance, distances within 1e-9 tied,
    then the value nearest ``current``, then the lower value."""
    dist = {v: abs(m - target) for v, m in scores.items()}
    least = min(dist.values())
    tied = [v for v, d in dist.items() if math.isclose(d, least, rel_tol=1e-9, abs_tol=1e-12)]
    return min(tied, key=lambda v: (abs(v - current), v))


def valid_thresholds():
    """Every valid death threshold of the bounded range: beyond the injury table's last row
    (the rules invariant), up to the key's [limits]."""
    high = BASE["injuries"]["table"][-1]["high"]
    lo, hi = bl.tune.knob("injuries.death_threshold").bounds
    return range(max(lo, high + 1), hi + 1)


@pytest.mark.parametrize("target", [0.0, -1.0])
def test_a_plateau_gives_its_edge_nearest_the_current_value(target):
    scores = {t: death_closed_form(t, 40, 6, 1) for t in valid_thresholds()}
    expected = closest_with_tolerance(scores, target, 176)
    res = bl.tune.solve(issue_metric, target=target, vary="injuries.death_threshold")
    assert (res.value, expected) == (193, 193)
    assert res.achieved == 0.0 and res.method == "bisection"
    assert res.reachable == (target == 0.0) and res.attained == (target == 0.0)
    if target < 0:
        assert "out of reach" in res.note and "= 193" in res.note


def test_a_true_tie_is_decided_by_the_rule_not_by_float_rounding():
    # 182 gives 0.11 and 183 gives 0.10: both 0.005 from 0.105, but not in floats
    assert abs(0.11 - 0.105) != abs(0.105 - 0.10)
    scores = {t: death_closed_form(t, 40, 6, 1) for t in range(176, 400)}
    expected = closest_with_tolerance(scores, 0.105, 176)
    res = bl.tune.solve(issue_metric, target=0.105, vary="injuries.death_threshold")
    assert (res.value, expected) == (182, 182)
    assert res.reachable and not res.attained
    assert "no value of injuries.death_threshold gives exactly 0.105" in res.note
    assert "0.11 at 182 to 0.1 at 183" in res.note and "nearest the current value 176" in res.note


def longsword_price(f):
    """GM guide, economy: the Longsword (1d8+2, roll bonus 2) costs the d8's die value plus 4
    bonus points, each value scaled by the factor and rounded to whole NX."""
    d8 = next(r["value"] for r in BASE["economy"]["dice_values"] if r["faces"] == 8)
    return np.round(d8 * f) + 4 * np.round(BASE["economy"]["point_cost"] * f)


def test_a_target_jumped_over_says_no_value_attains_it():
    price = catalogue_metric("economy.price.longsword")
    k = bl.tune.knob("economy.scale_prices")
    for f in (0.5, 0.625, 0.63, 1.0, 2.0):  # the formula is the metric
        assert longsword_price(f) == price.compute(k.apply(f)).value
    grid = np.linspace(0.25, 4, 375_001)  # steps of 1e-5
    prices = longsword_price(grid)
    assert 100 not in prices and np.abs(prices - 100).min() == 2  # 98 -> 102 at 0.625
    res = bl.tune.solve("economy.price.longsword", target=100, vary="economy.scale_prices")
    assert res.reachable and not res.attained and res.achieved == 102
    assert res.note.startswith("no value of economy.scale_prices gives exactly 100: the metric "
                               "goes from 98 at 0.62")
    # 98 and 102 tie: the side nearer the current factor 1 wins, at its plateau's upper edge
    edge = grid[prices == 102].max()
    assert edge <= res.value < edge + 1e-5


def test_shown_values_tell_brentq_iterates_apart():
    res = bl.tune.solve("economy.price.longsword", target=100, vary="economy.scale_prices")
    from balance.tune.solve import shown_values
    shown = shown_values(res.curve["value"])
    assert len(set(shown)) == len(res.curve)
    assert all(abs(float(t) - v) < 1e-4 for t, v in zip(shown, res.curve["value"]))


def test_a_monte_carlo_plateau_is_bounded_by_bisection_not_walked():
    """mc.death at 60 s, -10 HP, 1 wound: exactly (241 - T) / 100, so 0 from T = 241 up;
    every threshold there holds target 0, found in a few runs rather than one per value."""
    exact = {t: death_closed_form(t, 60, 10, 1) for t in valid_thresholds()}
    edge = closest_with_tolerance(exact, 0.0, 176)
    res = bl.tune.solve("mc.death@60s,10hp,1w", target=0.0, vary="injuries.death_threshold",
                        trials=1000, seed=1)
    assert (res.value, edge) == (241, 241)
    assert res.interval == (241, max(valid_thresholds()))
    assert len(res.curve) < 80  # bisections, not a walk of 2,001 values
