"""Treating injuries (RULES.md §1.3): checked against the document and brute force."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import balance as bl
from balance.core import treatment as tr

# The document's numbers, written here independently of the rules data.
DIE = 20
LEVELS = {"light": dict(bonus=2, minutes=1, retry=60),
          "full": dict(bonus=0, minutes=60, retry=1440)}
# (English name, French name, test modifier) of a few rows, one or more per band
ROWS = [("Dazed", "Étourdi", 0), ("Broken", "Brisé", 0), ("Weak", "Faible", -5),
        ("Psychic weakness", "Faiblesse psychique", -5), ("Paralyzed", "Paralysé", -10),
        ("Amputated (Left Arm)", "Bras gauche amputé", -10), ("Bleeding", "Saignement", -10),
        ("The end is near", "La fin est proche", -15)]
# band of every row of the table, in order: 5 rows at 0, 12 at -5, 11 at -10, 1 at -15
BANDS = [0] * 5 + [-5] * 12 + [-10] * 11 + [-15]


def brute_chance(value: int, die: int = DIE) -> float:
    """Count the die faces that succeed: face <= C'."""
    return sum(1 for face in range(1, die + 1) if face <= value) / die


# -- the document's example 5 ----------------------------------------------------------------

def test_example_5_light_is_cunning_plus_2_minus_5():
    assert tr.treatment_chance(cunning=12, injury="Weak", level="light") == 0.45
    assert bl.treatment.treatment_chance(12, "Weak") == 9 / 20


def test_example_5_full_is_cunning_minus_5():
    assert tr.treatment_chance(cunning=12, injury="Weak", level="full") == 7 / 20


def test_french_names_and_levels_give_the_same_answer():
    for en, fr, _ in ROWS:
        for level, level_fr in (("light", "léger"), ("full", "complet")):
            assert tr.treatment_chance(11, fr, level_fr) == tr.treatment_chance(11, en, level)
    assert tr.treatment_chance(12, "faible", "LEGER") == 0.45
    assert tr.treatment_chance(12, "bras gauche ampute", "full") == 2 / 20


# -- brute force over the die faces ------------------------------------------------------------

def test_every_row_every_level_many_cunnings_against_brute_force():
    table = bl.load_rules()["injuries"]["table"]
    assert [row["modifier"] for row in table] == BANDS
    cunning = np.arange(-5, 31)
    for row, band in zip(table, BANDS):
        for level, spec in LEVELS.items():
            got = tr.treatment_chance(cunning, row["en"], level)
            want = [brute_chance(c + spec["bonus"] + band) for c in cunning]
            np.testing.assert_array_equal(got, want)


@settings(max_examples=150, deadline=None)
@given(cunning=st.integers(-30, 50), extra=st.integers(-10, 10),
       row=st.sampled_from(ROWS), level=st.sampled_from(sorted(LEVELS)))
def test_chance_equals_brute_force(cunning, extra, row, level):
    en, fr, band = row
    want = brute_chance(cunning + LEVELS[level]["bonus"] + band + extra)
    assert tr.treatment_chance(cunning, en, level, modifier=extra) == want
    assert tr.treatment_chance(cunning, fr, level, modifier=extra) == want


def test_variant_die_and_bonus_are_data():
    rules = bl.load_rules().updated({"d20": {"die": 12}, "treatment": {"light": {"bonus": 3}}})
    for c in range(-2, 16):
        assert tr.treatment_chance(c, "Weak", "light", rules=rules) == brute_chance(c + 3 - 5, 12)
        assert tr.treatment_chance(c, "Dazed", "full", rules=rules) == brute_chance(c, 12)


# -- expected time to cure ------------------------------------------------------------------

def series_expectation(p: float, minutes: int, retry: int, terms: int = 20_000) -> float:
    """E[time] as the truncated series sum_k P(cure at attempt k) * end time of attempt k."""
    k = np.arange(1, terms + 1)
    return float(np.sum(p * (1 - p) ** (k - 1) * ((k - 1) * retry + minutes)))


@pytest.mark.parametrize("level", sorted(LEVELS))
@pytest.mark.parametrize("en, fr, band", ROWS)
def test_expected_minutes_match_the_series(level, en, fr, band):
    spec = LEVELS[level]
    cunning = np.arange(0, 26)
    got = tr.expected_cure_minutes(cunning, en, level)
    for c, g in zip(cunning, got):
        p = brute_chance(c + spec["bonus"] + band)
        if p == 0:
            assert g == np.inf
        else:
            assert g == pytest.approx(series_expectation(p, spec["minutes"], spec["retry"]),
                                      rel=1e-9)


def test_example_5_expected_times_by_hand():
    # light: p = 9/20; failures before success have mean (1-p)/p = 11/9; each costs an hour
    assert tr.expected_cure_minutes(12, "Weak", "light") == pytest.approx(1 + 60 * 11 / 9)
    # full: p = 7/20; mean failures 13/7, each costs a day; the success takes an hour
    assert tr.expected_cure_minutes(12, "Weak", "full") == pytest.approx(60 + 1440 * 13 / 7)
    # a certain success takes exactly one attempt
    assert tr.expected_cure_minutes(40, "Weak", "full") == 60


def test_zero_chance_means_never_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tr.expected_cure_minutes(2, "The end is near", "full") == np.inf
        got = tr.expected_cure_minutes(np.array([0, 15, 16]), "The end is near", "full")
        np.testing.assert_allclose(got, [np.inf, np.inf, 60 + 1440 * 19])
        assert tr.cured_within(0, "Bleeding", "full", 10**6) == 0.0
        assert np.all(np.isinf(tr.sample_cure_minutes(0, "Bleeding", "full", size=10, seed=1)))
        assert tr.cure_table(cunning=[0], levels="full")["expected_attempts"].eq(np.inf).all()


def test_simulated_attempts_agree_with_the_closed_form():
    """Roll d20s attempt after attempt (independent of the module), compare the mean time."""
    rng = np.random.default_rng(20261130)
    n = 40_000
    for cunning, name, band, level in ((12, "Weak", -5, "light"), (9, "Bleeding", -10, "light"),
                                       (14, "Coma", -10, "full")):
        spec = LEVELS[level]
        target = cunning + spec["bonus"] + band
        attempts = np.zeros(n, dtype=np.int64)
        pending = np.ones(n, dtype=bool)
        k = 0
        while pending.any():
            k += 1
            faces = rng.integers(1, DIE + 1, size=n)
            cured = pending & (faces <= target)
            attempts[cured] = k
            pending &= ~cured
        minutes = (attempts - 1) * spec["retry"] + spec["minutes"]
        se = minutes.std(ddof=1) / np.sqrt(n)
        assert abs(minutes.mean() - tr.expected_cure_minutes(cunning, name, level)) < 5 * se


def test_sampler_and_kernel_agree_with_the_geometric_law():
    n = 50_000
    times = tr.sample_cure_minutes(12, "Weak", "light", size=n, seed=7)
    se = times.std(ddof=1) / np.sqrt(n)
    assert abs(times.mean() - (1 + 60 * 11 / 9)) < 5 * se
    np.testing.assert_array_equal(times, tr.sample_cure_minutes(12, "Weak", "light", n, seed=7))
    hist = tr.cure_sampler(n, np.random.default_rng(3), chance=0.45, max_attempts=50)["attempts"]
    assert hist.sum() == n and hist[0] == 0
    exact = 0.45 * 0.55 ** (np.arange(1, 6) - 1)
    est = hist[1:6] / n
    assert np.all(np.abs(est - exact) < 5 * np.sqrt(exact * (1 - exact) / n))
    assert tr.cure_sampler(10, np.random.default_rng(3), chance=0.0)["attempts"][-1] == 10


# -- distribution and "cured within" ------------------------------------------------------------

def test_distribution_is_geometric_at_the_attempt_end_times():
    frame = tr.cure_time_distribution(12, "Weak", "full", attempts=6)
    p = 7 / 20
    assert list(frame.columns) == ["attempt", "minutes", "probability", "cumulative"]
    assert list(frame["minutes"]) == [60 + 1440 * j for j in range(6)]
    np.testing.assert_allclose(frame["probability"], [p * (1 - p) ** j for j in range(6)])
    np.testing.assert_allclose(frame["cumulative"], np.cumsum(frame["probability"]))
    default = tr.cure_time_distribution(12, "Weak", "full", tail=1e-6)
    rows, left = 0, 1.0          # the fewest attempts after which less than 1e-6 is left uncured
    while left > 1e-6:
        rows, left = rows + 1, left * (1 - p)
    assert len(default) == rows
    assert 1 - default["probability"].sum() == pytest.approx(left, abs=1e-12)
    never = tr.cure_time_distribution(0, "Coma", "full")
    assert never["probability"].sum() == 0


def test_cured_within_counts_the_attempts_that_have_ended():
    p = 7 / 20  # full treatment of Weak at Cunning 12
    cases = {0: 0, 59: 0, 60: 1, 1499: 1, 1500: 2, 3 * 1440: 3, 10 * 1440 + 60: 11}
    got = tr.cured_within(12, "Weak", "full", list(cases))
    want = [1 - (1 - p) ** k for k in cases.values()]
    np.testing.assert_allclose(got, want)
    light = tr.cured_within(12, "Weak", "light", [0, 1, 60, 61])
    np.testing.assert_allclose(light, [0, 0.45, 0.45, 1 - 0.55 ** 2])


# -- the table for plots --------------------------------------------------------------------------

def test_cure_table_by_band_against_brute_force():
    table = tr.cure_table()
    assert len(table) == 2 * DIE * 4
    assert sorted(table["modifier"].unique()) == [-15, -10, -5, 0]
    counts = table.drop_duplicates("modifier").set_index("modifier")["injuries"].to_dict()
    assert counts == {0: 5, -5: 12, -10: 11, -15: 1}
    for row in table.itertuples():
        spec = LEVELS[row.level]
        p = brute_chance(row.cunning + spec["bonus"] + row.modifier)
        assert row.chance == p
        if p:
            want = spec["minutes"] + spec["retry"] * (1 - p) / p
            assert row.expected_minutes == pytest.approx(want)
            assert row.expected_hours == pytest.approx(row.expected_minutes / 60)
            assert row.expected_attempts == pytest.approx(1 / p)
        else:
            assert row.expected_minutes == np.inf


def test_levels_frame():
    frame = tr.levels()
    assert frame.set_index("level").loc["light", "level_fr"] == "léger"
    assert frame.set_index("level").loc["full", "retry_minutes"] == 24 * 60


# -- bad input -------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, word", [
    (dict(cunning="twelve", injury="Weak"), "cunning"),
    (dict(cunning=12.5, injury="Weak"), "cunning"),
    (dict(cunning=None, injury="Weak"), "cunning"),
    (dict(cunning=[12, "x"], injury="Weak"), "cunning"),
    (dict(cunning=12, injury="Weka"), "injury"),
    (dict(cunning=12, injury=5), "injury"),
    (dict(cunning=12, injury="Weak", level="medium"), "level"),
    (dict(cunning=12, injury="Weak", modifier="x"), "modifier"),
])
def test_bad_input_names_the_argument(kwargs, word):
    with pytest.raises(ValueError, match=word) as info:
        tr.treatment_chance(**kwargs)
    assert "\n" not in str(info.value)


def test_unknown_injury_suggests_a_name():
    with pytest.raises(ValueError, match="did you mean 'Weak'"):
        tr.expected_cure_minutes(12, "Weka", "light")


def test_other_bad_arguments():
    with pytest.raises(ValueError, match="minutes"):
        tr.cured_within(12, "Weak", "full", -1)
    with pytest.raises(ValueError, match="minutes"):
        tr.cured_within(12, "Weak", "full", "soon")
    with pytest.raises(ValueError, match="attempts"):
        tr.cure_time_distribution(12, "Weak", attempts=0)
    with pytest.raises(ValueError, match="tail"):
        tr.cure_time_distribution(12, "Weak", tail=0)
    with pytest.raises(ValueError, match="seed"):
        tr.sample_cure_minutes(12, "Weak", size=3, seed="x")
    with pytest.raises(ValueError, match="size"):
        tr.sample_cure_minutes(12, "Weak", size=-1)
    with pytest.raises(ValueError, match="level"):
        tr.cure_table(levels=("light", "heavy"))


def test_a_level_is_found_by_its_section_key_whatever_its_names():
    # [treatment.full] renamed in both languages: "full" still names it, and so do its new names
    r = bl.load_rules().updated({"treatment": {"full": {"en": "thorough", "fr": "approfondi"}}})
    assert bl.treatment.attempts_within(25 * 60, "full", rules=r) == 2   # 60 min, then 24 h later
    assert bl.treatment.attempts_within(25 * 60, "thorough", rules=r) == 2
    assert bl.treatment.attempts_within(25 * 60, "approfondi", rules=r) == 2
