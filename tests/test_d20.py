"""d20 Tests (RULES.md §1.1) against enumeration of the 20 faces and the document's examples."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import balance as bl


def enumerate_points(c):
    return {c - face: 1 / 20 for face in range(1, 21)}


def test_issue_examples():
    assert bl.d20.success_chance(12, modifier=2) == 0.7
    points = bl.d20.test_points(12, modifier=2)
    assert points.sum() == pytest.approx(1)
    assert points.index.min() == -6 and points.index.max() == 13


def test_document_examples():
    assert bl.d20.points_after(14, 9) == 5          # Aliena, Acrobatics
    assert bl.d20.points_after(11, 17) == -6        # Balthazar, 6 F.P.
    assert bl.d20.points_after(12, 13, modifier=2) == 1   # Calliope, hidden +2
    assert bl.d20.points_after(23, 12) == 11        # Demilio, automatic success
    assert bl.d20.success_chance(23) == 1.0
    assert bl.d20.success_chance(0) == 0.0


@given(st.integers(-30, 45), st.integers(-10, 10))
def test_points_match_enumeration(c, m):
    exact = enumerate_points(c + m)
    got = bl.d20.test_points(c, modifier=m)
    assert dict(got) == pytest.approx(exact)
    assert bl.d20.success_chance(c, modifier=m) == pytest.approx(
        sum(p for pts, p in exact.items() if pts >= 0))


def test_success_chance_broadcasts():
    got = bl.d20.success_chance(np.arange(-2, 25))
    want = [sum(1 for f in range(1, 21) if f <= c) / 20 for c in range(-2, 25)]
    assert np.allclose(got, want)


def test_variant_die():
    rules = bl.load_rules().updated({"d20": {"die": 12}})
    assert bl.d20.success_chance(6, rules=rules) == 0.5


@pytest.mark.parametrize("bad", ["12", None, 1.5, True])
def test_bad_characteristic(bad):
    with pytest.raises(ValueError, match="characteristic"):
        bl.d20.success_chance(bad)
