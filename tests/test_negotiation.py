"""Psychology negotiation (RULES.md §1.5) against enumeration over the 20 faces and the examples."""
from fractions import Fraction

import pytest
from hypothesis import given, strategies as st

import balance as bl


def enumerate_outcomes(c, ask):
    """Independent oracle: roll each face, apply the document's table with exact fractions."""
    x = Fraction(ask)
    out = {"unchanged": 0, "partial": 0, "full": 0, "expected_change": Fraction(0)}
    for face in range(1, 21):
        sp = c - face
        if sp < 0 or sp < x / 4:
            out["unchanged"] += Fraction(1, 20)
        elif sp < x / 2:
            out["partial"] += Fraction(1, 20)
            out["expected_change"] += Fraction(sp, 20)
        else:
            out["full"] += Fraction(1, 20)
            out["expected_change"] += x / 20
    return {k: float(v) for k, v in out.items()}


def test_document_examples():
    assert bl.negotiation.price_change(6, ask=20) == 6      # partial: 5 <= 6 < 10
    assert bl.negotiation.price_change(7, ask=12) == 12     # full: 7 >= 6
    assert bl.negotiation.price_change(2, ask=15) == 0      # 2 < 3.75
    assert bl.negotiation.price_change(3, ask=15) == 0      # 3 < 3.75: exact, never rounded
    assert bl.negotiation.price_change(4, ask=15) == 4
    assert bl.negotiation.price_change(7, ask=15) == 7      # 7 < 7.5
    assert bl.negotiation.price_change(8, ask=15) == 15
    assert bl.negotiation.price_change(-3, ask=4) == 0      # a failed Test never moves the price


@given(st.integers(-5, 30), st.one_of(st.integers(1, 80), st.sampled_from([0.5, 2.5, 7.5, 15.25])))
def test_ask_outcomes_match_enumeration(c, ask):
    got = bl.negotiation.ask_outcomes(psychology=c, ask=ask)
    assert dict(got) == pytest.approx(enumerate_outcomes(c, ask))


def test_best_ask_maximises_expected_change():
    for c in range(-2, 26):
        best = bl.negotiation.best_ask(psychology=c)
        values = {x: enumerate_outcomes(c, x)["expected_change"] for x in range(1, 120)}
        top = max(values.values())
        assert best == min(x for x, v in values.items() if v == pytest.approx(top))


def test_issue_calls():
    out = bl.negotiation.ask_outcomes(psychology=12, ask=20)
    assert list(out.index) == ["unchanged", "partial", "full", "expected_change"]
    assert out[["unchanged", "partial", "full"]].sum() == pytest.approx(1)
    assert bl.negotiation.best_ask(psychology=12) == 16


def test_prices_round_in_the_merchants_favour():
    assert bl.negotiation.negotiated_price(200, 6) == 188
    assert bl.negotiation.negotiated_price(199, 6, whole=True) == 188        # 187.06 -> up
    assert bl.negotiation.negotiated_price(199, 6, selling=True, whole=True) == 210  # 210.94 -> down
    assert bl.negotiation.negotiated_price(199, 6) == pytest.approx(187.06)


@pytest.mark.parametrize("ask", [0, -5, "10", None])
def test_bad_ask(ask):
    with pytest.raises(ValueError, match="^ask must be"):
        bl.negotiation.ask_outcomes(psychology=12, ask=ask)


def test_bad_psychology():
    with pytest.raises(ValueError, match="^psychology must be"):
        bl.negotiation.ask_outcomes(psychology="twelve", ask=10)
