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
    assert draws.min() >= exact.totals[0] and draws.max() <= exact.totals[-1]
    # mean within 5 standard errors of the exact mean
    assert abs(draws.mean() - exact.mean) < 5 * exact.sd / np.sqrt(n)
    # every frequency within 5 standard errors
    values, counts = np.unique(draws, return_counts=True)
    p = np.array([exact[v] for v in values])  # a total the dice cannot roll: KeyError
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


# --- the Distribution a distribution() returns, against brute force ---------------------
def enumerate_kept(count, faces, keep=None):
    """Exact distribution of ``count`` dice of ``faces`` faces, keeping ``keep = ("h" or
    "l", k)`` of them (all without), by listing every ordered roll (itertools.product)."""
    counts = Counter()
    for roll in itertools.product(range(1, faces + 1), repeat=count):
        kept = sorted(roll)
        if keep is not None:
            kept = kept[-keep[1]:] if keep[0] == "h" else kept[:keep[1]]
        counts[sum(kept)] += 1
    return {v: Fraction(c, faces ** count) for v, c in sorted(counts.items())}


BRUTE = {"3d6": (3, 6, None), "4d6kh3": (4, 6, ("h", 3)), "2d20kl1": (2, 20, ("l", 1))}


@pytest.mark.parametrize("expr", BRUTE)
def test_distribution_reads_as_the_enumerated_rolls(expr):
    exact = enumerate_kept(*BRUTE[expr])
    d = dice.distribution(expr)
    assert isinstance(d, dice.Distribution) and d.expression == expr
    assert d.totals.dtype == np.int64 and d.probabilities.dtype == np.float64
    assert d.totals.tolist() == list(exact) == list(d) == d.keys()
    assert len(d) == len(exact)
    for v, p in exact.items():
        assert d[v] == pytest.approx(float(p), abs=1e-15) and type(d[v]) is float
        assert v in d and d.get(v) == d[v]
    assert [v for v, _ in d.items()] == list(exact) and dict(d) == d.to_dict()
    assert np.array_equal(np.asarray(d), d.probabilities)
    assert d.index is d.totals and d.values is d.probabilities  # the Series' names
    low, high = min(exact), max(exact)
    for outside in (low - 1, high + 1, 7.5, "7", None, True):
        assert outside not in d and d.get(outside, 0.0) == 0.0
        with pytest.raises(KeyError):
            d[outside]
    assert d[float(low)] == d[np.int64(low)] == d[low]
    # mean and sd from the exact fractions
    mean = sum(v * p for v, p in exact.items())
    var = sum((v - mean) ** 2 * p for v, p in exact.items())
    assert d.mean == pytest.approx(float(mean), rel=1e-13)
    assert d.sd == pytest.approx(math.sqrt(var), rel=1e-12)
    # P(total >= x) and P(total <= x) at and around every total, one by one and as an array
    xs = list(range(low - 2, high + 3))
    least = [float(sum(p for v, p in exact.items() if v >= x)) for x in xs]
    most = [float(sum(p for v, p in exact.items() if v <= x)) for x in xs]
    for x, a, b in zip(xs, least, most):
        assert d.at_least(x) == pytest.approx(a, abs=1e-14)
        assert d.at_most(x) == pytest.approx(b, abs=1e-14)
    np.testing.assert_allclose(d.at_least(xs), least, rtol=0, atol=1e-14)
    np.testing.assert_allclose(d.at_most(np.array(xs) + 0.5), most, rtol=0, atol=1e-14)
    assert d.at_least(low - 1) == pytest.approx(1.0, abs=1e-15) and d.at_least(high + 1) == 0.0
    assert d.at_most(high + 1) == pytest.approx(1.0, abs=1e-15) and d.at_most(low - 1) == 0.0


@pytest.mark.parametrize("expr", BRUTE)
def test_to_series_is_the_series_distribution_returned(expr):
    import pandas as pd

    exact = enumerate_kept(*BRUTE[expr])
    built = pd.Series([float(p) for p in exact.values()],
                      index=pd.Index(list(exact), dtype="int64", name="value"), name="probability")
    series = dice.distribution(expr).to_series()
    pd.testing.assert_series_equal(series, built, check_exact=False, rtol=0, atol=1e-15)
    first = series.iloc[0]
    series.iloc[0] = 0.5  # a copy: the cached distribution does not change
    assert dice.distribution(expr).to_series().iloc[0] == first == dice.distribution(expr)[
        int(built.index[0])]


def test_a_distribution_cannot_be_changed_nor_corrupt_the_cache():
    d = dice.distribution("3d6")
    with pytest.raises(ValueError, match="read-only"):
        d.probabilities[0] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        np.asarray(d)[0] = 1.0
    with pytest.raises(AttributeError, match="immutable"):
        d.totals = np.arange(3)
    copied = np.array(d)
    copied[0] = 1.0
    assert dice.distribution("3d6")[3] == 1 / 216 and dice.distribution("3d6") is d


def test_totals_with_gaps_read_as_impossible():
    # 1d6!: a 6 is always rolled again, so 6 and 12 are not possible totals
    d = dice.distribution("1d6!")
    assert 6 not in d and 12 not in d and d.get(6, 0.0) == 0.0
    assert d[7] == pytest.approx(1 / 36) and d.at_least(6) == d.at_least(7)
    with pytest.raises(KeyError, match=r"6 is not a possible total of 1d6! \(totals 1 to 126\)"):
        d[6]


def test_equal_hashable_and_pickled_like_a_value():
    import pickle

    a, b = dice.distribution("4d6dl1"), dice.distribution("4d6kh3")
    assert a == b and hash(a) == hash(b) and a.expression != b.expression
    assert a != dice.distribution("3d6") and a != a.to_dict()
    assert pickle.loads(pickle.dumps(a)) == a
    made = dice.Distribution([1, 3], [0.25, 0.75], "mine")
    assert made[3] == 0.75 and made.mean == 2.5 and made.sd == pytest.approx(math.sqrt(0.75))


@pytest.mark.parametrize("totals, probs, part", [
    ([1, 2], [1.0], "same length"), ([], [], "non-empty"), ([2, 1], [0.5, 0.5], "increasing"),
    ([1, 1], [0.5, 0.5], "increasing"), ([1.5, 2], [0.5, 0.5], "totals must be integers"),
    ([1, 2], [0.5, 0.6], "sum to 1"), ([1, 2], [-0.5, 1.5], "probabilities must be numbers"),
    ([1, 2], ["a", "b"], "probabilities"), ([[1, 2]], [[0.5, 0.5]], "1-D"),
])
def test_a_bad_distribution_is_refused_in_one_line(totals, probs, part):
    with pytest.raises(ValueError, match=part) as info:
        dice.Distribution(totals, probs)
    assert "\n" not in str(info.value)


def test_repr_and_html_show_a_small_table():
    d = dice.distribution("3d6")
    text = repr(d)
    assert text.splitlines()[0] == ("Distribution of 3d6: 16 totals from 3 to 18, "
                                    "mean 10.5000, sd 2.9580")
    assert text.splitlines()[1].split() == ["total", "probability"]
    assert text.splitlines()[9].split() == ["10", "0.125"] and len(text.splitlines()) == 18
    html = d._repr_html_()
    assert html.count("<tr>") == 17 and "<td>10</td><td>0.125</td>" in html
    long = dice.distribution("1d100")
    assert len(repr(long).splitlines()) == 2 + long.SHOWN + 1 and "..." in repr(long)
    assert "&lt;" in dice.Distribution([1], [1.0], "<b>")._repr_html_()


# --- face_counts: several dice drawn as one integer (issue 16) ------------------------------
@pytest.mark.parametrize("faces, n", [(100, 10_001), (20, 6_002), (6, 3_004), (2, 11), (8, 0),
                                      (20, 2), (129, 50), (20_000, 7)])
def test_face_counts_are_the_digits_of_the_integers_drawn(faces, n):
    """Independent of the implementation's table: draw the same integers from a twin generator
    and read each one's base-``faces`` digits by hand, then the rest die by die."""
    m = 1
    while m < 5 and faces ** (m + 1) <= 1 << 14:
        m += 1
    twin = np.random.default_rng(7)
    expected = Counter()
    for value in twin.integers(0, faces ** m, size=n // m, dtype=dice.draw_dtype(faces ** m)):
        value = int(value)
        for _ in range(m):
            value, digit = divmod(value, faces)
            expected[digit] += 1
    for value in twin.integers(0, faces, size=n % m, dtype=dice.draw_dtype(faces)):
        expected[int(value)] += 1
    counts = dice.face_counts(faces, n, np.random.default_rng(7))
    assert counts.dtype == np.int64 and counts.shape == (faces,)
    assert counts.tolist() == [expected[f] for f in range(faces)]
    # the generator is left where the twin is: the next draw is the same
    rng = np.random.default_rng(7)
    dice.face_counts(faces, n, rng)
    assert rng.random() == twin.random()


def test_face_counts_of_a_one_faced_die_and_the_dice_per_draw():
    assert dice.face_counts(1, 5, np.random.default_rng(0)).tolist() == [5]
    from balance.dice.sampling import dice_per_draw
    # as many dice as fit in 2^14 outcomes, at most 5: 100^2, 20^3, 12^3, 10^4, 6^5
    assert {f: dice_per_draw(f) for f in (100, 20, 12, 10, 6, 2, 129)} == {
        100: 2, 20: 3, 12: 3, 10: 4, 6: 5, 2: 5, 129: 1}


@pytest.mark.parametrize("faces", [100, 20, 6])
def test_face_counts_are_uniform(faces):
    """Each face ~ n / faces within 5 standard errors (the digits of a uniform integer of
    ``faces**m`` outcomes are independent uniform dice: the test above reads them)."""
    n = 600_000
    counts = dice.face_counts(faces, n, np.random.default_rng(11))
    p = 1 / faces
    se = math.sqrt(n * p * (1 - p))
    assert np.all(np.abs(counts - n * p) < 5 * se)
    assert int(counts.sum()) == n


def test_draw_dtype_is_the_narrowest_fast_type():
    assert [dice.draw_dtype(n) for n in (2, 2048, 2049, 2**31, 2**31 + 1, 2**63, 2**64)] == [
        np.int16, np.int16, np.int32, np.int32, np.int64, np.int64, np.uint64]


def test_face_counts_draws_in_chunks_as_in_one_call(monkeypatch):
    """Drawn a chunk at a time (memory bounded), the counts are those of one draw (32-bit
    integers, as for d20s and d100s; 16-bit ones differ, see face_counts)."""
    from balance.dice import sampling
    one = dice.face_counts(20, 3 * 10_000 + 2, np.random.default_rng(3))
    monkeypatch.setattr(sampling, "_SAMPLE_CHUNK", 1_000)
    assert dice.face_counts(20, 3 * 10_000 + 2, np.random.default_rng(3)).tolist() == one.tolist()
    monkeypatch.setattr(sampling, "_SAMPLE_CHUNK", 1_000)
    assert dice.face_counts(100, 7_777, np.random.default_rng(4)).tolist() == \
        [int(c) for c in np.bincount(np.random.default_rng(4).integers(
            0, 10_000, size=3_888, dtype=np.int32), minlength=10_000).reshape(100, 100).sum(0)
         + np.bincount(np.random.default_rng(4).integers(0, 10_000, size=3_888, dtype=np.int32),
                       minlength=10_000).reshape(100, 100).sum(1)
         + np.bincount([_last_die(100, 4, 3_888)], minlength=100)]


def _last_die(faces, seed, pairs):
    rng = np.random.default_rng(seed)
    rng.integers(0, faces * faces, size=pairs, dtype=np.int32)
    return int(rng.integers(0, faces, size=1, dtype=np.int16)[0])


@pytest.mark.parametrize("kwargs, fragment", [
    ({"faces": 0, "n": 5}, "faces"), ({"faces": 10**6 + 1, "n": 5}, "faces"),
    ({"faces": 6, "n": -1}, "n"), ({"faces": 6, "n": 10**10 + 1}, "n")])
def test_face_counts_refuses_what_it_cannot_count(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment) as info:
        dice.face_counts(rng=np.random.default_rng(0), **kwargs)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("expr", ["6+1d8", "2d6", "1d4-1d6+3", "3d3", "7"])
def test_equal_outcomes_are_every_roll_enumerated(expr):
    # independent: every ordered roll of the dice, one by one, with itertools
    d = dice.parse(expr)
    faces = [(sign, f) for sign, count, f in d.plain_terms for _ in range(count)]
    rolls = sorted(d.constant + sum(s * x for (s, _), x in zip(faces, roll))
                   for roll in itertools.product(*[range(1, f + 1) for _, f in faces]))
    table = dice.equal_outcomes(d)
    assert table.tolist() == rolls and not table.flags.writeable


def test_equal_outcomes_refuse_modified_and_large_dice():
    assert dice.equal_outcomes(dice.parse("4d6kh3")) is None
    assert dice.equal_outcomes(dice.parse("1d6!")) is None
    assert dice.equal_outcomes(dice.parse("2d8"), limit=63) is None
    assert dice.equal_outcomes(dice.parse("2d8"), limit=64).size == 64


def test_sample_indices_draw_each_total_at_its_exact_chance():
    d = dice.parse("2d6+1")
    n = 600_000
    index, table = dice.sample_indices(d, n, np.random.default_rng(11))
    assert index.dtype == np.int16 and index.size == n
    seen = Counter(table[index].tolist())
    for total in range(3, 14):
        p = Fraction(6 - abs(total - 8), 36)  # 2d6 + 1 in closed form
        se = math.sqrt(float(p * (1 - p)) / n)
        assert abs(seen[total] / n - float(p)) < 4.5 * se


@pytest.mark.parametrize("expr, span", [("4d6kh3", 16), ("1d6!", 126), ("10d10", 91),
                                         ("200d10000dl1", None)])
def test_sample_indices_of_dice_without_a_table_are_the_sampled_totals(expr, span):
    # modified dice, or too many outcomes: the totals Dice.sample draws, as their distance
    # from the lowest total (a span too wide: as indices into the distinct totals drawn)
    d = dice.parse(expr)
    n = 300 if span is None else 5_000
    index, table = dice.sample_indices(d, n, np.random.default_rng(5))
    np.testing.assert_array_equal(table[index], d.sample(n, np.random.default_rng(5)))
    assert not table.flags.writeable and index.dtype == dice.draw_dtype(table.size)
    if span is not None:
        assert table.tolist() == list(range(d.min, d.min + span))
    else:
        assert np.all(np.diff(table) > 0) and table.size <= n


def test_sample_indices_and_equal_outcomes_take_what_the_other_dice_calls_take():
    # an expression as text, a seed as an int; bad sizes and limits refused in one line
    index, table = dice.sample_indices("2d6", 4, 3)
    again, _ = dice.sample_indices(dice.parse("2d6"), 4, np.random.default_rng(3))
    np.testing.assert_array_equal(index, again)
    assert table.tolist() == dice.equal_outcomes("2d6").tolist()
    with pytest.raises(ValueError, match="size"):
        dice.sample_indices("2d6", -1)
    with pytest.raises(ValueError, match="limit"):
        dice.equal_outcomes("2d6", limit=0)


def test_a_table_limit_and_a_size_out_of_range_are_refused_in_one_line():
    with pytest.raises(ValueError, match="limit"):
        dice.parse("8d10").equal_outcomes(10**8)     # 763 MiB: over budgets.MAX_GRID_CELLS
    with pytest.raises(ValueError, match="limit"):
        dice.parse("5").equal_outcomes(-5)
    with pytest.raises(ValueError, match="size"):
        dice.parse("4d6kh3").sample_indices(-1)


def test_a_wide_span_is_indexed_by_the_distinct_totals_drawn():
    # 4d10000! spans ~200,000 totals, over the 2^16 a table of every total holds
    d = dice.parse("4d10000!")
    assert d.support > 1 << 16
    index, table = d.sample_indices(10, np.random.default_rng(2))
    assert table.size <= 10
    np.testing.assert_array_equal(table[index], d.sample(10, np.random.default_rng(2)))
