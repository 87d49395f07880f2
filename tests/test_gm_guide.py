"""Other GM-guide rules (RULES.md §2.5): falls, fatigue, effect stacking, reward paths."""
import pytest
from hypothesis import assume, given, settings, strategies as st

import balance as bl

G = bl.guide


def test_seven_metres_is_3d6():
    f = G.fall(7)
    assert (f.outcome, f.dice) == ("dice", "3d6")


@pytest.mark.parametrize("h, outcome, dice", [
    (0, "none", "0"), (1.99, "none", "0"), (2, "dice", "1d6"), (3.9, "dice", "1d6"),
    (4, "dice", "2d6"), (9.99, "dice", "4d6"), (10, "unconscious", "0"),
    (11, "unconscious", "0"), (12, "unconscious", "0"), (12.5, "dead", "0"), (30, "dead", "0"),
])
def test_fall_bands(h, outcome, dice):
    f = G.fall(h)
    assert (f.outcome, f.dice) == (outcome, dice)


def test_fall_labels_and_table():
    assert G.fall(11, lang="fr").label == "inconscient"
    t = G.fall_table([1, 7, 11, 13])
    assert list(t["outcome"]) == ["none", "dice", "unconscious", "dead"]
    assert t.loc[1, "mean_damage"] == 10.5


def test_two_days_without_sleep_or_food_is_minus_4():
    assert G.fatigue_penalty(days_without_sleep=2, days_without_food=2) == -4
    assert G.fatigue_penalty(days_without_sleep=1) == -1


def test_last_effect_replaces_value_and_duration():
    apps = [dict(turn=1, attribute="phys_def", value=-3, duration=4),
            dict(turn=2, attribute="phys_def", value=-1, duration=2)]
    t = G.stack_effects(apps, 6)
    assert list(t["phys_def"]) == [-3, -1, -1, 0, 0, 0]


def test_forgotten_turn_is_lost_duration_runs():
    apps = [dict(turn=1, attribute="atk", value=2, duration=3)]
    t = G.stack_effects(apps, 4, forgotten=[(2, "atk")])
    assert list(t["atk"]) == [2, 0, 2, 0]


def test_stacking_variant_adds():
    rules = bl.load_rules().updated({"guide": {"stacking": {"replace_value": False,
                                                            "accumulate_duration": True}}})
    apps = [dict(turn=1, attribute="a", value=1, duration=2),
            dict(turn=2, attribute="a", value=1, duration=2)]
    # the first has 1 turn left at turn 2; with the new 2 turns: active on turns 2, 3, 4
    assert list(G.stack_effects(apps, 5, rules=rules)["a"]) == [1, 2, 2, 2, 0]


def test_reward_paths():
    ok = G.reward_paths({"fight": {"xp": 2, "ap": 2}, "capture": {"xp": 3, "ap": 1}})
    assert ok["equivalent"].all()
    bad = G.reward_paths({"fight": {"xp": 2, "ap": 2}, "flee": {"xp": 1, "ap": 1}})
    assert not bad["equivalent"].any() and bad.loc["flee", "difference"] == -2


@pytest.mark.parametrize("call, word", [
    (lambda: G.fall(-1), "height"), (lambda: G.fatigue_penalty(-1), "days_without_sleep"),
    (lambda: G.stack_effects([{"turn": 1}], 3), "applications"),
    (lambda: G.reward_paths({"a": {"gold": 3}}), "paths"),
])
def test_bad_input(call, word):
    with pytest.raises(ValueError, match=word):
        call()


@pytest.mark.parametrize("h, outcome", [
    (12, "unconscious"), (12.000000001, "unconscious"),   # float noise on 12 m is 12 m
    (12.001, "dead"), (12.005, "dead"), (12.0099, "dead"),  # h > 12: death, to the millimetre
    (1.995, "none"), (9.995, "dice"),
])
def test_fall_boundaries_are_exact(h, outcome):
    assert G.fall(h).outcome == outcome


@pytest.mark.parametrize("call, word", [
    (lambda: G.fall(float("inf")), "height must be a finite number"),
    (lambda: G.stack_effects([dict(turn=1, attribute="a", value=1, duration=1)], 3,
                             forgotten=[1]), "forgotten must list"),
])
def test_more_bad_input(call, word):
    with pytest.raises(ValueError, match=word):
        call()


_APP = st.fixed_dictionaries({"turn": st.integers(1, 8), "attribute": st.sampled_from("ab"),
                              "value": st.integers(-3, 3), "duration": st.integers(0, 4)})


@settings(max_examples=80, deadline=None)
@given(apps=st.lists(_APP, min_size=1, max_size=6),
       forgotten=st.lists(st.tuples(st.integers(1, 10), st.sampled_from("ab")), max_size=3))
def test_stacking_matches_the_last_application_rule(apps, forgotten):
    # RULES.md 2.5, read directly: on turn t the attribute shows the value of the last
    # application made at or before t (later in the list wins within a turn) while that one
    # application lasts (turns s .. s + duration - 1), unless the effect is forgotten on t.
    table = G.stack_effects(apps, 10, forgotten=forgotten)
    for attr in sorted({a["attribute"] for a in apps}):
        for t in range(1, 11):
            made = [a for a in apps if a["attribute"] == attr and a["turn"] <= t]
            last = None
            if made:
                latest = max(a["turn"] for a in made)
                last = [a for a in made if a["turn"] == latest][-1]
            on = last is not None and t < last["turn"] + last["duration"] \
                and (t, attr) not in set(forgotten)
            assert table.loc[t, attr] == (last["value"] if on else 0)


@settings(max_examples=200, deadline=None)
@given(h=st.one_of(st.floats(0, 20), st.integers(0, 20), st.integers(0, 2000).map(lambda c: c / 100)))
def test_fall_matches_the_rule_text(h):
    # RULES.md 2.5 read directly, for heights not within float noise (10^-8 m) of a whole metre
    assume(h == round(h) or abs(h - round(h)) > 1e-7)
    f = G.fall(h)
    if h < 2:
        assert (f.outcome, f.dice) == ("none", "0")
    elif h < 10:
        assert (f.outcome, f.dice) == ("dice", f"{int(h // 2)}d6")
    elif h <= 12:
        assert (f.outcome, f.dice) == ("unconscious", "0")
    else:
        assert (f.outcome, f.dice) == ("dead", "0")
