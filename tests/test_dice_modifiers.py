"""Keep/drop, exploding and reroll dice against brute-force enumeration of every roll.

The enumeration below knows nothing of balance.dice: it lists every sequence of rolls of each
die (a reroll is a second roll, an explosion a further roll, at most MAX_EXPLOSIONS of them),
takes the product over the dice with itertools.product, sorts each combination and keeps the
dice the modifier says, in exact fractions.
"""
import itertools
import math
import sys
from collections import defaultdict
from fractions import Fraction

import numpy as np
import pytest

from balance import dice
from balance.dice import convolution, expressions, pools
from balance.budgets import MAX_EXPLOSIONS
from balance.rules import load_rules


def roll_outcomes(faces, reroll=0, until=False):
    """(face, probability) of one roll of a die with a reroll rule, by listing the rolls."""
    out = defaultdict(Fraction)
    for first in range(1, faces + 1):
        if first <= reroll and until:
            continue  # handled below: rerolling until above N leaves N+1..M equally likely
        if first <= reroll:
            for second in range(1, faces + 1):
                out[second] += Fraction(1, faces * faces)
        else:
            out[first] += Fraction(1, faces)
    if until:
        out = {f: Fraction(1, faces - reroll) for f in range(reroll + 1, faces + 1)}
    return dict(out)


def die_outcomes(faces, reroll=0, until=False, explode=False):
    """(value, probability) of one die: its roll sequences, an explosion adding a roll on the
    highest face, at most MAX_EXPLOSIONS extra rolls (the last one stands)."""
    roll = roll_outcomes(faces, reroll, until)
    if not explode:
        return roll
    out = defaultdict(Fraction)

    def walk(total, prob, extra):
        for face, p in roll.items():
            if face == faces and extra < MAX_EXPLOSIONS:
                walk(total + face, prob * p, extra + 1)
            else:
                out[total + face] += prob * p

    walk(0, Fraction(1), 0)
    return dict(out)


def enumerate_pool(count, faces, *, reroll=0, until=False, explode=False, keep="", n=0,
                   sign=1, constant=0):
    """Exact distribution of a modified term by listing every combination of the dice."""
    die = list(die_outcomes(faces, reroll, until, explode).items())
    kept = {"kh": n, "kl": n, "dh": count - n, "dl": count - n}.get(keep, count)
    highest = keep in ("kh", "dl")
    out = defaultdict(Fraction)
    for combo in itertools.product(die, repeat=count):
        values = sorted(v for v, _ in combo)
        chosen = values[len(values) - kept:] if highest else values[:kept]
        out[constant + sign * sum(chosen)] += math.prod(p for _, p in combo)
    return dict(out)


CASES = {
    "4d6kh3": dict(count=4, faces=6, keep="kh", n=3),
    "4d6dl1": dict(count=4, faces=6, keep="dl", n=1),
    "2d20kh1": dict(count=2, faces=20, keep="kh", n=1),
    "2d20kl1": dict(count=2, faces=20, keep="kl", n=1),
    "3d6kl2": dict(count=3, faces=6, keep="kl", n=2),
    "5d4dh2": dict(count=5, faces=4, keep="dh", n=2),
    "4d5k2": dict(count=4, faces=5, keep="kh", n=2),
    "1d20r1": dict(count=1, faces=20, reroll=1),
    "2d6r2": dict(count=2, faces=6, reroll=2),
    "2d6rr2": dict(count=2, faces=6, reroll=2, until=True),
    "1d6!": dict(count=1, faces=6, explode=True),
    "2d3!": dict(count=2, faces=3, explode=True),
    "1d2!": dict(count=1, faces=2, explode=True),
    "2d4r1!": dict(count=2, faces=4, reroll=1, explode=True),
    "3d3!kh2": dict(count=3, faces=3, explode=True, keep="kh", n=2),
    "3d4r1kl2": dict(count=3, faces=4, reroll=1, keep="kl", n=2),
    "-2d6kh1+3": dict(count=2, faces=6, keep="kh", n=1, sign=-1, constant=3),
    "3D6KH2": dict(count=3, faces=6, keep="kh", n=2),
}


@pytest.mark.parametrize("expr", CASES)
def test_modified_dice_match_enumeration(expr):
    exact = enumerate_pool(**CASES[expr])
    got = dice.distribution(expr)
    assert set(got.index) == {v for v, p in exact.items() if float(p) > 1e-300}
    for value, p in exact.items():
        assert got.get(value, 0.0) == pytest.approx(float(p), rel=1e-9, abs=1e-15)
    parsed = dice.parse(expr)
    assert parsed.mean == pytest.approx(float(sum(v * p for v, p in exact.items())), rel=1e-12)
    assert parsed.min <= min(exact) and max(exact) <= parsed.max


def test_mixed_expression_is_the_convolution_of_its_parts():
    left = enumerate_pool(4, 6, keep="kh", n=3)
    right = enumerate_pool(1, 4, explode=True)
    expected = defaultdict(Fraction)
    for (a, p), (b, q) in itertools.product(left.items(), right.items()):
        expected[a + b + 1] += p * q
    got = dice.distribution("4d6kh3 + 1d4! + 1")
    for value, p in expected.items():
        assert got[value] == pytest.approx(float(p), rel=1e-9, abs=1e-15)


def test_known_figures():
    # 4d6 drop lowest: 18 comes from 21 of the 1,296 rolls; the mean is 15,869/1,296
    dist = dice.distribution("4d6kh3")
    assert dist[18] == pytest.approx(21 / 1296, abs=1e-15)
    assert dice.parse("4d6kh3").mean == pytest.approx(15869 / 1296, rel=1e-13)
    # advantage: P(at least 11) = 1 - (10/20)**2
    adv = dice.distribution("2d20kh1")
    assert adv.at_least(11) == pytest.approx(0.75, abs=1e-14)
    # an exploding d6 means 3.5 / (1 - 1/6) = 4.2 when unbounded; the bound moves it < 1e-14
    assert dice.parse("1d6!").mean == pytest.approx(4.2, abs=1e-14)


def test_truncated_mass_is_the_last_explosion():
    assert dice.parse("1d6!").truncated_mass == pytest.approx((1 / 6) ** (MAX_EXPLOSIONS + 1),
                                                               rel=1e-12)
    assert dice.parse("3d2!").truncated_mass == pytest.approx(
        1 - (1 - 0.5 ** (MAX_EXPLOSIONS + 1)) ** 3, rel=1e-12)
    assert dice.parse("4d6kh3").truncated_mass == 0.0
    top = dice.distribution("1d2!")
    assert top[2 * (MAX_EXPLOSIONS + 1)] == pytest.approx(0.5 ** (MAX_EXPLOSIONS + 1))


@pytest.mark.parametrize("expr", ["4d6kh3", "2d20kl1", "1d6!", "1d20r1", "2d6rr2",
                                  "3d4r1!kh2", "4d6kh3-1d4!+2"])
def test_sampler_matches_the_exact_distribution(expr):
    """Mean and P(value >= median) within 5 standard errors; fixed seed."""
    n = 200_000
    draws = dice.sample(expr, n, seed=20261201)
    dist = dice.distribution(expr)
    mean = float(np.dot(dist.totals, dist.probabilities))
    sd = math.sqrt(float(np.dot(dist.totals ** 2, dist.probabilities)) - mean ** 2)
    assert abs(draws.mean() - mean) < 5 * sd / math.sqrt(n)
    cut = int(dist.totals[np.searchsorted(np.cumsum(dist.probabilities), 0.5)])
    p = dist.at_least(cut)
    assert abs((draws >= cut).mean() - p) < 5 * math.sqrt(p * (1 - p) / n)
    assert draws.min() >= dice.parse(expr).min and draws.max() <= dice.parse(expr).max


def test_sampling_is_reproducible():
    a = dice.sample("4d6kh3+1d6!", 1000, seed=5)
    assert np.array_equal(a, dice.sample("4d6kh3+1d6!", 1000, seed=np.random.SeedSequence(5)))
    assert not np.array_equal(a, dice.sample("4d6kh3+1d6!", 1000, seed=6))


@pytest.mark.parametrize("bad, part", [
    ("4d6kx3", "'x3'"), ("4d6kh3!", "'!' out of place"), ("4d6kh5", "kh5"),
    ("4d6dl4", "dl4"), ("1d1!", "d1 cannot explode"), ("1d6r6", "r6"), ("1d6!!", "'!'"),
    ("2d6+4d6q", "'4d6q'"), ("4d6kh3kl1", "'kl1' out of place"), ("0d6kh1", "1 to 1000 dice"),
    ("4d0kh1", "1 to 10000 faces"), ("4d6kh99999999999999", "kh"),
])
def test_malformed_modifiers_name_the_bad_part(bad, part):
    with pytest.raises(ValueError) as info:
        dice.parse(bad)
    assert part in str(info.value)
    assert "\n" not in str(info.value)


def test_budgets_answer_or_refuse_at_once():
    # the maximum of 1,000 d1000: from its CDF, exact: P(max <= v) = (v/1000)**1000
    dist = dice.distribution("1000d1000kh1")
    assert dist.at_most(990) == pytest.approx(0.99 ** 1000, rel=1e-9)
    low = dice.distribution("1000d1000kl1")
    assert low.at_least(11) == pytest.approx(0.99 ** 1000, rel=1e-9)
    with pytest.raises(ValueError, match=r"keeping 50 of 100 dice exactly .* sample it"):
        dice.distribution("100d100kh50")
    with pytest.raises(ValueError, match="possible totals"):
        dice.distribution("1000d1000!")
    with pytest.raises(ValueError, match="at most 1000 in all"):
        dice.parse("600d6kh1+600d6")
    assert dice.sample("100d100kh50", 100, seed=1).shape == (100,)  # sampling stays possible


def test_drop_and_keep_spellings_agree():
    assert dice.distribution("4d6dl1") == dice.distribution("4d6kh3")
    assert dice.distribution("5d6dh2") == dice.distribution("5d6kl3")
    assert dice.distribution("3d6kh3") == dice.distribution("3d6")
    assert str(dice.parse("4d6 dl1 + 2")) == "4d6dl1+2"
    assert dice.parse(str(dice.parse("2d4r1!kh1-1d6rr2"))) == dice.parse("2d4r1!kh1-1d6rr2")


def test_rules_data_accept_modified_dice(tmp_path):
    variant = tmp_path / "v.toml"
    variant.write_text('[percentile.humans]\nSTR = "4d6kh3"\nDEX = "3d6r1"\n')
    rules = load_rules(variant)
    assert rules.get("percentile.humans.STR") == "4d6kh3"
    from balance.percentile.characteristics import human_distribution
    got = human_distribution("STR", rules=rules)
    exact = enumerate_pool(4, 6, keep="kh", n=3)
    assert got[18] == pytest.approx(float(exact[18]), abs=1e-15)
    variant.write_text('[percentile.humans]\nSTR = "4d6kx3"\n')
    with pytest.raises(ValueError, match=r"v.toml: percentile.humans.STR = '4d6kx3'.*'x3'"):
        load_rules(variant)


def test_code_reading_dice_one_by_one_refuses_modified_dice():
    """Engines that enumerate a weapon's dice term by term cannot keep or explode: they
    refuse in one line instead of reading 2d8kh1 as no dice at all."""
    assert dice.parse("2d6+1").terms == ((1, 2, 6),)
    with pytest.raises(ValueError, match=r"dice 2d8kh1: .*plain NdM terms only"):
        dice.parse("2d8kh1").terms
    from cli_run import in_process
    code, _, err = in_process("duel", "60", "--trials", "200", "--set",
                              'percentile.weapons.table.3.damage="2d8kh1"')
    assert code == 2 and err.count("\n") == 1 and "plain NdM terms only" in err


# --- exactness at scale: FFT noise, the length convolved, the range ----------------------
def ways(count, faces, total):
    """Ordered rolls of ``count`` dice of ``faces`` faces summing to ``total`` (closed form,
    inclusion-exclusion over the dice above their faces)."""
    t = total - count
    return sum((-1) ** j * math.comb(count, j) * math.comb(t - j * faces + count - 1, count - 1)
               for j in range(count + 1) if t - j * faces >= 0)


def test_fft_rounding_noise_is_not_reported_as_probability():
    """10d10000 is convolved by FFT: its totals 10..100000 rarer than the 1e-15 noise floor
    read 0 (they once read ~1e-21 of noise, and 1e-39 is the truth at 11); every other
    total agrees with the closed form."""
    got = dice.distribution("10d10000")
    assert got.probabilities.sum() == pytest.approx(1.0, abs=1e-12)
    totals = list(range(10, 400)) + list(range(99_600, 100_001)) + list(range(40_000, 60_001, 97))
    for total in totals:
        exact = Fraction(ways(10, 10_000, total), 10_000 ** 10)
        p = float(got.get(total, 0.0))
        if exact < Fraction(1, 10 ** 15):
            assert p == 0.0, total
        else:
            assert p == pytest.approx(float(exact), rel=1e-3), total


@pytest.mark.parametrize("expr, count, low", [("10d10000rr9999", 10, 10_000),
                                               ("1000d100rr99", 1000, 100),
                                               ("1000d10000rr9999", 1000, 10_000),
                                               ("20d10000rr9998", 20, 9999)])
def test_rerolled_dice_are_convolved_over_their_range_only(monkeypatch, expr, count, low):
    """rrN leaves faces N+1..M: the arrays convolved are at most the range of totals long
    (they were sized 0..count x faces: 1000d10000rr9999 took 31 s and 912 MB), and the
    distribution is the binomial over the faces left (one face: a constant)."""
    sizes = []
    modules = [m for k, m in sys.modules.items()
               if k == "balance.dice" or k.startswith("balance.dice.")]
    for name in ("convolve", "_fft_convolve"):
        real = getattr(convolution, name)
        def spy(a, b, real=real):
            sizes.append(max(a.size, b.size))
            return real(a, b)
        for module in modules:  # wherever the dice modules call it from
            if getattr(module, name, None) is real:
                monkeypatch.setattr(module, name, spy)
    expressions._distribution.cache_clear()
    pools._pool_probs.cache_clear()
    parsed = dice.parse(expr)
    got = dice.distribution(expr)
    left = 10_000 - low + 1 if "d10000" in expr else 100 - low + 1  # faces left: 1 or 2
    assert parsed.min == count * low and parsed.max == count * (low + left - 1)
    assert max(sizes, default=1) <= parsed.support
    exact = {count * low + j: math.comb(count, j) / 2 ** count for j in range(count + 1)} \
        if left == 2 else {count * low: 1.0}
    assert got.to_dict() == pytest.approx(exact, abs=1e-15)
    assert parsed.mean == pytest.approx(sum(v * p for v, p in exact.items()), rel=1e-15)


def test_keep_highest_of_rerolled_dice_counts_from_the_lowest_face_left():
    exact = enumerate_pool(4, 6, reroll=2, until=True, keep="kh", n=3)
    got = dice.distribution("4d6rr2kh3")
    assert got.to_dict() == pytest.approx({v: float(p) for v, p in exact.items()}, abs=1e-15)
    exact = enumerate_pool(3, 5, reroll=3, until=True, keep="kl", n=2, sign=-1)
    got = dice.distribution("-3d5rr3kl2")
    assert got.to_dict() == pytest.approx({v: float(p) for v, p in exact.items()}, abs=1e-15)


@pytest.mark.parametrize("bad", ["4d6kh-1", "4d6kh+1", "4d6dl-1", "2d20k-1", "4d6kl+2d6"])
def test_keep_without_a_count_before_a_sign_is_refused(bad):
    """'4d6kh-1' once read as 4d6kh1-1 (keep 1, then minus 1): a count left out before a
    sign is ambiguous, so it is refused naming the modifier."""
    with pytest.raises(ValueError) as info:
        dice.parse(bad)
    text = str(info.value)
    assert "\n" not in text and "needs its count" in text


def test_keep_without_a_count_at_the_end_keeps_one():
    for bare, full in [("2d20kh", "2d20kh1"), ("2d20kl", "2d20kl1"), ("4d6dl", "4d6dl1"),
                       ("3+2d20k", "3+2d20kh1")]:
        assert dice.parse(bare) == dice.parse(full)
    assert dice.parse("2d20kh1-1") == dice.parse("2d20kh1 - 1")
