"""Treating critical injuries (core rules, RULES.md §1.3).

Two levels, both a Cunning Test (§1.1) with the injury row's test modifier:

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

from collections.abc import Mapping

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from . import d20
from ..errors import check_integer, check_integer_array, check_number, check_number_array
from ..names import find_row
from ..rng import RNGLike, as_generator
from ..rules import Rules, resolve

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
    """The treatment levels of §1.3.

    Columns: level, level_fr, bonus, minutes, retry_minutes, removes_injury.
    """
    rules = resolve(rules)
    return pd.DataFrame(
        [(row["en"], row.get("fr", row["en"]), row["bonus"], row["minutes"], row["retry_minutes"],
          row["removes_injury"]) for _, row in _level_rows(rules)],
        columns=["level", "level_fr", "bonus", "minutes", "retry_minutes", "removes_injury"])


def treatment_chance(cunning: ArrayLike, injury: str, level: str = "light", *,
                     modifier: ArrayLike = 0, rules: Rules | None = None) -> float | np.ndarray:
    """Chance that one treatment attempt succeeds (§1.3).

    A Cunning Test with the level's bonus and the injury row's test modifier:
    ``clip(cunning + bonus + row modifier + modifier, 0, die) / die``.

    Parameters
    ----------
    cunning : int or array of int
        The healer's Cunning; broadcasts.
    injury : str
        Injury name, English or French (``"Weak"``, ``"Faible"``).
    level : str
        ``"light"``/``"léger"`` or ``"full"``/``"complet"``.
    modifier : int or array of int
        Any further modifier to the Test (GM's call); broadcasts with ``cunning``.
    rules : Rules, optional
        Default: the bundled rules.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> treatment_chance(12, "Faible", "complet")
    0.35
    """
    p, _, _ = _args(cunning, injury, level, modifier, rules)
    return _out(p)


def expected_cure_minutes(cunning: ArrayLike, injury: str, level: str = "light", *,
                          modifier: ArrayLike = 0,
                          rules: Rules | None = None) -> float | np.ndarray:
    """Expected minutes until a treatment succeeds, retrying as soon as allowed (§1.3).

    Light: until the symptoms are removed; full: until the injury is removed.
    ``minutes + retry_minutes * (1 - p) / p``, and ``inf`` when ``p == 0``. Broadcasts.
    """
    p, row, _ = _args(cunning, injury, level, modifier, rules)
    return _out(_expected_minutes(p, row["minutes"], row["retry_minutes"]))


def cured_within(cunning: ArrayLike, injury: str, level: str, minutes: ArrayLike, *,
                 modifier: ArrayLike = 0, rules: Rules | None = None) -> float | np.ndarray:
    """Chance that the treatment has succeeded ``minutes`` after the first attempt began (§1.3).

    Attempts ending by then: ``k = floor((minutes - duration) / retry) + 1`` (0 before the first
    ends); the chance is ``1 - (1 - p) ** k``. Broadcasts over ``cunning`` and ``minutes``.

    >>> round(cured_within(12, "Weak", "full", 24 * 60 * 3), 6)   # three days: 3 attempts
    0.725375
    """
    p, row, _ = _args(cunning, injury, level, modifier, rules)
    t = check_number_array("minutes", minutes, min=0)
    return _out(1.0 - (1.0 - p) ** _attempts_ended(t, row))


def attempts_within(minutes: ArrayLike, level: str = "light", *,
                    rules: Rules | None = None) -> int | np.ndarray:
    """Attempts of a treatment ``level`` that end within ``minutes`` of the first one's start (§1.3).

    One attempt starts every ``retry_minutes`` and ends ``minutes`` (its duration) later:
    ``floor((minutes - duration) / retry) + 1``, 0 before the first ends. Broadcasts.

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
    """Distribution of the time to cure (geometric in attempts), one row per attempt (§1.3).

    Columns: attempt, minutes (when that attempt ends), probability (cured by exactly that
    attempt), cumulative. Rows run to ``attempts`` if given, else until the chance of needing
    more is below ``tail`` (at most 100 000 rows). ``1 - probability.sum()`` is the chance of
    needing more attempts; when ``p == 0`` every probability is 0 (never cured).
    """
    c = check_integer("cunning", cunning, min=-_CHAR_LIMIT, max=_CHAR_LIMIT)
    modifier = check_integer("modifier", modifier, min=-_CHAR_LIMIT, max=_CHAR_LIMIT)
    if attempts is not None:
        attempts = check_integer("attempts", attempts, min=1, max=100_000)
    tail = check_number("tail", tail, min=0, max=1, strict_min=True)
    p, row, _ = _args(c, injury, level, modifier, rules)
    p = float(p)
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
    """Cure chance and expected time by Cunning x injury band x level, tidy for plots (§1.3).

    The bands are the distinct test modifiers of the injury table (0, -5, -10, -15 by default).

    Parameters
    ----------
    cunning : array of int, optional
        Default ``1 .. die``.
    levels : tuple of str
        Treatment levels to include.

    Returns
    -------
    DataFrame
        level, cunning, modifier, injuries (rows of the table in that band), chance,
        expected_attempts, expected_minutes, expected_hours (``inf`` when the chance is 0).
    """
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
    """Random times to cure, in minutes (``inf`` when the chance is 0). Geometric draws (§1.3)."""
    c = check_integer("cunning", cunning, min=-_CHAR_LIMIT, max=_CHAR_LIMIT)
    modifier = check_integer("modifier", modifier, min=-_CHAR_LIMIT, max=_CHAR_LIMIT)
    size = check_integer("size", size, min=0, max=10**9)
    gen = as_generator(seed)
    p, row, _ = _args(c, injury, level, modifier, rules)
    p = float(p)
    if p == 0:
        return np.full(size, np.inf)
    k = gen.geometric(p, size=size)
    return ((k - 1) * row["retry_minutes"] + row["minutes"]).astype(float)


def cure_sampler(n: int, rng: np.random.Generator, *, chance: float,
                 max_attempts: int = 1000) -> dict[str, np.ndarray]:
    """Monte Carlo kernel: histogram of the attempt that cures, for ``n`` injuries.

    ``"attempts"[k]`` counts cures on attempt ``k`` (index 0 unused); the last bin,
    ``max_attempts + 1``, counts "not cured within max_attempts" (all of them when
    ``chance == 0``). Additive, for ``balance.montecarlo.run``.
    """
    hist = np.zeros(max_attempts + 2, dtype=np.int64)
    if chance <= 0:
        hist[-1] = n
        return {"attempts": hist}
    k = np.minimum(rng.geometric(chance, size=n), max_attempts + 1)
    hist += np.bincount(k, minlength=max_attempts + 2)
    return {"attempts": hist}
