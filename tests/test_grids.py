"""Exact formulas over grids a chunk at a time (balance.grids) give what whole-array numpy
gives, and P(death) over a large broadcast grid equals the core rules' formula written out."""
import numpy as np
import pytest

import balance as bl
from balance.grids import CHUNK, elementwise


@pytest.mark.parametrize("shapes", [((CHUNK * 3 + 7,), ()), ((257, 1), (1, 1031)),
                                    ((5, 1, 300), (1, 200, 1)), ((0, 3), (1, 3))])
def test_chunks_give_what_whole_arrays_give(shapes):
    rng = np.random.default_rng(7)
    a, b = (rng.integers(-50, 50, s) for s in shapes)
    assert np.array_equal(elementwise(lambda x, y: x * 3 - y ** 2, a, b), a * 3 - b ** 2)


def test_a_grid_over_budget_is_one_line():
    with pytest.raises(ValueError, match=r"^death_probability would have 100,000 x 10,000 = "
                                         r"1,000,000,000 cells .*grid budget\)$"):
        bl.injuries.death_probability(np.zeros((100_000, 1), int), np.ones((1, 10_000), int))


def test_death_probability_over_a_grid_is_the_formula():
    # core rules, dying: death when 1d100 + (wounds + 1)(seconds + negative HP) >= 176,
    # certain from 175 s on; written out here over a 5 x 176 x 200 grid (176,000 cells)
    w, s, h = np.arange(5)[:, None, None], np.arange(176)[None, :, None], np.arange(1, 201)
    k = (w + 1) * (s + h)
    rolls = np.arange(1, 101)
    expected = ((rolls + k[..., None]) >= 176).mean(axis=-1)
    expected = np.where(s >= 175, 1.0, expected)
    assert np.array_equal(bl.injuries.death_probability(s, h, w), expected)
