"""Other GM-guide rules (GM guide, other rules): falls, fatigue, effect stacking, reward paths.

>>> import balance as bl
>>> bl.guide.fall(7).dice, bl.guide.fall(11).outcome, bl.guide.fall(13).outcome
('3d6', 'unconscious', 'dead')
>>> bl.guide.fatigue_penalty(days_without_sleep=2, days_without_food=2)
-4
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import pandas as pd

from .. import dice
from ..errors import check_integer, check_number
from ..rules import Rules, resolve

__all__ = ["Fall", "fall", "fall_table", "fatigue_penalty", "stack_effects", "reward_paths"]


class Fall(NamedTuple):
    """What a fall does: ``outcome`` is ``"none"``, ``"dice"``, ``"unconscious"`` or ``"dead"``;
    ``dice`` the damage expression (``"3d6"``; ``"0"`` when no dice are rolled); ``label`` the
    band's name in the requested language."""

    height: float
    outcome: str
    dice: str
    label: str


def fall(height: float, *, lang: str = "en", rules: Rules | None = None) -> Fall:
    """Fall damage by height in metres (GM guide, other rules).

    ``h < 2``: nothing; ``2 <= h < 10``: ``floor(h/2)`` d6 (7 m -> 3d6); ``10 <= h <= 12``: HP to
    0, unconscious, no dying clock; ``h > 12``: death (12.001 m is death). The bands are rules
    data in centimetres; a height within 10^-8 m of a whole centimetre counts as that centimetre
    (float noise).

    Parameters
    ----------
    height : float
        Height of the fall in metres (>= 0, finite).
    lang : str, default "en"
        Language of the band's label (``"en"`` or ``"fr"``).
    rules : Rules, optional
        Rules to read ``[guide]`` from (default: the bundled rules).

    Returns
    -------
    Fall
        height, outcome (``"none"``, ``"dice"``, ``"unconscious"`` or ``"dead"``), dice (``"0"``
        when none are rolled) and label.

    Raises
    ------
    ValueError
        A negative or infinite height, or a height that would roll more than the dice budget.

    Examples
    --------
    >>> import balance as bl
    >>> bl.guide.fall(7)
    Fall(height=7, outcome='dice', dice='3d6', label='damage')
    >>> bl.guide.fall(12).outcome, bl.guide.fall(12.001).outcome
    ('unconscious', 'dead')
    """
    rules = resolve(rules)
    f = rules["guide"]["falls"]
    h = check_number("height", height, min=0)
    if not math.isfinite(h):
        raise ValueError(f"height must be a finite number of metres >= 0, got {h}")
    cm = h * f["centimetres_per_metre"]
    if abs(cm - round(cm)) < 1e-6:  # 2.0000000001 m is 2 m: no float noise at a boundary
        cm = round(cm)
    row = next(r for r in f["bands"]
               if "high" not in r or (cm <= r["high"] if r.get("closed") else cm < r["high"] + 1))
    expr = "0"
    if row["outcome"] == "dice":
        die = dice.parse(f["die"])
        n = math.floor(cm / (f["metres_per_die"] * f["centimetres_per_metre"])) * die.terms[0][1]
        if n > dice.MAX_DICE:  # only an open-ended dice band (closed ones: checked at load)
            raise ValueError(f"height {h:g} m would roll {n:,}d{die.terms[0][2]}; falls roll at "
                             f"most {dice.MAX_DICE:,} dice (the dice budget): give a lower height")
        expr = str(dice.parse(f"{n}d{die.terms[0][2]}"))
    return Fall(h, row["outcome"], expr, row.get(lang) or row["en"])


def fall_table(heights: Sequence[float], *, rules: Rules | None = None) -> pd.DataFrame:
    """:func:`fall` for several heights, one row each (GM guide, other rules).

    Parameters
    ----------
    heights : sequence of float
        Heights in metres.
    rules : Rules, optional
        Rules to read ``[guide]`` from (default: the bundled rules).

    Returns
    -------
    pandas.DataFrame
        height, outcome, dice, mean_damage, label, label_fr.

    Raises
    ------
    ValueError
        As :func:`fall`, for any height.

    Examples
    --------
    >>> import balance as bl
    >>> bl.guide.fall_table([1, 4, 7, 11, 13]).dice.tolist()
    ['0', '2d6', '3d6', '0', '0']
    """
    rows = []
    for h in heights:
        en = fall(h, rules=rules)
        rows.append({"height": en.height, "outcome": en.outcome, "dice": en.dice,
                     "mean_damage": dice.parse(en.dice).mean, "label": en.label,
                     "label_fr": fall(h, lang="fr", rules=rules).label})
    return pd.DataFrame(rows)


def fatigue_penalty(days_without_sleep: int = 0, days_without_food: int = 0, *,
                    rules: Rules | None = None) -> int:
    """Penalty to all tests from fatigue (GM guide, other rules).

    -1 per full day without sleep, -1 per day without food or drink; the two add.

    Parameters
    ----------
    days_without_sleep : int, default 0
        Full days without sleep (>= 0).
    days_without_food : int, default 0
        Days without food or drink (>= 0).
    rules : Rules, optional
        Rules to read ``[guide]`` from (default: the bundled rules).

    Returns
    -------
    int
        The penalty (0 or negative).

    Raises
    ------
    ValueError
        A number of days that is not a whole number >= 0.

    Examples
    --------
    >>> import balance as bl
    >>> bl.guide.fatigue_penalty(days_without_sleep=2, days_without_food=2)
    -4
    """
    f = resolve(rules)["guide"]["fatigue"]
    s = check_integer("days_without_sleep", days_without_sleep, min=0)
    d = check_integer("days_without_food", days_without_food, min=0)
    return s * f["per_day_without_sleep"] + d * f["per_day_without_food"]


def stack_effects(applications: Sequence[Mapping], turns: int, *,
                  forgotten: Sequence[tuple[int, str]] = (), rules: Rules | None = None
                  ) -> pd.DataFrame:
    """Value of each affected attribute on each turn under the stacking rule (GM guide, other rules).

    By the guide, the last application replaces the earlier one's value and duration; a
    variant may set ``guide.stacking.replace_value = false`` (values add) or
    ``accumulate_duration = true`` (remaining durations add).

    Parameters
    ----------
    applications : list of mappings
        ``{"turn": t, "attribute": "phys_def", "value": -2, "duration": 3}``, applied at the
        start of turn ``t`` and lasting ``duration`` turns (``t .. t + duration - 1``).
    turns : int
        Turns to tabulate (1..turns).
    forgotten : list of (turn, attribute)
        Turns on which the effect was not applied: the value is lost for that turn, the
        duration still runs.
    rules : Rules, optional
        Rules to read ``[guide.stacking]`` from (default: the bundled rules).

    Returns
    -------
    pandas.DataFrame
        Indexed by turn, one column per attribute (0 = no effect).

    Raises
    ------
    ValueError
        An application that is not a mapping with turn, attribute, value and duration, a
        turn below 1, a ``forgotten`` item that is not a (turn, attribute) pair, or
        ``turns`` outside 1..100,000.

    Examples
    --------
    >>> import balance as bl
    >>> bl.guide.stack_effects([dict(turn=1, attribute="phys_def", value=-3, duration=4),
    ...                         dict(turn=2, attribute="phys_def", value=-1, duration=2)],
    ...                        turns=6)["phys_def"].tolist()
    [-3.0, -1.0, -1.0, 0.0, 0.0, 0.0]
    """
    st = resolve(rules)["guide"]["stacking"]
    turns = check_integer("turns", turns, min=1, max=100_000)
    apps = []
    for i, a in enumerate(applications):
        if not isinstance(a, Mapping) or not {"turn", "attribute", "value", "duration"} <= set(a):
            raise ValueError(f"applications[{i}] must be a mapping with turn, attribute, value, "
                             f"duration; got {a!r}")
        apps.append((check_integer(f"applications[{i}].turn", a["turn"], min=1),
                     i, str(a["attribute"]), check_number(f"applications[{i}].value", a["value"]),
                     check_integer(f"applications[{i}].duration", a["duration"], min=0)))
    apps.sort()
    lost = set()
    for item in forgotten:
        if not isinstance(item, Sequence) or isinstance(item, str) or len(item) != 2:
            raise ValueError(f"forgotten must list (turn, attribute) pairs, got {item!r}")
        lost.add((check_integer("forgotten turn", item[0], min=1), str(item[1])))
    attributes = sorted({a[2] for a in apps})
    table = pd.DataFrame(0.0, index=pd.RangeIndex(1, turns + 1, name="turn"), columns=attributes)
    for attr in attributes:
        value, until, events = 0.0, 0, [a for a in apps if a[2] == attr]
        k = 0
        for t in range(1, turns + 1):
            while k < len(events) and events[k][0] == t:
                _, _, _, v, dur = events[k]
                active = t < until
                value = value + v if (active and not st["replace_value"]) else v
                until = (until + dur) if (active and st["accumulate_duration"]) else t + dur
                k += 1
            if t < until and (t, attr) not in lost:
                table.loc[t, attr] = value
    return table


def reward_paths(paths: Mapping[str, Mapping[str, float]], *,
                 rules: Rules | None = None) -> pd.DataFrame:
    """Check that XP and AP offered along different paths total the same (GM guide, other rules).

    Parameters
    ----------
    paths : mapping of str to mapping
        ``{"fight": {"xp": 2, "ap": 2}, "capture": {"xp": 3, "ap": 1}}``: per path, its
        ``xp`` and ``ap`` (missing ones are 0).
    rules : Rules, optional
        Rules to read ``[guide]`` from (default: the bundled rules).

    Returns
    -------
    pandas.DataFrame
        One row per path: xp, ap, total, difference from the largest total, and ``equivalent``
        (all totals within ``guide.rewards.tolerance``).

    Raises
    ------
    ValueError
        An empty or malformed mapping, a key other than xp and ap, or a negative amount.

    Examples
    --------
    >>> import balance as bl
    >>> table = bl.guide.reward_paths({"fight": {"xp": 2, "ap": 2}, "capture": {"xp": 3, "ap": 1}})
    >>> table.total.tolist(), bool(table.equivalent.all())
    ([4, 4], True)
    """
    tol = resolve(rules)["guide"]["rewards"]["tolerance"]
    if not isinstance(paths, Mapping) or not paths:
        raise ValueError(f"paths must map a path name to {{'xp': ..., 'ap': ...}}, got {paths!r}")
    rows = []
    for name, r in paths.items():
        if not isinstance(r, Mapping) or set(r) - {"xp", "ap"}:
            raise ValueError(f"paths[{name!r}] must be {{'xp': ..., 'ap': ...}}, got {r!r}")
        xp = check_number(f"paths[{name!r}].xp", r.get("xp", 0), min=0)
        ap = check_number(f"paths[{name!r}].ap", r.get("ap", 0), min=0)
        rows.append({"path": name, "xp": xp, "ap": ap, "total": xp + ap})
    frame = pd.DataFrame(rows).set_index("path")
    frame["difference"] = frame["total"] - frame["total"].max()
    frame["equivalent"] = (frame["total"].max() - frame["total"].min()) <= tol
    return frame
