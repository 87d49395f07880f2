"""Price negotiation by Psychology (core rules, negotiation).

Ask for a change of ``X`` % (``X > 0``) and make a Psychology Test. Failed, or
``S.P. < X/4``: unchanged. ``X/4 <= S.P. < X/2``: the price moves by S.P. %. ``S.P. >= X/2``:
it moves by X %. Thresholds are compared exactly (X = 15: 3.75 and 7.5), never after rounding.
The divisors 4 and 2 are ``rules["negotiation"]`` data.

>>> import balance as bl
>>> bl.negotiation.price_change(6, ask=20)
6
>>> bl.negotiation.best_ask(psychology=12)
16
"""
from __future__ import annotations

import math
from fractions import Fraction
from functools import partial

import numpy as np
import pandas as pd

from ..dice.sampling import face_counts
from ..errors import check_integer, check_number
from ..montecarlo.results import Simulation
from ..rng import RNGLike
from ..rules import Rules, resolve

__all__ = ["price_change", "ask_outcomes", "ask_table", "best_ask", "negotiated_price",
           "negotiation_sampler", "simulate"]

_LIMIT = 10_000
#: Largest ask X (in %) the functions accept (core rules, negotiation: only ``X > 0``): an input
#: bound, also the end of the whole asks :func:`best_ask` and :func:`ask_table` search.
MAX_ASK = 1000


def _ask(ask) -> Fraction:
    check_number("ask", ask, min=0, strict_min=True, max=MAX_ASK)
    return Fraction(ask)


def _effective(psychology, modifier) -> int:
    """``C' = psychology + modifier`` (core rules, Tests), each checked."""
    return check_integer("psychology", psychology, min=-_LIMIT, max=_LIMIT) \
        + check_integer("modifier", modifier, min=-_LIMIT, max=_LIMIT)


def _outcome_codes(points: np.ndarray, ask: Fraction, rules: Rules) -> np.ndarray:
    """0 unchanged, 1 partial, 2 full for each points value (exact integer arithmetic)."""
    neg = rules["negotiation"]
    p, q = ask.numerator, ask.denominator
    # S.P. >= X / d  <=>  d * S.P. * q >= p   (all integers: exact)
    partial_ok = neg["partial_divisor"] * points * q >= p
    full_ok = neg["full_divisor"] * points * q >= p
    success = points >= 0
    return np.where(success & full_ok, 2, np.where(success & partial_ok, 1, 0))


def _change(code: np.ndarray, points: np.ndarray, ask: Fraction) -> np.ndarray:
    """Price change in % of each outcome code: 0, the S.P. (partial) or the ask (full)."""
    return np.where(code == 2, float(ask), np.where(code == 1, points, 0))


def price_change(success_points, ask, *, rules: Rules | None = None):
    """Price change in % for given points of the Psychology Test (core rules, negotiation).

    Failed (negative points), or fewer S.P. than ``ask / 4``: 0; ``ask/4 <= S.P. < ask/2``: the
    S.P.; ``S.P. >= ask/2``: the ask. Thresholds are compared exactly, never after rounding; the
    divisors are ``[negotiation]`` data.

    Parameters
    ----------
    success_points : int or array_like of int
        Points of the Test (negative: a failed Test).
    ask : number
        The change asked for, in % (``0 < ask <= 1000``, ``MAX_ASK``); fractions are kept exact.
    rules : Rules, optional
        Rules to read ``[negotiation]`` and the d20 from (default: the bundled rules).

    Returns
    -------
    int, float or numpy.ndarray
        The change in %: a number for scalar input, else an array.

    Raises
    ------
    ValueError
        Points that are not integers, or an ask that is not a number in (0, 1000].

    Examples
    --------
    >>> import balance as bl
    >>> bl.negotiation.price_change(6, ask=20)
    6
    >>> price_change([2, 3, 4, 7, 8], ask=15)       # thresholds 3.75 and 7.5, compared exactly
    array([ 0.,  0.,  4.,  7., 15.])
    """
    rules = resolve(rules)
    a = _ask(ask)
    pts = np.asarray(success_points)
    if pts.dtype.kind not in "iu":
        raise ValueError(f"success_points must be integers, got {success_points!r}")
    code = _outcome_codes(pts.astype(np.int64), a, rules)
    change = _change(code, pts, a)
    if change.ndim == 0:
        value = change.item()
        return int(value) if float(value).is_integer() else value
    return change


def ask_outcomes(psychology: int, ask, modifier: int = 0, *,
                 rules: Rules | None = None) -> pd.Series:
    """Exact outcome of asking ``ask`` % with Psychology ``psychology`` (core rules, negotiation).

    Parameters
    ----------
    psychology : int
        The Psychology characteristic (-10,000..10,000).
    ask : number
        The change asked for, in % (``0 < ask <= 1000``, ``MAX_ASK``); fractions are kept exact.
    modifier : int, default 0
        Sum of the Test's modifiers.
    rules : Rules, optional
        Rules to read ``[negotiation]`` and the d20 from (default: the bundled rules).

    Returns
    -------
    pandas.Series
        unchanged, partial, full (probabilities, summing to 1) and expected_change (in %, the
        magnitude by which the price moves in the asker's favour).

    Raises
    ------
    ValueError
        A Psychology or modifier that is not a whole number in -10,000..10,000, or an ask that is
        not a number in (0, 1000], naming the argument.

    Examples
    --------
    >>> import balance as bl
    >>> bl.negotiation.ask_outcomes(psychology=12, ask=20).round(2).tolist()
    [0.65, 0.25, 0.1, 3.75]
    """
    rules = resolve(rules)
    die = rules["d20"]["die"]
    c = _effective(psychology, modifier)
    a = _ask(ask)
    points = c - np.arange(1, die + 1)
    code = _outcome_codes(points, a, rules)
    probs = np.bincount(code, minlength=3) / die
    change = _change(code, points, a).sum() / die
    return pd.Series({"unchanged": probs[0], "partial": probs[1], "full": probs[2],
                      "expected_change": change}, name=f"ask {float(a):g} %")


def ask_table(psychology: int, asks=None, modifier: int = 0, *,
              rules: Rules | None = None) -> pd.DataFrame:
    """:func:`ask_outcomes` for many asks, one row each (core rules, negotiation).

    Parameters
    ----------
    psychology : int
        The Psychology characteristic (-10,000..10,000).
    asks : iterable of number, optional
        The asks, in %; default: every whole ask that can pay off, up to ``MAX_ASK``.
    modifier : int, default 0
        Sum of the Test's modifiers.
    rules : Rules, optional
        Rules to read ``[negotiation]`` and the d20 from (default: the bundled rules).

    Returns
    -------
    pandas.DataFrame
        Indexed by ask; columns unchanged, partial, full, expected_change.

    Raises
    ------
    ValueError
        A Psychology or modifier that is not a whole number in -10,000..10,000, or an ask that is
        not a number in (0, 1000], naming the argument.

    Examples
    --------
    >>> import balance as bl
    >>> bl.negotiation.ask_table(12, asks=[12, 16, 20])["expected_change"].round(2).tolist()
    [4.2, 4.3, 3.75]
    """
    rules = resolve(rules)
    if asks is None:
        asks = range(1, _max_useful_ask(psychology, modifier, rules) + 1)
    rows = {a: ask_outcomes(psychology, a, modifier, rules=rules) for a in asks}
    frame = pd.DataFrame(rows).T
    frame.index.name = "ask"
    return frame


def _max_useful_ask(psychology, modifier, rules: Rules) -> int:
    """The largest whole ask worth searching: past ``divisor x (C' - 1)`` (the most S.P., die
    showing 1) no outcome moves the price; never past :data:`MAX_ASK`, at least 1."""
    neg = rules["negotiation"]
    divisor = max(neg["partial_divisor"], neg["full_divisor"])
    return min(MAX_ASK, max(1, divisor * (_effective(psychology, modifier) - 1)))


def _whole_ask_payoffs(c: int, asks: np.ndarray, rules: Rules) -> np.ndarray:
    """``die x`` the expected change of each whole ask of ``asks`` at ``C' = c``, as exact
    integers, over all the die's faces at once (core rules, negotiation).

    For whole S.P. and X, ``S.P. >= X / d`` iff ``S.P. >= ceil(X / d)``: the successful points,
    sorted, split at the two thresholds into the full ones (each paying X) and the partial ones
    (each paying its S.P.), read off a cumulative sum.
    """
    neg = rules["negotiation"]
    points = np.sort(c - np.arange(1, rules["d20"]["die"] + 1, dtype=np.int64))
    points = points[points >= 0]  # a failed Test never moves the price
    below = np.concatenate(([0], np.cumsum(points)))  # below[i]: sum of the i smallest
    full_from = np.searchsorted(points, -(-asks // neg["full_divisor"]))
    partial_from = np.minimum(np.searchsorted(points, -(-asks // neg["partial_divisor"])),
                              full_from)
    return asks * (points.size - full_from) + below[full_from] - below[partial_from]


def best_ask(psychology: int, modifier: int = 0, *, rules: Rules | None = None) -> int:
    """The whole ask X that maximises the expected price change, the smallest one on a tie (core rules, negotiation).

    The optimum is always a whole number: between consecutive integers the outcome sets do not
    change and the payoff grows with X. Asks beyond ``partial_divisor x (C' - 1)`` never pay
    off; the search ends there, or at ``MAX_ASK``. Exact integer arithmetic over all the die's
    faces and asks at once (no table is built).

    Parameters
    ----------
    psychology : int
        The Psychology characteristic (-10,000..10,000).
    modifier : int, default 0
        Sum of the Test's modifiers.
    rules : Rules, optional
        Rules to read ``[negotiation]`` and the d20 from (default: the bundled rules).

    Returns
    -------
    int
        The best ask, in %.

    Raises
    ------
    ValueError
        A Psychology or modifier that is not a whole number in -10,000..10,000.

    Examples
    --------
    >>> import balance as bl
    >>> bl.negotiation.best_ask(psychology=12)
    16
    """
    rules = resolve(rules)
    asks = np.arange(1, _max_useful_ask(psychology, modifier, rules) + 1, dtype=np.int64)
    payoffs = _whole_ask_payoffs(_effective(psychology, modifier), asks, rules)
    return int(asks[np.argmax(payoffs)])  # argmax: the first (smallest) ask on a tie


def negotiated_price(price, change, *, selling: bool = False, whole: bool = False):
    """The price after a change of ``change`` %, down when buying, up when selling (core rules, negotiation).

    Kept exact; with ``whole=True`` rounded to whole NX in the merchant's favour (up when buying,
    down when selling), as the GM guide does.

    Parameters
    ----------
    price : number
        The price before negotiation (>= 0).
    change : number
        The change won, in % (0..100), e.g. from :func:`price_change`.
    selling : bool, default False
        ``True`` when the asker sells (the price goes up).
    whole : bool, default False
        Round to whole NX in the merchant's favour.

    Returns
    -------
    float or int
        The exact price (float), or whole NX (int) with ``whole=True``.

    Raises
    ------
    ValueError
        A negative price, or a change outside 0..100.

    Examples
    --------
    >>> import balance as bl
    >>> bl.negotiation.negotiated_price(200, 6)
    188.0
    >>> bl.negotiation.negotiated_price(199, 6, whole=True)
    188
    >>> bl.negotiation.negotiated_price(199, 6, selling=True, whole=True)
    210
    """
    check_number("price", price, min=0)
    check_number("change", change, min=0, max=100)
    delta = Fraction(change) if selling else -Fraction(change)
    value = Fraction(price) * (100 + delta) / 100
    if whole:
        return math.floor(value) if selling else math.ceil(value)
    return float(value)


def negotiation_sampler(n: int, rng: np.random.Generator, *, psychology: int, ask,
                        modifier: int = 0, rules: Rules | None = None) -> dict[str, np.ndarray]:
    """Monte Carlo kernel of the Psychology ask (core rules, negotiation).

    Parameters
    ----------
    n : int
        Number of Tests.
    rng : numpy.random.Generator
        The stream the engine hands this block.
    psychology : int
        The Psychology characteristic (keyword; validated by :func:`simulate`).
    ask : number
        The change asked for, in %.
    modifier : int, default 0
        Sum of the Test's modifiers.
    rules : Rules, optional
        Rules to read ``[negotiation]`` and the d20 from (default: the bundled rules).

    Returns
    -------
    dict of str to numpy.ndarray
        ``outcomes`` (counts of unchanged, partial, full), ``change_sum`` and ``change_sq_sum``
        (the summed change in % and its square, for the mean and its interval).

    Raises
    ------
    ValueError
        An ask that cannot be read as a fraction (this kernel does not check its arguments).

    Examples
    --------
    >>> import numpy as np
    >>> import balance as bl
    >>> out = bl.negotiation.negotiation_sampler(1_000, np.random.default_rng(1), psychology=12,
    ...                                          ask=20)
    >>> int(out["outcomes"].sum())
    1000
    """
    rules = resolve(rules)
    die = rules["d20"]["die"]
    counts = face_counts(die, n, rng)
    points = psychology + modifier - np.arange(1, die + 1)
    ask = Fraction(ask)
    code = _outcome_codes(points, ask, rules)
    change = _change(code, points, ask)
    return {"outcomes": np.bincount(code, weights=counts, minlength=3).astype(np.int64),
            "change_sum": np.array([float(change @ counts)]),
            "change_sq_sum": np.array([float((change ** 2) @ counts)])}


def simulate(psychology: int, ask, modifier: int = 0, *, trials: int = 1_000_000, seed: RNGLike = None,
             rules: Rules | None = None, **run_options) -> Simulation:
    """Monte Carlo twin of :func:`ask_outcomes` (core rules, negotiation).

    Parameters
    ----------
    psychology : int
        The Psychology characteristic (-10,000..10,000).
    ask : number
        The change asked for, in % (``0 < ask <= 1000``, ``MAX_ASK``); fractions are kept exact.
    modifier : int, default 0
        Sum of the Test's modifiers.
    trials : int, default 1,000,000
        Number of Tests (within the trials budget).
    seed : int, SeedSequence, Generator or None
        Seed of the run (``None``: fresh entropy, recorded in the result).
    rules : Rules, optional
        Rules to read ``[negotiation]`` and the d20 from (default: the bundled rules).
    **run_options
        Passed to ``balance.montecarlo.run`` (``workers``, ``chunk_size``, ``progress``).

    Returns
    -------
    Simulation
        ``.table``: indexed by outcome, columns probability, ci_low, ci_high, se, trials;
        ``.extra["expected_change"]``: the mean change with its normal interval.

    Raises
    ------
    ValueError
        A Psychology or modifier that is not a whole number in -10,000..10,000, or an ask that is
        not a number in (0, 1000], naming the argument.
        Also ``trials`` outside the trials budget.

    Examples
    --------
    >>> import balance as bl
    >>> sim = bl.negotiation.simulate(psychology=12, ask=20, trials=100_000, seed=1)
    >>> sim.table.index.tolist()
    ['unchanged', 'partial', 'full']
    >>> row = sim.table.loc["full"]
    >>> bool(abs(row.probability - 0.10) < 5 * row.se)  # exact: 0.10
    True
    """
    from .. import montecarlo

    rules = resolve(rules)
    sampler = partial(negotiation_sampler,
                      psychology=check_integer("psychology", psychology, min=-_LIMIT, max=_LIMIT),
                      ask=_ask(ask),
                      modifier=check_integer("modifier", modifier, min=-_LIMIT, max=_LIMIT),
                      rules=rules)
    res = montecarlo.run(sampler, trials, seed=seed, rules=rules, label="negotiation",
                         **run_options)
    table = montecarlo.proportion_table(
        res.totals["outcomes"], res.trials,
        index=pd.Index(["unchanged", "partial", "full"], name="outcome"))
    table = table.rename(columns={"estimate": "probability"})
    mean = res.mean("change_sum", "change_sq_sum")
    return Simulation(table=table, result=res, extra={"expected_change": mean})
