"""The pytest helpers designers use for their own balance assertions."""
import pytest

import balance as bl
from balance.regression.testing import (assert_metric, assert_probability_above,
                                        assert_probability_below)


def test_exact_values_are_compared_exactly():
    # death at 30 s, -5 HP, no wound: k = 35, never >= 176 - 100 -> 0 (RULES.md 1.2)
    assert_probability_below(bl.injuries.death_probability(seconds=30, negative_hp=5), 0.10)
    with pytest.raises(AssertionError, match=r"0.17 \(exact\), not below 0.17"):
        assert_probability_below(bl.injuries.death_probability(40, 6, 1), 0.17)
    assert_probability_above(0.17, 0.1699)


def test_monte_carlo_counts_need_the_one_sided_bound():
    assert_probability_below((480, 10_000), 0.06)      # upper 95 % bound ~0.0517
    with pytest.raises(AssertionError, match="not shown at 95 %.*trials would settle it"):
        assert_probability_below((590, 10_000), 0.06)  # 5.9 % < 6 % but not demonstrably
    with pytest.raises(AssertionError, match="is 0.07 .*not below 0.06"):
        assert_probability_below((700, 10_000), 0.06)
    assert_probability_above((700, 10_000), 0.06)


def test_assert_metric_exact_mc_distribution_and_mean():
    assert_metric("death.p@40s,6hp,1w", below=0.2, above=0.1)
    assert_metric("mc.death@60s,10hp,1w", below=0.66, above=0.64, trials=200_000, seed=1)
    # instant death from 180: P = (100 - (180 - 140) + 1) / 100 = 0.61, not above 0.64
    with pytest.raises(AssertionError, match="mc.death"):
        assert_metric("mc.death@60s,10hp,1w", above=0.64, trials=200_000, seed=1,
                      rules=bl.load_rules().updated({"injuries": {"death_threshold": 180}}))
    assert_metric("mc.rescue_severity@2d20s,1d10hp,2w", category="death", below=0.14,
                  trials=50_000, seed=2)
    assert_metric("duel.rounds@70v50", above=2, below=5, trials=5000, seed=2)


def test_bad_arguments():
    with pytest.raises(ValueError, match="below=, above="):
        assert_metric("death.p@40s,6hp,1w")
    with pytest.raises(ValueError, match="category must be one of"):
        assert_metric("injuries.outcomes@60s,5hp,0w", below=0.1)
    with pytest.raises(ValueError, match="successes"):
        assert_probability_below((11, 10), 0.5)
    with pytest.raises(ValueError, match="value must be a number"):
        assert_probability_below("high", 0.5)
