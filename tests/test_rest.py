"""Rest score and regeneration (RULES.md §1.6): the document's examples and the 12-in-24 cap."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import balance as bl
from balance.core import rest


# -- the document's examples -----------------------------------------------------------------

def test_example_1_forest_score_15_for_8_hours_gives_120():
    # fresh stream water 6, satiating but bland food 4, slept 6 h: 4, hammock, armour off: 1
    score = rest.rest_score(thirst="enough", hunger="satiated", sleep_hours=6, comfort=1)
    assert score == 6 + 4 + 4 + 1 == 15
    assert rest.regeneration([(8, score)]) == 15 * 8 == 120
    components = dict(thirst="enough", hunger="satiated", sleep_hours=6, comfort=1)
    assert rest.regeneration([{"hours": 8, **components}]) == 120


def test_example_2_cave_interrupted_13_for_3_hours_then_12_for_5_hours_gives_99():
    first = dict(thirst="enough", hunger="fresh", sleep_hours=2, comfort=1)   # bedroll
    second = dict(thirst="enough", hunger="fresh", sleep_hours=3, comfort=0)  # bedroll lost
    assert rest.rest_score(**first) == 13
    assert rest.rest_score(**second) == 12
    # two independent segments: 2 h + 3 h of sleep never add up to the 6 h of one segment
    assert rest.regeneration([(3, first), (5, second)]) == 13 * 3 + 12 * 5 == 99
    assert rest.regeneration([(3, 13), (5, 12)]) == 99
    log = rest.rest_log([(3, first), (5, second)])
    assert log["score"].tolist() == [13, 12]
    assert log["regeneration"].tolist() == [39, 60]
    assert log["start"].tolist() == [0, 3] and log["end"].tolist() == [3, 8]


def test_score_breakdown_of_the_forest():
    parts = rest.score_breakdown("enough", "satiated", 6, 1)
    assert parts.to_dict() == dict(thirst=6, hunger=4, sleep=4, comfort=1, modifiers=0, score=15)


def test_component_rules():
    assert rest.rest_score() == 0
    assert rest.rest_score(thirst="enough") == 6
    assert [rest.rest_score(hunger=h) for h in ("none", "satiated", "fresh")] == [0, 4, 6]
    assert [rest.rest_score(sleep_hours=h) for h in (0, 5, 5.5, 6, 6.5, 12)] == [0, 0, 0, 4, 4, 4]
    assert [rest.rest_score(comfort=c) for c in range(5)] == [0, 1, 2, 3, 4]
    assert rest.rest_score(comfort=3, armour_on=True) == 0
    assert rest.rest_score(comfort=3, armour_on=True, armour_keeps_comfort=True) == 3
    # heavy rain without shelter: -3 (the document's example modifier)
    assert rest.rest_score("enough", "satiated", 6, 1, modifiers=-3) == 12


def test_score_broadcasts_over_sleep_and_comfort():
    sleep = np.arange(0, 10)[:, None]
    comfort = np.arange(0, 5)[None, :]
    got = rest.rest_score("enough", "fresh", sleep, comfort)
    want = [[6 + 6 + (4 if s >= 6 else 0) + c for c in range(5)] for s in range(10)]
    np.testing.assert_array_equal(got, want)


def test_quick_scores_in_both_languages():
    want = {"poor": 10, "adequate": 15, "good": 20, "excellent": 25}
    assert {k: rest.quick_score(k) for k in want} == want
    assert rest.quick_score("médiocre") == 10 and rest.quick_score("Bon") == 20
    assert rest.regeneration([(8, rest.quick_score("adequate"))]) == 120


# -- the 12 counted hours in any 24 h ----------------------------------------------------------

def test_fourteen_hours_in_one_day_count_twelve():
    assert rest.counted_hours([(14, 15)]) == [12]
    assert rest.regeneration([(14, 15)]) == 12 * 15
    assert rest.regeneration([(12, 15)]) == rest.regeneration([(13, 15)]) == 180


def test_cap_across_segments():
    # 8 h, 8 h straight after: only 4 more count
    assert rest.counted_hours([(8, 10), (8, 20)]) == [8, 4]
    assert rest.regeneration([(8, 10), (8, 20)]) == 80 + 80
    # the next day (start hour 24) counts again: the first rest was hours 0..11
    assert rest.counted_hours([(0, 12, 15), (24, 12, 15)]) == [12, 12]
    # a rest of hours 0..9, then hours 14..21: the window of hour 16 still holds 0..9 and 14..15
    assert rest.counted_hours([(0, 10, 15), (14, 8, 15)]) == [10, 2]


def reference_counts(segments, cap=12, window=24):
    """Independent greedy: walk every hour in order, count it if the window has room."""
    counted_at, out, clock = [], [], 0
    for seg in segments:
        start, hours = (clock, seg[0]) if len(seg) == 2 else (seg[0], seg[1])
        n = 0
        for h in range(start, start + hours):
            if sum(1 for c in counted_at if h - window < c <= h) < cap:
                counted_at.append(h)
                n += 1
        out.append(n)
        clock = start + hours
    return out, counted_at


segment_lists = st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30), st.integers(-5, 30)),
                         min_size=1, max_size=6)


@settings(max_examples=120, deadline=None)
@given(gaps_hours_scores=segment_lists)
def test_cap_properties(gaps_hours_scores):
    segments, clock = [], 0
    for gap, hours, score in gaps_hours_scores:
        segments.append((clock + gap, hours, score))
        clock += gap + hours
    got = rest.counted_hours(segments)
    want, counted_at = reference_counts(segments)
    assert got == want
    # no window of 24 consecutive hours holds more than 12 counted hours
    for h in counted_at:
        assert sum(1 for c in counted_at if h <= c < h + 24) <= 12
    # regeneration = sum of max(score, 0) x counted hours
    assert rest.regeneration(segments) == sum(max(s, 0) * n
                                              for (_, _, s), n in zip(segments, want))


@settings(max_examples=60, deadline=None)
@given(hours=st.integers(0, 200))
def test_one_long_rest_counts_12_per_24_hours(hours):
    assert rest.counted_hours([(hours, 10)]) == [12 * (hours // 24) + min(hours % 24, 12)]


def test_variant_cap_is_data():
    rules = bl.load_rules().updated({"rest": {"max_hours_per_day": 8}})
    assert rest.regeneration([(10, 15)], rules=rules) == 8 * 15
    rules = bl.load_rules().updated({"rest": {"sleep_hours_min": 8, "sleep_points": 5}})
    assert rest.rest_score(sleep_hours=7, rules=rules) == 0
    assert rest.rest_score(sleep_hours=8, rules=rules) == 5


# -- maxima, negative scores, hours needed ----------------------------------------------------

def test_capped_at_the_maximum_when_given():
    assert rest.regeneration([(8, 15)], current=100, maximum=150) == 50
    assert rest.regeneration([(8, 15)], maximum=90) == 90
    assert rest.regeneration([(8, 15)], current=10, maximum=500) == 120
    log = rest.rest_log([(3, 13), (5, 12)], hp=50, max_hp=100, flux=0, max_flux=200)
    assert log["hp_before"].tolist() == [50, 89] and log["hp_after"].tolist() == [89, 100]
    assert log["flux_before"].tolist() == [0, 39] and log["flux_after"].tolist() == [39, 99]


def test_a_negative_score_regenerates_nothing_by_default():
    assert rest.rest_score(modifiers=-3) == -3
    assert rest.regeneration([(8, -3)]) == 0
    rules = bl.load_rules().updated({"rest": {"min_score": -100}})
    assert rest.regeneration([(8, -3)], rules=rules) == -24
    assert "rest.min_score" in bl.load_rules().assumptions["key"].tolist()


def test_rest_needed():
    frame = rest.rest_needed([0, 1, 120, 121, 400], 15)
    assert frame["hours"].tolist() == [0, 1, 8, 9, 27]
    assert frame["days"].tolist() == [0, 1, 1, 1, 3]
    assert rest.rest_needed(10, 0)["hours"].iloc[0] == np.inf
    assert rest.rest_needed(10, -4)["days"].iloc[0] == np.inf


@pytest.mark.parametrize("cap, window", [(12, 24), (12, 48), (6, 30), (12, 12), (1, 100)])
def test_rest_needed_days_follow_the_cap_window(cap, window):
    # the oracle: rest every hour from hour 0 and let counted_hours say which hours count; the
    # days are those until the last needed hour has counted
    rules = bl.load_rules().updated({"rest": {"max_hours_per_day": cap, "window_hours": window}})
    score = 15
    counted = rest.counted_hours([(t, 1, score) for t in range(7000)], rules=rules)
    done = np.cumsum(counted)
    for missing in (1, 150, 180, 181, 400, 900):
        hours = -(-missing // score)
        finished = int(np.searchsorted(done, hours)) + 1       # hours since the first began
        row = rest.rest_needed(missing, score, rules=rules).iloc[0]
        assert (row["hours"], row["days"]) == (hours, -(-finished // 24)), (missing, row)


# -- segment forms and bad input ------------------------------------------------------------------

def test_segment_forms_agree():
    forms = [[(8, 15)], (8, 15), [rest.Segment(8, 15)], [{"hours": 8, "score": 15}],
             [(0, 8, 15)], {"hours": 8, "score": 15}]
    assert {rest.regeneration(f) for f in forms} == {120}
    assert rest.regeneration([]) == 0


@pytest.mark.parametrize("call, word", [
    (lambda: rest.rest_score(thirst="lots"), "thirst"),
    (lambda: rest.rest_score(hunger=4), "hunger"),
    (lambda: rest.rest_score(sleep_hours="eight"), "sleep_hours"),
    (lambda: rest.rest_score(sleep_hours=-1), "sleep_hours"),
    (lambda: rest.rest_score(comfort=5), "comfort"),
    (lambda: rest.rest_score(comfort=1.5), "comfort"),
    (lambda: rest.rest_score(armour_on="yes"), "armour_on"),
    (lambda: rest.rest_score(modifiers="rain"), "modifiers"),
    (lambda: rest.regeneration([(8, "good")]), "score"),
    (lambda: rest.regeneration([(-1, 15)]), "hours"),
    (lambda: rest.regeneration([(2.5, 15)]), "hours"),
    (lambda: rest.regeneration([(3, {"sleep_hours": 6})]), "sleep_hours"),
    (lambda: rest.regeneration([(3, {"thirsty": "enough"})]), "thirst"),
    (lambda: rest.regeneration([(0, 3, 10), (2, 3, 10)]), "start"),
    (lambda: rest.regeneration("8h"), "segments"),
    (lambda: rest.regeneration([8]), "segments"),
    (lambda: rest.regeneration([(8, 15)], current=200, maximum=150), "current"),
    (lambda: rest.regeneration([(8, 15)], maximum="lots"), "maximum"),
    (lambda: rest.rest_log([(8, 15)], hp=200, max_hp=150), "hp"),
    (lambda: rest.rest_log([(8, 15)], max_flux=-1), "max_flux"),
    (lambda: rest.quick_score("grand"), "quality"),
    (lambda: rest.rest_needed(-5, 15), "missing"),
])
def test_bad_input_names_the_argument(call, word):
    with pytest.raises(ValueError, match=word) as info:
        call()
    assert "\n" not in str(info.value)
