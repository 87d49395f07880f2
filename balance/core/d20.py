"""d20 Tests, roll under (core rules, Tests).

``C' = characteristic + modifier``; roll 1d20; success iff ``die <= C'``; points ``= C' - die``
(``>= 0`` Success Points, ``< 0`` Failure Points). No natural 1 or 20 rule.

>>> import balance as bl
>>> bl.d20.success_chance(12, modifier=2)
0.7
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..dice.sampling import face_counts
from ..errors import check_integer, check_integer_array
from ..montecarlo.results import Simulation
from ..rng import RNGLike
from ..rules import Rules, resolve

if TYPE_CHECKING:  # pandas is imported where a frame is built (a fast start)
    import pandas as pd

__all__ = ["effective", "success_chance", "test_points", "points_after", "points_sampler",
           "simulate"]

_CHAR_LIMIT = 10_000


def effective(characteristic, modifier=0):
    """Effective characteristic of a Test: ``C' = characteristic + modifier`` (core rules, Tests).

    Modifiers change the characteristic, never the die.

    Parameters
    ----------
    characteristic : int or array_like of int
        The characteristic tested (-10,000..10,000).
    modifier : int or array_like of int, default 0
        Sum of the modifiers (-10,000..10,000); broadcasts against ``characteristic``.

    Returns
    -------
    int or numpy.ndarray
        ``C'``: an int for scalar input, else an integer array of the broadcast shape.

    Raises
    ------
    ValueError
        A characteristic or modifier that is not a whole number in -10,000..10,000.

    Examples
    --------
    >>> import balance as bl
    >>> bl.d20.effective(12, modifier=2)
    14
    >>> bl.d20.effective([10, 12], modifier=-3).tolist()
    [7, 9]
    """
    c = check_integer_array("characteristic", characteristic, min=-_CHAR_LIMIT, max=_CHAR_LIMIT)
    m = check_integer_array("modifier", modifier, min=-_CHAR_LIMIT, max=_CHAR_LIMIT)
    total = c + m
    return int(total) if total.ndim == 0 else total


def success_chance(characteristic, modifier=0, *, rules: Rules | None = None):
    """Chance that a Test succeeds: ``clip(C', 0, die) / die`` (core rules, Tests).

    A Test rolls 1d20 under ``C' = characteristic + modifier``; there is no natural 1 or 20 rule.

    Parameters
    ----------
    characteristic : int or array_like of int
        The characteristic tested (-10,000..10,000).
    modifier : int or array_like of int, default 0
        Sum of the modifiers; broadcasts against ``characteristic``.
    rules : Rules, optional
        Rules to read the die from (``[d20] die``; default: the bundled rules).

    Returns
    -------
    float or numpy.ndarray
        P(success): a float for scalar input, else an array of the broadcast shape.

    Raises
    ------
    ValueError
        A characteristic or modifier that is not a whole number in -10,000..10,000.

    Examples
    --------
    >>> import balance as bl
    >>> bl.d20.success_chance(12, modifier=2)
    0.7
    >>> success_chance(23)
    1.0
    >>> bl.d20.success_chance([0, 10, 20]).tolist()
    [0.0, 0.5, 1.0]
    """
    die = resolve(rules)["d20"]["die"]
    c = np.asarray(effective(characteristic, modifier))
    p = np.clip(c, 0, die) / die
    return float(p) if p.ndim == 0 else p


def test_points(characteristic: int, modifier: int = 0, *, rules: Rules | None = None) -> pd.Series:
    """Exact distribution of the points of one Test (core rules, Tests).

    Points are ``C' - die``: ``>= 0`` are Success Points (S.P.), ``< 0`` Failure Points (F.P., a
    negative number of magnitude F.P.). Uniform over ``C' - die .. C' - 1``.

    Parameters
    ----------
    characteristic : int
        The characteristic tested (-10,000..10,000).
    modifier : int, default 0
        Sum of the modifiers.
    rules : Rules, optional
        Rules to read the die from (default: the bundled rules).

    Returns
    -------
    pandas.Series
        ``points -> probability``, indexed by ``points``, lowest first.

    Raises
    ------
    ValueError
        A characteristic or modifier that is not a whole number in -10,000..10,000.

    Examples
    --------
    >>> import balance as bl
    >>> pts = bl.d20.test_points(12, modifier=2)
    >>> int(pts.index.min()), int(pts.index.max()), round(float(pts[pts.index >= 0].sum()), 12)
    (-6, 13, 0.7)
    """
    import pandas as pd

    die = resolve(rules)["d20"]["die"]
    c = check_integer("characteristic", characteristic, min=-_CHAR_LIMIT, max=_CHAR_LIMIT) \
        + check_integer("modifier", modifier, min=-_CHAR_LIMIT, max=_CHAR_LIMIT)
    points = c - np.arange(die, 0, -1)
    return pd.Series(np.full(die, 1.0 / die), index=pd.Index(points, name="points"),
                     name="probability")


test_points.__test__ = False  # type: ignore[attr-defined]  # a rules function, not a pytest test


def points_after(characteristic, die_roll, modifier=0):
    """Points of a Test for a given die roll: ``C' - die`` (core rules, Tests; vectorised).

    Parameters
    ----------
    characteristic : int or array_like of int
        The characteristic tested (-10,000..10,000).
    die_roll : int or array_like of int
        The face(s) rolled; broadcasts against ``characteristic``.
    modifier : int or array_like of int, default 0
        Sum of the modifiers.

    Returns
    -------
    numpy.ndarray
        The points (S.P. when ``>= 0``, F.P. when ``< 0``), of the broadcast shape.

    Raises
    ------
    ValueError
        A characteristic or modifier that is not a whole number in -10,000..10,000.

    Examples
    --------
    >>> import balance as bl
    >>> bl.d20.points_after(12, [1, 12, 20], modifier=2).tolist()
    [13, 2, -6]
    """
    return np.asarray(effective(characteristic, modifier)) - np.asarray(die_roll)


def points_sampler(n: int, rng: np.random.Generator, *,
                   rules: Rules | None = None) -> dict[str, np.ndarray]:
    """Monte Carlo kernel: histogram of the die faces of ``n`` Tests (core rules, Tests).

    The faces do not depend on ``C'``: points are ``C' - face``, read off the histogram (the
    additive accumulator of the engine) by :func:`simulate`.

    Parameters
    ----------
    n : int
        Number of Tests to roll.
    rng : numpy.random.Generator
        The stream the engine hands this block.
    rules : Rules, optional
        Rules to read the die from (default: the bundled rules).

    Returns
    -------
    dict of str to numpy.ndarray
        ``{"faces": counts}``, the count of each face at index ``face - 1`` (int64).

    Raises
    ------
    ValueError
        Only from numpy, for a negative ``n``; the engine always passes a valid block size.

    Examples
    --------
    >>> import numpy as np
    >>> import balance as bl
    >>> counts = bl.d20.points_sampler(1_000, np.random.default_rng(1))["faces"]
    >>> len(counts), int(counts.sum())
    (20, 1000)
    """
    die = resolve(rules)["d20"]["die"]
    return {"faces": face_counts(die, n, rng)}


def simulate(characteristic: int, modifier: int = 0, *, trials: int = 1_000_000, seed: RNGLike = None,
             rules: Rules | None = None, **run_options):
    """Monte Carlo twin of :func:`test_points` (core rules, Tests).

    Parameters
    ----------
    characteristic : int
        The characteristic tested (-10,000..10,000).
    modifier : int, default 0
        Sum of the modifiers.
    trials : int, default 1,000,000
        Number of Tests (within the trials budget).
    seed : int, SeedSequence, Generator or None
        Seed of the run (``None``: fresh entropy, recorded in the result).
    rules : Rules, optional
        Rules to read the die from (default: the bundled rules).
    **run_options
        Passed to ``balance.montecarlo.run`` (``workers``, ``chunk_size``, ``progress``).

    Returns
    -------
    Simulation
        ``.table`` is indexed by points, with columns estimate, ci_low, ci_high, se, trials
        (Wilson 95 %); ``.result`` is the engine's result (seed, totals).

    Raises
    ------
    ValueError
        A characteristic or modifier that is not a whole number in -10,000..10,000, or
        ``trials`` outside the trials budget.

    Examples
    --------
    >>> import balance as bl
    >>> sim = bl.d20.simulate(12, modifier=2, trials=20_000, seed=1)
    >>> list(sim.table.columns)
    ['estimate', 'ci_low', 'ci_high', 'se', 'trials']
    >>> abs(float(sim.table.loc[sim.table.index >= 0, "estimate"].sum()) - 0.7) < 0.02
    True
    """
    import pandas as pd

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
