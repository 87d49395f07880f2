"""Dice expressions against brute-force enumeration over die faces."""
import itertools
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from balance import dice


def enumerate_expr(terms, constant=0):
    """Exact distribution by listing every face combination (independent of balance.dice)."""
    faces = []
    for sign, count, size in terms:
        faces += [[sign * f for f in range(1, size + 1)]] * count
    counts = Counter(constant + sum(combo) for combo in itertools.product(*faces))
    total = sum(counts.values())
    return {v: Fraction(c, total) for v, c in counts.items()}


CASES = {
    "1d100": [(1, 1, 100)], "3d6": [(1, 3, 6)], "2d6+6": ([(1, 2, 6)], 6),
    "1d8+1d6": [(1, 1, 8), (1, 1, 6)], "-1d4": [(-1, 1, 4)], "0": [],
    "d20-3": ([(1, 1, 20)], -3), "2d10+1d2": [(1, 2, 10), (1, 1, 2)], "1d8 - 1d6": [(1, 1, 8), (-1, 1, 6)],
}


@pytest.mark.parametrize("expr", CASES)
def test_distribution_matches_enumeration(expr):
    spec = CASES[expr]
    terms, constant = spec if isinstance(spec, tuple) else (spec, 0)
    exact = enumerate_expr(terms, constant)
    got = dice.distribution(expr)
    assert set(got.index) == set(exact)
    for value, p in exact.items():
        assert got[value] == pytest.approx(float(p), abs=1e-15)
    parsed = dice.parse(expr)
    assert parsed.min == min(exact) and parsed.max == max(exact)
    assert parsed.mean == pytest.approx(float(sum(v * p for v, p in exact.items())))


#: brute force lists faces**count combinations over all terms: 10,000 keep an example at
#: about 10 ms (3d8 + 3d8 + 3d8, 134 million combinations, once made one run last 222 s)
MAX_COMBINATIONS = 10_000


@st.composite
def bounded_terms(draw, budget=MAX_COMBINATIONS):
    """Up to three signed ``(sign, count, faces)`` terms whose faces**count multiply to at
    most ``budget``: each count is drawn below what the budget left over allows."""
    terms = []
    for _ in range(draw(st.integers(0, 3))):
        faces = draw(st.integers(1, 20))
        room = max((c for c in range(1, 5) if faces ** c <= budget), default=0)
        if room == 0:
            break
        count = draw(st.integers(1, room))
        budget //= faces ** count
        terms.append((draw(st.sampled_from([1, -1])), count, faces))
    return terms


def combinations(terms):
    return math.prod(faces ** count for _, count, faces in terms)


@settings(derandomize=True, database=None, max_examples=60, deadline=None)
@given(bounded_terms(), st.integers(-10, 10))
def test_random_expressions_match_enumeration(terms, constant):
    assert combinations(terms) <= MAX_COMBINATIONS
    text = "".join(f"{'+' if s > 0 else '-'}{c}d{f}" for s, c, f in terms) + f"{constant:+d}"
    exact = enumerate_expr(terms, constant)
    got = dice.distribution(text)
    assert {int(k): v for k, v in got.items()} == pytest.approx({k: float(v) for k, v in exact.items()})


@pytest.mark.parametrize("expr", ["3d6", "2d6+6", "1d8+1d6", "-1d4", "20d6"])
def test_sampler_matches_distribution(expr):
    n = 200_000
    draws = dice.sample(expr, n, seed=7)
    exact = dice.distribution(expr)
    assert draws.min() >= exact.index.min() and draws.max() <= exact.index.max()
    # mean within 5 standard errors of the exact mean
    mean = (exact.index * exact).sum()
    sd = np.sqrt(((exact.index - mean) ** 2 * exact).sum())
    assert abs(draws.mean() - mean) < 5 * sd / np.sqrt(n)
    # every frequency within 5 standard errors
    values, counts = np.unique(draws, return_counts=True)
    p = exact.reindex(values).to_numpy()
    assert np.all(np.abs(counts / n - p) < 5 * np.sqrt(p * (1 - p) / n) + 1e-12)


def test_rng_kinds_and_reproducibility():
    a = dice.sample("3d6", 100, seed=3)
    assert np.array_equal(a, dice.sample("3d6", 100, seed=np.random.SeedSequence(3)))
    assert not np.array_equal(a, dice.sample("3d6", 100, seed=4))
    gen = np.random.default_rng(3)
    assert dice.sample("3d6", 10, seed=gen).shape == (10,)
    assert dice.sample("2d6", (4, 3), seed=1).shape == (4, 3)
    with pytest.raises(ValueError, match="seed must be"):
        dice.sample("3d6", 10, seed="x")
    with pytest.raises(ValueError, match="size"):
        dice.sample("3d6", -1, seed=1)


@pytest.mark.parametrize("bad, part", [("2d", "'2d'"), ("1d0", "'1d0'"), ("abc", "'abc'"),
                                       ("3d6+x", "'+x'"), ("", "empty"), ("1.5d6", "1.5d6"),
                                       ("d", "'d'")])
def test_malformed_expressions_name_the_bad_part(bad, part):
    with pytest.raises(ValueError) as info:
        dice.parse(bad)
    assert part in str(info.value)
    assert "\n" not in str(info.value)
