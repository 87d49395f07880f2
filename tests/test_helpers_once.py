"""One helper each (issue 12): the mean and standard error from sums, the automatic death read
from the rules data. Each helper against an independent computation written here."""
from __future__ import annotations

import math

import numpy as np
import pytest

import balance as bl
from balance.montecarlo.intervals import mean_se
from balance.regression import measure, metric


@pytest.mark.parametrize("values", [[1, 2, 3, 6], [0.5, -2.0, 7.25], [4, 4, 4, 4, 4], [3, 9]])
def test_mean_se_is_the_sample_mean_and_its_standard_error(values):
    x = np.array(values, dtype=float)
    mean, se = mean_se(x.sum(), (x * x).sum(), x.size)
    assert mean == pytest.approx(x.mean(), abs=1e-12)
    assert se == pytest.approx(math.sqrt(x.var(ddof=1) / x.size), abs=1e-12)


def test_mean_se_broadcasts_and_says_nan_where_there_is_no_spread():
    mean, se = mean_se(np.array([12.0, 5.0, 0.0]), np.array([50.0, 25.0, 0.0]),
                       np.array([4, 1, 0]))
    assert mean[0] == 3.0 and se[0] == pytest.approx(math.sqrt(14 / 3 / 4))
    assert mean[1] == 5.0 and np.isnan(se[1])  # one case: no spread
    assert np.isnan(mean[2]) and np.isnan(se[2])  # no case


def test_mcresult_mean_uses_the_sample_variance():
    def sampler(n, rng):
        x = rng.integers(1, 7, size=n)
        return {"s": x.sum(), "q": (x * x).sum()}

    res = bl.montecarlo.run(sampler, 1000, seed=5, progress=False)
    row = res.mean("s", "q").iloc[0]
    s, q, n = float(res["s"]), float(res["q"]), 1000
    assert row["estimate"] == s / n
    assert row["se"] == pytest.approx(math.sqrt((q - s * s / n) / (n - 1) / n), rel=1e-12)


def _late_rules(seconds):
    return bl.load_rules().updated({"injuries": {"automatic_death_seconds": seconds}})


def test_mean_surface_runs_to_the_rules_automatic_death():
    rules = _late_rules(100)
    got = measure(rules, metrics=[metric("death.mean_surface")])["death.mean_surface"].value
    s, hp, w = np.meshgrid(np.arange(100), np.arange(1, 21), np.arange(4), indexing="ij")
    k = (w + 1) * (s + hp)
    d100 = np.arange(1, 101)
    assert got == pytest.approx(np.mean(d100[None, None, None, :] + k[..., None] >= 176),
                                abs=1e-12)


def test_rescue_curve_default_times_reach_the_rules_automatic_death():
    frame = bl.rescue.curve(wounds=(0,), trials=2000, seed=3, rules=_late_rules(300))
    assert frame["arrival"].tolist() == list(range(0, 301, 5))
    core = bl.rescue.curve(wounds=(0,), trials=2000, seed=3)
    assert core["arrival"].tolist() == list(range(0, 176, 5))


def test_outcome_table_from_enumerated_faces_is_the_dice_distribution():
    totals = np.add.outer(np.arange(1, 7), np.arange(1, 7)).ravel()
    counts = np.bincount(totals)[2:]
    table = bl.dice.outcome_table(counts, np.arange(2, 13))
    assert table.name == "probability" and table.index.name == "value"
    assert table.tolist() == [c / 36 for c in counts]
    assert table.equals(bl.dice.distribution("2d6").to_series())



def test_rules_from_any_path_like(tmp_path):
    # the explorers and every rules= argument take an os.PathLike, not only a str or a Path
    import os

    from balance.rules import resolve

    class Where(os.PathLike):
        def __fspath__(self):
            return str(tmp_path / "v.toml")

    (tmp_path / "v.toml").write_text("[injuries]\ndeath_threshold = 180\n", encoding="utf-8")
    assert resolve(Where())["injuries"]["death_threshold"] == 180
