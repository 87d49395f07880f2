"""Magic-point sources and recovery (percentile rules, magic points): exact distributions.

Only the single best source counts per recovery period; a sacrifice gives a rolled number of
magic points by the creature's size (1d3 / 1d6 / 2d6 / 3d6), so the period's magic points are
the maximum of independent sources, exactly. Time to recover at a setting's pace (1 MP per
hour .. per week) is a rules value.

>>> import balance as bl
>>> float(bl.percentile.sacrifice_source("medium")[6])
0.16666666666666666
>>> bl.percentile.recovery_hours(5, "day")
120
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from .. import dice
from ..budgets import check_length
from ..errors import check_integer
from ..names import find_row
from ..rules import resolve
from ._common import RulesLike, section

__all__ = ["sacrifice_source", "best_source_distribution", "recovery_hours",
           "periods_to_recover"]


def sacrifice_source(size: str, rules: RulesLike = None) -> pd.Series:
    """Exact distribution of the magic points a sacrifice gives, by the creature's size
    (``[percentile.magic.sacrifice]``: small 1d3, medium 1d6, large 2d6, huge 3d6; size
    names assumed). A creature of known POW gives its POW: pass that number as a source.

    Parameters
    ----------
    size : str
        A key, English or French name of the table (small, medium, large, huge).

    Returns
    -------
    Series indexed by magic points: probability.

    Raises
    ------
    ValueError
        An unknown size.

    Examples
    --------
    >>> import balance as bl
    >>> float(bl.percentile.sacrifice_source("large").idxmax())
    7.0
    """
    rows = section(rules)["magic"]["sacrifice"]["table"]
    _, row = find_row(rows, size, "size", keys=("key", "en", "fr"))
    return dice.distribution(row["dice"]).to_series().rename_axis("magic_points")


def _as_distribution(name: str, value: object, rules) -> pd.Series:
    if isinstance(value, pd.Series):
        return value
    if isinstance(value, dice.Distribution):
        return value.to_series()
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        v = check_integer(f"sources[{name!r}]", value, min=0)
        return pd.Series([1.0], index=pd.Index([v], name="magic_points"))
    if isinstance(value, str):
        rows = section(rules)["magic"]["sacrifice"]["table"]
        if any(value.lower() in (r["key"], r["en"].lower(), r["fr"].lower()) for r in rows):
            return sacrifice_source(value, rules)
        try:
            return dice.distribution(value).to_series()
        except ValueError:
            raise ValueError(f"sources[{name!r}] must be magic points (int), a dice "
                             f"expression, a sacrifice size or a distribution, got "
                             f"{value!r}") from None
    raise ValueError(f"sources[{name!r}] must be magic points (int), a dice expression, a "
                     f"sacrifice size or a distribution, got {value!r}")


def best_source_distribution(sources: Mapping[str, object],
                             rules: RulesLike = None) -> pd.DataFrame:
    """Exact distribution of one recovery period's magic points: the best single source (the
    sources do not stack), each source a fixed number, a dice expression, a sacrifice size or
    a distribution; rolled sources are independent.

    Parameters
    ----------
    sources : mapping name -> source
        An int (fixed magic points), a dice expression, a sacrifice size, or a
        distribution over magic points (a Series, or a :class:`balance.dice.Distribution`);
        at most 100 sources.

    Returns
    -------
    DataFrame indexed by magic points: ``probability`` of that maximum, and one column per
    source: the probability that it is that source which gives the maximum (ties go to the
    source listed first).

    Raises
    ------
    ValueError
        An empty mapping, a source that is none of the accepted kinds.

    Examples
    --------
    >>> import balance as bl
    >>> d = bl.percentile.best_source_distribution({"self": 3, "goat": "medium"})
    >>> round(float(d["probability"].sum()), 9), float(d.loc[3, "self"])
    (1.0, 0.5)
    """
    rules = resolve(rules)
    if not isinstance(sources, Mapping) or not sources:
        raise ValueError(f"sources must be a non-empty mapping name -> source, got {sources!r}")
    names = check_length("sources", list(sources), 100)
    dists = [_as_distribution(str(k), sources[k], rules) for k in names]
    values = np.unique(np.concatenate([d.index.to_numpy() for d in dists]))
    # P(X_i <= v) and P(X_i < v) on the common support
    cdf = np.array([[d[d.index <= v].sum() for v in values] for d in dists])
    below = np.array([[d[d.index < v].sum() for v in values] for d in dists])
    pmf = cdf - below
    out = pd.DataFrame(index=pd.Index(values, name="magic_points"))
    total = np.zeros(values.size)
    for i, name in enumerate(names):
        # source i gives the maximum v: earlier sources < v, later ones <= v
        p = pmf[i] * np.prod(below[:i], axis=0) * np.prod(cdf[i + 1:], axis=0)
        out[name] = p
        total += p
    out.insert(0, "probability", total)
    return out[out["probability"] > 0]


def _pace_row(pace: str | None, rules) -> Mapping:
    rec = section(rules)["magic"]["recovery"]
    pace = rec["default_pace"] if pace is None else pace
    _, row = find_row(rec["table"], pace, "pace", keys=("key", "en", "fr"))
    return row


def recovery_hours(points: int, pace: str | None = None, rules: RulesLike = None) -> int:
    """Hours to recover ``points`` magic points from one's own MP at a setting's pace
    (``[percentile.magic.recovery]``: hour, day, week per magic point).

    Parameters
    ----------
    points : int
        Magic points to recover (0 .. ``max_points``).
    pace : str, optional
        A key or name of the pace table (default ``default_pace``, 1 MP per hour).

    Returns
    -------
    int: hours.

    Raises
    ------
    ValueError
        Points outside 0 .. ``max_points``, an unknown pace.

    Examples
    --------
    >>> import balance as bl
    >>> bl.percentile.recovery_hours(3, "week")
    504
    """
    rules = resolve(rules)
    top = section(rules)["magic"]["recovery"]["max_points"]
    points = check_integer("points", points, min=0, max=top)
    return points * _pace_row(pace, rules)["hours_per_point"]


def periods_to_recover(points: int, sources: Mapping[str, object],
                       rules: RulesLike = None) -> pd.Series:
    """Exact distribution of the number of recovery periods until ``points`` magic points are
    regained, when each period gives the best single source (:func:`best_source_distribution`,
    rolled afresh each period).

    Parameters
    ----------
    points : int
        Magic points to regain (1 .. ``max_points``).
    sources : mapping
        As :func:`best_source_distribution`.

    Returns
    -------
    Series indexed by periods (those with a positive probability): probability.

    Raises
    ------
    ValueError
        Points outside 1 .. ``max_points``; sources that can give 0 magic points every
        period (recovery never ends).

    Examples
    --------
    >>> import balance as bl
    >>> s = bl.percentile.periods_to_recover(4, {"goat": "small"})
    >>> round(float(s[2]), 4)
    0.6667
    """
    rules = resolve(rules)
    top = section(rules)["magic"]["recovery"]["max_points"]
    points = check_integer("points", points, min=1, max=top)
    best = best_source_distribution(sources, rules)["probability"]
    gains = best.index.to_numpy().astype(np.int64)
    probs = best.to_numpy()
    if gains.max() <= 0:
        raise ValueError("sources give 0 magic points every period: recovery never ends")
    p0 = float(probs[gains <= 0].sum())
    pos, ppos = gains[gains > 0], probs[gains > 0]
    # still[k] = P(k points regained so far, not yet done), over k < points
    still = np.zeros(points)
    still[0] = 1.0
    out = {}
    period = 0
    while still.sum() > 1e-12 and period < 100 * points + 1000:
        period += 1
        nxt = still * p0
        done = 0.0
        for g, p in zip(pos, ppos):
            nxt[g:] += still[:points - g] * p if g < points else 0.0
            done += still[max(points - g, 0):].sum() * p
        if done > 0:
            out[period] = done
        still = nxt
    return pd.Series(out, name="probability").rename_axis("periods")
