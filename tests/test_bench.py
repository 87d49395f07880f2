"""The benchmark's plain-Python references apply the same rule as the kernels they time:
their counts agree with the exact distributions (5 standard errors, fixed seeds)."""
import random

import numpy as np

import balance as bl
from balance import bench


def _agree(counts, probs):
    n = sum(counts)
    p = np.asarray(probs, float)
    se = np.sqrt(p * (1 - p) / n)
    assert np.all(np.abs(np.asarray(counts) / n - p) <= 5 * se + 1e-12), (counts, probs)


def test_plain_python_critical_injury_is_the_rule():
    counts = bench._injury_python(200_000, random.Random(3))
    exact = bl.injuries.injury_distribution(**bench.INJURY)["probability"]
    _agree(counts, exact)


def test_plain_python_d20_test_is_the_rule():
    counts = bench._d20_python(100_000, random.Random(4))
    exact = bl.d20.test_points(bench.D20["characteristic"], bench.D20["modifier"])
    _agree([counts.get(int(p), 0) for p in exact.index], exact.to_numpy())
