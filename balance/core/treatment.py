"""Treating critical injuries (core rules, treating injuries).

Two levels, both a Cunning Test (core rules, Tests) with the injury row's test modifier:

* **light** (*léger*): 1 minute, Cunning +2; removes the symptoms (the injury still counts in
  ``wounds``); one attempt per hour, per injury;
* **full** (*complet*): 1 hour; removes the injury; one attempt per day, per injury.

Attempts are independent Tests, so the number of attempts until success is geometric. Our
reading of the retry limit: the healer tries again as soon as allowed, attempts start
``retry_minutes`` apart, and the cure happens when the successful attempt ends. Attempt ``k``
then ends at ``(k - 1) * retry_minutes + minutes``. A success chance of 0 means never: times are
``inf`` (no division by zero). Durations, bonuses and retry limits are ``rules["treatment"]``.

>>> import balance as bl
>>> bl.treatment.treatment_chance(cunning=12, injury="Weak", level="light")
0.45
>>> round(bl.treatment.expected_cure_minutes(cunning=12, injury="Weak", level="light"), 2)
74.33
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from collections.abc import Mapping

import numpy as np
from numpy.typing import ArrayLike

from . import d20
from ..errors import check_integer, check_integer_array, check_number, check_number_array
from ..names import find_row
from ..rng import RNGLike, as_generator
from ..rules import Rules, resolve

if TYPE_CHECKING:  # pandas is imported where a frame is built (a fast start)
    import pandas as pd

__all__ = [
    "levels", "treatment_chance", "expected_cure_minutes", "cured_within", "attempts_within",
    "cure_time_distribution", "cure_table", "sample_cure_minutes", "cure_sampler",
]

_CHAR_LIMIT = 10_000


def _level_rows(rules: Rules) -> list[tuple[str, Mapping]]:
    return [(k, v) for k, v in rules["treatment"].items()
            if isinstance(v, Mapping) and "bonus" in v]


def _level(level: object, rules: Rules) -> Mapping:
    """A treatment level by its section key (``"light"``, ``"full"``: stable, whatever a
    variant calls it) or by its English or French name."""
    levels = _level_rows(rules)
    for key, row in levels:
        if level == key:
            return row
    return find_row([row for _, row in levels], level, "level")[1]


def _injury_modifier(injury: object, rules: Rules) -> int:
    return find_row(rules["injuries"]["table"], injury, "injury")[1]["modifier"]


def _chance(cunning: ArrayLike, test_modifier: ArrayLike, level: Mapping,
            rules: Rules) -> float | np.ndarray:
    """Success chance of one attempt given the row's modifier (array in, array out)."""
    return d20.success_chance(cunning, level["bonus"] + test_modifier, rules=rules)


def _args(cunning: ArrayLike, injury: object, level: object, modifier: ArrayLike,
          rules: Rules | None) -> tuple[np.ndarray, Mapping, Rules]:
    """Validate the common arguments, return (chance, level row, rules)."""
    rules = resolve(rules)
    c = check_integer_array("cunning", cunning, min=-_CHAR_LIMIT, max=_CHAR_LIMIT)
    m = check_integer_array("modifier", modifier, min=-_CHAR_LIMIT, max=_CHAR_LIMIT)
    row = _level(level, rules)
    p = _chance(c + m, _injury_modifier(injury, rules), row, rules)
    return np.asarray(p, dtype=float), row, rules


def _expected_minutes(p: np.ndarray, minutes: float, retry: float) -> np.ndarray:
    """``minutes + retry * (1 - p) / p``; ``inf`` where ``p == 0`` (no division by zero)."""
    failures = np.divide(1.0 - p, p, out=np.full(p.shape, np.inf), where=p > 0)
    return minutes + retry * failures


def _out(x: np.ndarray) -> float | np.ndarray:
    return float(x) if np.ndim(x) == 0 else x


def levels(*, rules: Rules | None = None) -> pd.DataFrame:
    """The treatment levels (core rules, treating injuries).

    Parameters
    ----------
    rules : Rules, optional
        Rules to read ``[treatment]`` and the injury table from (default: the bundled rules).

    Returns
    -------
    pandas.DataFrame
        One row per level: level, level_fr, bonus, minutes, retry_minutes, removes_injury.

    Raises
    ------
    RulesError
        ``rules`` given as a file or variant name that cannot be loaded.

    Examples
    --------
    >>> import balance as bl
    >>> bl.treatment.levels()[["level", "bonus", "minutes", "retry_minutes"]].values.tolist()
    [['light', 2, 1, 60], ['full', 0, 60, 1440]]
    """
    import pandas as pd

    rules = resolve(rules)
    return pd.DataFrame(
        [(row["en"], row.get("fr", row["en"]), row["bonus"], row["minutes"], row["retry_minutes"],
          row["removes_injury"]) for _, row in _level_rows(rules)],
        columns=["level", "level_fr", "bonus", "minutes", "retry_minutes", "removes_injury"])


def treatment_chance(cunning: ArrayLike, injury: str, level: str = "light", *,
                     modifier: ArrayLike = 0, rules: Rules | None = None) -> float | np.ndarray:
    """Chance that one treatment attempt succeeds (core rules, treating injuries).

    A Cunning Test with the level's bonus and the injury row's test modifier:
    ``clip(cunning + bonus + row modifier + modifier, 0, die) / die``.

    Parameters
    ----------
    cunning : int or array_like of int
        The healer's Cunning (-10,000..10,000); broadcasts.
    injury : str
        Injury name, English or French (``"Weak"``, ``"Faible"``).
    level : str, default "light"
        ``"light"``/``"léger"`` or ``"full"``/``"complet"``.
    modifier : int or array_like of int, default 0
        Any further modifier to the Test (GM's call); broadcasts with ``cunning``.
    rules : Rules, optional
        Rules to read ``[treatment]`` and the injury table from (default: the bundled rules).

    Returns
    -------
    float or numpy.ndarray
        A float for scalar input, else an array of the broadcast shape.

    Raises
    ------
    ValueError
        A Cunning or modifier that is not a whole number in -10,000..10,000, or an unknown injury or
        level name (with a did-you-mean), naming the argument.

    Examples
    --------
    >>> import balance as bl
    >>> bl.treatment.treatment_chance(cunning=12, injury="Weak", level="light")   # 12 + 2 - 5 = 9
    0.45
    >>> treatment_chance(12, "Faible", "complet")
    0.35
    """
    p, _, _ = _args(cunning, injury, level, modifier, rules)
    return _out(p)


def expected_cure_minutes(cunning: ArrayLike, injury: str, level: str = "light", *,
                          modifier: ArrayLike = 0,
                          rules: Rules | None = None) -> float | np.ndarray:
    """Expected minutes until a treatment succeeds, retrying as soon as allowed (core rules, treating injuries).

    Light: until the symptoms are removed; full: until the injury is removed.
    ``minutes + retry_minutes * (1 - p) / p``, and ``inf`` when ``p == 0``. Broadcasts.

    Parameters
    ----------
    cunning : int or array_like of int
        The healer's Cunning (-10,000..10,000); broadcasts.
    injury : str
        Injury name, English or French (``"Weak"``, ``"Faible"``).
    level : str, default "light"
        ``"light"``/``"léger"`` or ``"full"``/``"complet"``.
    modifier : int or array_like of int, default 0
        Any further modifier to the Test (GM's call); broadcasts with ``cunning``.
    rules : Rules, optional
        Rules to read ``[treatment]`` and the injury table from (default: the bundled rules).

    Returns
    -------
    float or numpy.ndarray
        Minutes (``inf`` when the chance is 0).

    Raises
    ------
    ValueError
        A Cunning or modifier that is not a whole number in -10,000..10,000, or an unknown injury or
        level name (with a did-you-mean), naming the argument.

    Examples
    --------
    >>> import balance as bl
    >>> round(bl.treatment.expected_cure_minutes(12, "Weak", "full"), 1)   # about 1.9 days
    2734.3
    >>> bl.treatment.expected_cure_minutes(2, "The end is near", "full")
    inf
    """
    p, row, _ = _args(cunning, injury, level, modifier, rules)
    return _out(_expected_minutes(p, row["minutes"], row["retry_minutes"]))


def cured_within(cunning: ArrayLike, injury: str, level: str, minutes: ArrayLike, *,
                 modifier: ArrayLike = 0, rules: Rules | None = None) -> float | np.ndarray:
    """Chance that the treatment has succeeded ``minutes`` after the first attempt began (core rules, treating injuries).

    Attempts ending by then: ``k = floor((minutes - duration) / retry) + 1`` (0 before the first
    ends); the chance is ``1 - (1 - p) ** k``. Broadcasts over ``cunning`` and ``minutes``.

    Parameters
    ----------
    cunning : int or array_like of int
        The healer's Cunning (-10,000..10,000); broadcasts.
    injury : str
        Injury name, English or French (``"Weak"``, ``"Faible"``).
    level : str
        ``"light"``/``"léger"`` or ``"full"``/``"complet"``.
    minutes : number or array_like of number
        Minutes since the first attempt began (>= 0).
    modifier : int or array_like of int, default 0
        Any further modifier to the Test (GM's call); broadcasts with ``cunning``.
    rules : Rules, optional
        Rules to read ``[treatment]`` and the injury table from (default: the bundled rules).

    Returns
    -------
    float or numpy.ndarray
        The chance of being cured by then.

    Raises
    ------
    ValueError
        A Cunning or modifier that is not a whole number in -10,000..10,000, or an unknown injury or
        level name (with a did-you-mean), naming the argument.
        Also negative minutes.

    Examples
    --------
    >>> import balance as bl
    >>> round(cured_within(12, "Weak", "full", 24 * 60 * 3), 6)   # three days: 3 attempts
    0.725375
    """
    p, row, _ = _args(cunning, injury, level, modifier, rules)
    t = check_number_array("minutes", minutes, min=0)
    return _out(1.0 - (1.0 - p) ** _attempts_ended(t, row))


def attempts_within(minutes: ArrayLike, level: str = "light", *,
                    rules: Rules | None = None) -> int | np.ndarray:
    """Attempts of a treatment ``level`` that end within ``minutes`` of the first one's start (core rules, treating injuries).

    One attempt starts every ``retry_minutes`` and ends ``minutes`` (its duration) later:
    ``floor((minutes - duration) / retry) + 1``, 0 before the first ends. Broadcasts.

    Parameters
    ----------
    minutes : number or array_like of number
        Minutes since the first attempt began (>= 0).
    level : str, default "light"
        ``"light"``/``"léger"`` or ``"full"``/``"complet"``.
    rules : Rules, optional
        Rules to read ``[treatment]`` from (default: the bundled rules).

    Returns
    -------
    int or numpy.ndarray
        Attempts ended: an int for scalar input, else an integer array.

    Raises
    ------
    ValueError
        Negative minutes, or an unknown level name.

    Examples
    --------
    >>> import balance as bl
    >>> attempts_within([59, 60, 24 * 60, 25 * 60], "full")
    array([0, 1, 1, 2])
    """
    rules = resolve(rules)
    row = _level(level, rules)
    k = _attempts_ended(check_number_array("minutes", minutes, min=0), row).astype(np.int64)
    return int(k) if k.ndim == 0 else k


def _attempts_ended(t: np.ndarray, row: Mapping) -> np.ndarray:
    done = np.floor((t - row["minutes"]) / row["retry_minutes"]) + 1
    return np.where(t >= row["minutes"], done, 0.0)


def cure_time_distribution(cunning: int, injury: str, level: str = "light", *, modifier: int = 0,
                           attempts: int | None = None, tail: float = 1e-9,
                           rules: Rules | None = None) -> pd.DataFrame:
    """Distribution of the time to cure, geometric in attempts, one row per attempt (core rules, treating injuries).

    Rows run to ``attempts`` if given, else until the chance of needing more is below ``tail``
    (at most 100,000 rows). ``1 - probability.sum()`` is the chance of needing more attempts;
    when ``p == 0`` every probability is 0 (never cured).

    Parameters
    ----------
    cunning : int
        The healer's Cunning (-10,000..10,000).
    injury : str
        Injury name, English or French (``"Weak"``, ``"Faible"``).
    level : str, default "light"
        ``"light"``/``"léger"`` or ``"full"``/``"complet"``.
    modifier : int, default 0
        Any further modifier to the Test.
    attempts : int, optional
        Number of rows (1..100,000).
    tail : float, default 1e-9
        Without ``attempts``: stop when the chance of needing more is below this (0 < tail <= 1).
    rules : Rules, optional
        Rules to read ``[treatment]`` and the injury table from (default: the bundled rules).

    Returns
    -------
    pandas.DataFrame
        attempt, minutes (when that attempt ends), probability (cured by exactly that attempt),
        cumulative.

    Raises
    ------
    ValueError
        A Cunning or modifier that is not a whole number in -10,000..10,000, or an unknown injury or
        level name (with a did-you-mean), naming the argument.
        Also ``attempts`` outside 1..100,000 or ``tail`` outside (0, 1].

    Examples
    --------
    >>> import balance as bl
    >>> dist = bl.treatment.cure_time_distribution(12, "Weak", "full", attempts=3)
    >>> dist.minutes.tolist(), dist.cumulative.round(6).tolist()
    ([60, 1500, 2940], [0.35, 0.5775, 0.725375])
    """
    import pandas as pd

    c = check_integer("cunning", cunning, min=-_CHAR_LIMIT, max=_CHAR_LIMIT)
    modifier = check_integer("modifier", modifier, min=-_CHAR_LIMIT, max=_CHAR_LIMIT)
    if attempts is not None:
        attempts = check_integer("attempts", attempts, min=1, max=100_000)
    tail = check_number("tail", tail, min=0, max=1, strict_min=True)
    chance, row, _ = _args(c, injury, level, modifier, rules)
    p = float(chance)
    if attempts is None:
        if p in (0.0, 1.0):
            attempts = 1
        else:
            attempts = int(min(100_000, max(1, np.ceil(np.log(tail) / np.log1p(-p)))))
    k = np.arange(1, attempts + 1)
    prob = p * (1.0 - p) ** (k - 1)
    return pd.DataFrame({
        "attempt": k,
        "minutes": (k - 1) * row["retry_minutes"] + row["minutes"],
        "probability": prob,
        "cumulative": 1.0 - (1.0 - p) ** k,
    })


def cure_table(cunning: ArrayLike | None = None, *, levels: tuple[str, ...] = ("light", "full"),
               rules: Rules | None = None) -> pd.DataFrame:
    """Cure chance and expected time by Cunning x injury band x level, tidy for plots (core rules, treating injuries).

    The bands are the distinct test modifiers of the injury table (0, -5, -10, -15 by default).

    Parameters
    ----------
    cunning : array_like of int, optional
        Default ``1 .. die``.
    levels : tuple of str, default ("light", "full")
        Treatment levels to include.
    rules : Rules, optional
        Rules to read ``[treatment]`` and the injury table from (default: the bundled rules).

    Returns
    -------
    pandas.DataFrame
        level, cunning, modifier, injuries (rows of the table in that band), chance,
        expected_attempts, expected_minutes, expected_hours (``inf`` when the chance is 0).

    Raises
    ------
    ValueError
        A Cunning that is not a whole number in -10,000..10,000, or an unknown level.

    Examples
    --------
    >>> import balance as bl
    >>> table = bl.treatment.cure_table()
    >>> table.shape
    (160, 8)
    >>> row = bl.treatment.cure_table([12], levels=("light",)).iloc[0]
    >>> int(row.modifier), float(row.chance), int(row.injuries)
    (0, 0.7, 5)
    """
    import pandas as pd

    rules = resolve(rules)
    if cunning is None:
        cunning = np.arange(1, rules["d20"]["die"] + 1)
    c = check_integer_array("cunning", cunning, min=-_CHAR_LIMIT, max=_CHAR_LIMIT).reshape(-1)
    if isinstance(levels, str):
        levels = (levels,)
    rows = [_level(lv, rules) for lv in levels]
    table = rules["injuries"]["table"]
    bands = sorted({r["modifier"] for r in table}, reverse=True)
    counts = {b: sum(r["modifier"] == b for r in table) for b in bands}
    frames = []
    for row in rows:
        cc, bb = np.meshgrid(c, np.asarray(bands), indexing="ij")
        p = np.asarray(_chance(cc, bb, row, rules), dtype=float)
        minutes = _expected_minutes(p, row["minutes"], row["retry_minutes"])
        frames.append(pd.DataFrame({
            "level": row["en"], "cunning": cc.ravel(), "modifier": bb.ravel(),
            "injuries": [counts[b] for b in bb.ravel()], "chance": p.ravel(),
            "expected_attempts": np.divide(1.0, p, out=np.full(p.shape, np.inf),
                                           where=p > 0).ravel(),
            "expected_minutes": minutes.ravel(), "expected_hours": minutes.ravel() / 60.0,
        }))
    return pd.concat(frames, ignore_index=True)


def sample_cure_minutes(cunning: int, injury: str, level: str = "light", size: int = 1,
                        seed: RNGLike = None, *, modifier: int = 0,
                        rules: Rules | None = None) -> np.ndarray:
    """Random times to cure, in minutes, from geometric draws (core rules, treating injuries).

    Parameters
    ----------
    cunning : int
        The healer's Cunning (-10,000..10,000).
    injury : str
        Injury name, English or French (``"Weak"``, ``"Faible"``).
    level : str, default "light"
        ``"light"``/``"léger"`` or ``"full"``/``"complet"``.
    size : int, default 1
        Number of draws (0..10**9).
    seed : int, SeedSequence, Generator or None
        Randomness (``None``: fresh entropy).
    modifier : int, default 0
        Any further modifier to the Test.
    rules : Rules, optional
        Rules to read ``[treatment]`` and the injury table from (default: the bundled rules).

    Returns
    -------
    numpy.ndarray
        ``size`` times in minutes (``inf`` when the chance is 0).

    Raises
    ------
    ValueError
        A Cunning or modifier that is not a whole number in -10,000..10,000, or an unknown injury or
        level name (with a did-you-mean), naming the argument.
        Also a size outside 0..10**9.

    Examples
    --------
    >>> import balance as bl
    >>> times = bl.treatment.sample_cure_minutes(12, "Weak", "light", size=1_000, seed=1)
    >>> bool(((times - 1) % 60 == 0).all())   # an attempt ends 1 min after it starts, every hour
    True
    """
    c = check_integer("cunning", cunning, min=-_CHAR_LIMIT, max=_CHAR_LIMIT)
    modifier = check_integer("modifier", modifier, min=-_CHAR_LIMIT, max=_CHAR_LIMIT)
    size = check_integer("size", size, min=0, max=10**9)
    gen = as_generator(seed)
    chance, row, _ = _args(c, injury, level, modifier, rules)
    p = float(chance)
    if p == 0:
        return np.full(size, np.inf)
    k = gen.geometric(p, size=size)
    return ((k - 1) * row["retry_minutes"] + row["minutes"]).astype(float)


def cure_sampler(n: int, rng: np.random.Generator, *, chance: float,
                 max_attempts: int = 1000) -> dict[str, np.ndarray]:
    """Monte Carlo kernel: histogram of the attempt that cures, for ``n`` injuries (core rules, treating injuries).

    Additive, for ``balance.montecarlo.run``.

    Parameters
    ----------
    n : int
        Number of injuries treated.
    rng : numpy.random.Generator
        The stream the engine hands this block.
    chance : float
        Success chance of one attempt (:func:`treatment_chance`).
    max_attempts : int, default 1000
        Attempts counted one by one; later cures share the last bin.

    Returns
    -------
    dict of str to numpy.ndarray
        ``{"attempts": hist}``: ``hist[k]`` counts cures on attempt ``k`` (index 0 unused); the
        last bin, ``max_attempts + 1``, counts "not cured within max_attempts" (all of them when
        ``chance == 0``).

    Raises
    ------
    ValueError
        A chance above 1 (from numpy's geometric draw); this kernel does not check its arguments.

    Examples
    --------
    >>> import numpy as np
    >>> import balance as bl
    >>> hist = bl.treatment.cure_sampler(1_000, np.random.default_rng(1), chance=0.45,
    ...                                  max_attempts=10)["attempts"]
    >>> len(hist), int(hist.sum()), int(hist[0])
    (12, 1000, 0)
    """
    hist = np.zeros(max_attempts + 2, dtype=np.int64)
    if chance <= 0:
        hist[-1] = n
        return {"attempts": hist}
    k = np.minimum(rng.geometric(chance, size=n), max_attempts + 1)
    hist += np.bincount(k, minlength=max_attempts + 2)
    return {"attempts": hist}
