"""Time, Reactions and Complex Actions (RULES.md §1.4): every example of the document."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import balance as bl
from balance.core import timeline as tl


def rows(log, event, creature=None):
    sel = log[log["event"] == event]
    return sel if creature is None else sel[sel["creature"] == creature]


# -- Reaction: triggering ------------------------------------------------------------------------

def test_example_trigger_leaving_reach_at_end_of_second_2():
    """Balthazar leaves Aliena's reach at the end of second 2: she may react at second 2."""
    # as an action of Balthazar's that completes at the end of second 2
    log = tl.simulate([tl.start(0, "Balthazar", "leave reach", 3, provokes="Aliena")])
    assert rows(log, "complete", "Balthazar")["second"].tolist() == [2]
    assert rows(log, "reaction", "Aliena")["second"].tolist() == [2]
    assert rows(log, "reaction", "Aliena")["reaction"].tolist() == ["Opportunity Attack"]
    # or as a trigger given directly
    log = tl.simulate([tl.trigger(2, "Aliena", source="Balthazar leaves reach")])
    assert rows(log, "reaction", "Aliena")["second"].tolist() == [2]


def test_triggers_only_after_full_resolution():
    """No Reaction while the provoking action charges: only at the end of its last second."""
    log = tl.simulate([tl.start(4, "Balthazar", "leave reach", 5, provokes="Aliena")])
    assert rows(log, "reaction")["second"].tolist() == [tl.completion_second(4, 5)] == [8]
    log = tl.simulate([tl.start(0, "Balthazar", "leave reach", 5, provokes="Aliena"),
                       tl.start(2, "Balthazar", "something else", 1)])
    assert rows(log, "reaction").empty  # cancelled before resolving: no trigger


# -- Reaction: shared cooldown -----------------------------------------------------------------

def test_example_cooldown_trigger_at_2_cooldown_8_again_at_10():
    seconds = np.arange(0, 21)
    got = tl.reaction_available([2], seconds, cooldown=8)
    np.testing.assert_array_equal(got, [not 2 <= s < 10 for s in seconds])
    assert tl.reaction_available([2], 10, cooldown=8) is True
    assert tl.reaction_available([2], 9, cooldown=8) is False
    # in a simulation: a trigger every second from 2 to 12, each a new event
    log = tl.simulate([tl.trigger(s, "Aliena", cooldown=8) for s in range(2, 13)])
    assert rows(log, "reaction")["second"].tolist() == [2, 10]
    assert rows(log, "reaction")["ready_at"].tolist() == [10, 18]
    refused = rows(log, "no_reaction")
    assert refused["second"].tolist() == list(range(3, 10)) + [11, 12]


def test_the_opportunity_attack_cooldown_is_rules_data():
    assert bl.load_rules()["time"]["opportunity_attack_cooldown"] == 8
    assert tl.reaction_available([2], 9) is False and tl.reaction_available([2], 10) is True
    rules = bl.load_rules().updated({"time": {"opportunity_attack_cooldown": 3}})
    assert tl.reaction_available([2], 5, rules=rules) is True
    log = tl.simulate([tl.trigger(2, "Aliena"), tl.trigger(4, "Aliena"), tl.trigger(5, "Aliena")],
                      rules=rules)
    assert rows(log, "reaction")["second"].tolist() == [2, 5]


def test_cooldown_zero_and_one_reaction_per_trigger():
    # cooldown 0: two distinct triggers in the same second are both answered
    log = tl.simulate([tl.trigger(3, "Aliena", cooldown=0, source="a"),
                       tl.trigger(3, "Aliena", cooldown=0, source="b")])
    assert rows(log, "reaction")["second"].tolist() == [3, 3]
    # the same trigger offered twice is answered once
    log = tl.simulate([tl.trigger(3, "Aliena", cooldown=0, source="a"),
                       tl.trigger(3, "Aliena", cooldown=0, source="a")])
    assert len(rows(log, "reaction")) == 1
    assert "one Reaction per trigger" in rows(log, "no_reaction")["detail"].iloc[0]
    assert tl.reaction_available([3], 3, cooldown=0) is True


def test_per_use_cooldowns():
    uses, cds = [0, 10], [4, 2]
    got = tl.reaction_available(uses, np.arange(15), cooldown=cds)
    np.testing.assert_array_equal(got, [not (0 <= s < 4 or 10 <= s < 12) for s in range(15)])


@settings(max_examples=150, deadline=None)
@given(uses=st.lists(st.tuples(st.integers(0, 40), st.integers(0, 12)), max_size=6))
def test_reaction_available_against_blocked_seconds(uses):
    blocked = {s for u, c in uses for s in range(u, u + c)}
    seconds = np.arange(0, 60)
    got = tl.reaction_available([u for u, _ in uses], seconds, cooldown=[c for _, c in uses])
    np.testing.assert_array_equal(got, [s not in blocked for s in seconds])


@settings(max_examples=150, deadline=None)
@given(triggers=st.lists(st.integers(0, 60), max_size=15), cooldown=st.integers(0, 12))
def test_answered_triggers_properties(triggers, cooldown):
    triggers = sorted(triggers)
    ans = tl.answered_triggers(triggers, cooldown=cooldown)
    used = [t for t, a in zip(triggers, ans) if a]
    # answered ones respect the cooldown ...
    assert all(b - a >= cooldown for a, b in zip(used, used[1:]))
    # ... and each refused one fell inside the cooldown of an earlier answered one
    for t, a in zip(triggers, ans):
        if not a:
            assert any(u <= t < u + cooldown for u in used)
    # the simulation answers the same triggers
    log = tl.simulate([tl.trigger(t, "X", cooldown=cooldown) for t in triggers])
    assert rows(log, "reaction")["second"].tolist() == used


# -- Reaction and the current charge --------------------------------------------------------------

def test_example_reaction_leaves_the_charge_at_3_of_5():
    """Calliope charges 5 A.P.; at 3 A.P. she reacts; the action stays 3/5 and goes on."""
    plain = tl.simulate([tl.start(0, "Calliope", "spell", 5)])
    log = tl.simulate([tl.start(0, "Calliope", "spell", 5), tl.trigger(2, "Calliope")])
    reaction = rows(log, "reaction", "Calliope")
    assert reaction[["second", "charge", "cost"]].values.tolist() == [[2, 3, 5]]
    charge = rows(log, "charge", "Calliope")
    assert charge["charge"].tolist() == [1, 2, 3, 4, 5]  # no loss, no delay
    assert charge["charge"].tolist() == rows(plain, "charge")["charge"].tolist()
    assert rows(log, "complete")["second"].tolist() == [4] == [tl.completion_second(0, 5)]
    assert rows(log, "cancel").empty


# -- Complex Actions ------------------------------------------------------------------------------

@pytest.mark.parametrize("action", ["Complex Action*", "Complex Spell*"])
def test_example_opportunity_attack_once_at_completion(action):
    """Aliena completes a 3 A.P. Complex Action: Balthazar may attack once, at completion only."""
    log = tl.simulate([tl.start(0, "Aliena", action, 3, complex=True, provokes="Balthazar")])
    attacks = rows(log, "reaction", "Balthazar")
    assert attacks["second"].tolist() == [2]          # once, when it completes
    assert attacks["reaction"].tolist() == ["Opportunity Attack"]
    assert rows(log, "complete", "Aliena")["second"].tolist() == [2]
    assert len(log[log["creature"] == "Balthazar"]) == 1  # nothing during the charging


def test_each_hostile_with_its_reaction_available_attacks_once():
    log = tl.simulate([tl.trigger(1, "Demilio", cooldown=8, source="earlier"),
                       tl.start(0, "Aliena", "Spell*", 4, complex=True,
                                provokes=("Balthazar", "Demilio"))])
    assert rows(log, "reaction", "Balthazar")["second"].tolist() == [3]
    assert rows(log, "no_reaction", "Demilio")["ready_at"].tolist() == [9]  # still cooling down


@pytest.mark.parametrize("cost", [4, 3])
def test_example_voluntary_movement_cancels_and_loses_all_charge(cost):
    """Calliope charges a Complex Action (4 A.P.; the summary example: 3 A.P.), moves at 2 A.P."""
    log = tl.simulate([tl.start(0, "Calliope", "Technique*", cost, complex=True,
                                provokes="Balthazar"),
                       tl.move(2, "Calliope")])
    cancel = rows(log, "cancel", "Calliope")
    assert cancel[["second", "charge", "cost"]].values.tolist() == [[2, 2, cost]]
    assert rows(log, "complete").empty and rows(log, "reaction").empty
    assert log["second"].max() == 2  # nothing charges after the cancel


def test_movement_before_the_start_or_after_completion_has_no_effect():
    log = tl.simulate([tl.move(0, "Calliope"), tl.start(1, "Calliope", "Technique*", 3,
                                                        complex=True),
                       tl.move(4, "Calliope")])
    assert rows(log, "complete")["second"].tolist() == [3]
    assert rows(log, "cancel").empty
    # a move listed before the start in the same second comes before it
    log = tl.simulate([tl.move(1, "Calliope"), tl.start(1, "Calliope", "Technique*", 3,
                                                        complex=True)])
    assert rows(log, "complete")["second"].tolist() == [3]


def test_forced_movement_does_not_cancel():
    log = tl.simulate([tl.start(0, "Calliope", "Technique*", 4, complex=True),
                       tl.move(2, "Calliope", forced=True)])
    assert rows(log, "cancel").empty
    assert rows(log, "complete")["second"].tolist() == [3]


def test_starting_another_action_cancels_the_current_charge():
    log = tl.simulate([tl.start(0, "Aliena", "Spell*", 5, complex=True, provokes="Balthazar"),
                       tl.start(3, "Aliena", "strike", 2)])
    cancel = rows(log, "cancel", "Aliena")
    assert cancel[["second", "action", "charge"]].values.tolist() == [[3, "Spell*", 3]]
    assert rows(log, "complete")[["second", "action"]].values.tolist() == [[4, "strike"]]
    assert rows(log, "reaction").empty


def test_ordinary_actions_keep_their_charge_when_moving_unless_the_variant_says_otherwise():
    events = [tl.start(0, "Aliena", "strike", 3), tl.move(1, "Aliena")]
    assert rows(tl.simulate(events), "complete")["second"].tolist() == [2]
    assert "time.movement_cancels_simple_actions" in bl.load_rules().assumptions["key"].tolist()
    rules = bl.load_rules().updated({"time": {"movement_cancels_simple_actions": True}})
    log = tl.simulate(events, rules=rules)
    assert rows(log, "complete").empty and len(rows(log, "cancel")) == 1


# -- charging -------------------------------------------------------------------------------------

@settings(max_examples=100, deadline=None)
@given(start=st.integers(0, 50), cost=st.integers(1, 12), rate=st.integers(1, 3))
def test_charging_against_counting(start, cost, rate):
    rules = bl.load_rules().updated({"time": {"ap_per_second": rate}})
    # count seconds until the accumulated A.P. reach the cost
    charged, second = 0, start - 1
    while charged < cost:
        second += 1
        charged += rate
    assert tl.completion_second(start, cost, rules=rules) == second
    log = tl.simulate([tl.start(start, "X", "act", cost)], rules=rules)
    assert rows(log, "complete")["second"].tolist() == [second]
    seconds = np.arange(start, second + 1)
    np.testing.assert_array_equal(rows(log, "charge")["charge"],
                                  tl.charge_at(start, cost, seconds, rules=rules))


def test_one_ap_per_second_by_default():
    assert tl.charge_seconds([1, 3, 5]).tolist() == [1, 3, 5]
    assert tl.charge_at(2, 3, [0, 1, 2, 3, 4, 5]).tolist() == [0, 0, 1, 2, 3, 3]
    assert tl.completion_second(2, 3) == 4


def test_until_stops_the_log():
    log = tl.simulate([tl.start(0, "X", "long", 100)], until=9)
    assert log["second"].max() == 9 and rows(log, "complete").empty


# -- bad input -------------------------------------------------------------------------------------

@pytest.mark.parametrize("call, word", [
    (lambda: tl.start(-1, "X", "a", 3), "second"),
    (lambda: tl.start(0, "X", "a", 0), "cost"),
    (lambda: tl.start(0, "X", "a", "3 AP"), "cost"),
    (lambda: tl.start(0, "", "a", 3), "creature"),
    (lambda: tl.start(0, "X", "a", 3, complex="yes"), "complex"),
    (lambda: tl.start(0, "X", "a", 3, provokes=[1]), "provokes"),
    (lambda: tl.move(1.5, "X"), "second"),
    (lambda: tl.move(1, "X", forced=1), "forced"),
    (lambda: tl.trigger(1, "X", cooldown=-1), "cooldown"),
    (lambda: tl.simulate([(0, "X", "start")]), "events"),
    (lambda: tl.simulate([], until=-3), "until"),
    (lambda: tl.reaction_available([2], 1, cooldown=-8), "cooldown"),
    (lambda: tl.reaction_available([2, 3], 1, cooldown=[1, 2, 3]), "cooldown"),
    (lambda: tl.reaction_available(["two"], 1), "uses"),
    (lambda: tl.reaction_available([2], "ten"), "second"),
    (lambda: tl.answered_triggers([5, 2]), "triggers"),
    (lambda: tl.completion_second(0, -2), "cost"),
    (lambda: tl.charge_at(0, 3, -1), "second"),
])
def test_bad_input_names_the_argument(call, word):
    with pytest.raises(ValueError, match=word) as info:
        call()
    assert "\n" not in str(info.value)
