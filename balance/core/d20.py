"""d20 Tests, roll under (core rules, RULES.md §1.1).

``C' = characteristic + modifier``; roll 1d20; success iff ``die <= C'``; points ``= C' - die``
(``>= 0`` Success Points, ``< 0`` Failure Points). No natural 1 or 20 rule.

>>> import balance as bl
>>> bl.d20.success_chance(12, modifier=2)
0.7
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import check_integer, check_integer_array
from ..montecarlo.results import Simulation
from ..rng import RNGLike
from ..rules import Rules, resolve

__all__ = ["effective", "success_chance", "test_points", "points_after", "points_sampler",
           "simulate"]

_CHAR_LIMIT = 10_000


def effective(characteristic, modifier=0):
    """``C' = characteristic + modifier`` (modifiers change the characteristic, never the die)."""
    c = check_integer_array("characteristic", characteristic, min=-_CHAR_LIMIT, max=_CHAR_LIMIT)
    m = check_integer_array("modifier", modifier, min=-_CHAR_LIMIT, max=_CHAR_LIMIT)
    total = c + m
    return int(total) if total.ndim == 0 else total


def success_chance(characteristic, modifier=0, *, rules: Rules | None = None):
    """P(success) of a Test: ``clip(C', 0, die) / die``. Broadcasts over arrays (§1.1).

    >>> success_chance(23)
    1.0
    """
    die = resolve(rules)["d20"]["die"]
    c = np.asarray(effective(characteristic, modifier))
    p = np.clip(c, 0, die) / die
    return float(p) if p.ndim == 0 else p


def test_points(characteristic: int, modifier: int = 0, *, rules: Rules | None = None) -> pd.Series:
    """Exact distribution of the points of one Test (§1.1).

    Returns a Series ``points -> probability``; points ``>= 0`` are S.P., ``< 0`` are F.P.
    (a negative number of magnitude F.P.). Uniform over ``C' - die .. C' - 1``.
    """
    die = resolve(rules)["d20"]["die"]
    c = check_integer("characteristic", characteristic, min=-_CHAR_LIMIT, max=_CHAR_LIMIT) \
        + check_integer("modifier", modifier, min=-_CHAR_LIMIT, max=_CHAR_LIMIT)
    points = c - np.arange(die, 0, -1)
    return pd.Series(np.full(die, 1.0 / die), index=pd.Index(points, name="points"),
                     name="probability")


test_points.__test__ = False  # a rules function, not a pytest test (pytest --doctest-modules)


def points_after(characteristic, die_roll, modifier=0):
    """Points of a Test for a given die roll: ``C' - die`` (vectorised)."""
    return np.asarray(effective(characteristic, modifier)) - np.asarray(die_roll)


def points_sampler(n: int, rng: np.random.Generator, *,
                   rules: Rules | None = None) -> dict[str, np.ndarray]:
    """Monte Carlo kernel: histogram of the die faces of ``n`` Tests (index ``face - 1``, §1.1).

    The faces do not depend on ``C'``: points are ``C' - face``, read off the histogram (the
    additive accumulator of the engine) by :func:`simulate`.
    """
    die = resolve(rules)["d20"]["die"]
    faces = rng.integers(0, die, size=n, dtype=np.int16 if die < 2**15 else np.int64)
    return {"faces": np.bincount(faces, minlength=die).astype(np.int64)}


def simulate(characteristic: int, modifier: int = 0, *, trials: int = 1_000_000, seed: RNGLike = None,
             rules: Rules | None = None, **run_options):
    """Monte Carlo twin of :func:`test_points` (§1.1): a Simulation whose ``.table`` is
    indexed by points, with columns estimate, ci_low, ci_high, se, trials (Wilson 95 %)."""
    from functools import partial

    from .. import montecarlo

    rules = resolve(rules)
    c = check_integer("characteristic", characteristic, min=-_CHAR_LIMIT, max=_CHAR_LIMIT)
    m = check_integer("modifier", modifier, min=-_CHAR_LIMIT, max=_CHAR_LIMIT)
    sampler = partial(points_sampler, rules=rules)
    res = montecarlo.run(sampler, trials, seed=seed, rules=rules, label="d20 test", **run_options)
    die = rules["d20"]["die"]
    counts = res.totals["faces"][::-1]
    points = (c + m) - np.arange(die, 0, -1)
    table = montecarlo.proportion_table(counts, res.trials, index=pd.Index(points, name="points"))
    return Simulation(table=table, result=res)
