"""Rest: the Rest score and regeneration (core rules, rest).

* **Score** = thirst (0, or 6 with enough drinkable water) + hunger (0; 4 satiated; 6 with fresh or
  well-prepared food) + sleep (4 if at least 6 h of sleep in this segment) + comfort (0..4 from
  equipment; 0 if armour or encumbering gear stays on, unless the armour says otherwise) + the GM's
  modifiers.
* **Regeneration** of a segment = score x counted hours, for HP and Flux alike.
* **Cap**: at most 12 counted hours in any 24 h; hours past that do nothing. Hours are counted in
  order, so an hour counts when fewer than 12 hours counted in the 24-hour window ending with it.
* An interrupted rest is two independent segments, each with its own score.

A score below ``rules["rest"]["min_score"]`` (0) regenerates as that value **(assumed)**: a rest
never wounds. Every number is ``rules["rest"]``.

>>> import balance as bl
>>> bl.rest.rest_score(thirst="enough", hunger="satiated", sleep_hours=6, comfort=1)
15
>>> bl.rest.regeneration([(8, 15)])                 # forest: 15 for 8 h
120
>>> bl.rest.regeneration([(3, 13), (5, 12)])        # cave, interrupted: 13 for 3 h, 12 for 5 h
99
>>> bl.rest.regeneration([(14, 10)])                # 14 h in one day: only 12 count
120
"""
from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ..errors import check_choice, check_integer, check_integer_array, check_number_array, did_you_mean
from ..names import find_row
from ..rules import Rules, resolve

__all__ = ["Segment", "rest_score", "score_breakdown", "quick_score", "counted_hours",
           "regeneration", "rest_log", "rest_needed"]

#: hours in a day, to state a rest's length in days (a unit, not a rule)
HOURS_PER_DAY = 24

_MAX_HOURS = 1_000_000
_SCORE_ARGS = ("thirst", "hunger", "sleep_hours", "comfort", "armour_on", "armour_keeps_comfort",
               "modifiers")


@dataclass(frozen=True)
class Segment:
    """One uninterrupted rest: whole ``hours`` at a ``score``, starting at hour ``start``.

    ``start=None`` means right after the previous segment (the first starts at hour 0).
    """

    hours: int
    score: int
    start: int | None = None


def _components(thirst: object, hunger: object, sleep_hours: ArrayLike, comfort: ArrayLike,
                armour_on: ArrayLike, armour_keeps_comfort: ArrayLike, modifiers: ArrayLike,
                rules: Rules) -> dict[str, np.ndarray]:
    rest = rules["rest"]
    thirst_pts = rest["thirst"][check_choice("thirst", thirst, list(rest["thirst"]))]
    hunger_pts = rest["hunger"][check_choice("hunger", hunger, list(rest["hunger"]))]
    sleep = check_number_array("sleep_hours", sleep_hours, min=0, max=_MAX_HOURS)
    cmax = rest["comfort_max"]
    comfort_ = check_integer_array("comfort", comfort, min=0, max=cmax)
    mods = check_integer_array("modifiers", modifiers, min=-10_000, max=10_000)
    armour = np.asarray(armour_on)
    keeps = np.asarray(armour_keeps_comfort)
    for name, flag, given in (("armour_on", armour, armour_on),
                              ("armour_keeps_comfort", keeps, armour_keeps_comfort)):
        if flag.dtype != bool:
            raise ValueError(f"{name} must be True or False, got {given!r}")
    comfort_pts = np.where(armour & ~keeps, rest["armour_comfort"], comfort_)
    sleep_pts = np.where(sleep >= rest["sleep_hours_min"], rest["sleep_points"], 0)
    parts = dict(thirst=np.asarray(thirst_pts), hunger=np.asarray(hunger_pts), sleep=sleep_pts,
                 comfort=comfort_pts, modifiers=mods)
    parts["score"] = np.asarray(sum(parts.values()))
    return parts


def rest_score(thirst: str = "none", hunger: str = "none", sleep_hours: ArrayLike = 0,
               comfort: ArrayLike = 0, *, armour_on: ArrayLike = False,
               armour_keeps_comfort: ArrayLike = False, modifiers: ArrayLike = 0,
               rules: Rules | None = None) -> int | np.ndarray:
    """The Rest score of one segment (core rules, rest).

    Score = thirst + hunger + sleep + comfort + the GM's modifiers. Numeric arguments broadcast.

    Parameters
    ----------
    thirst : str, default "none"
        ``"none"`` (dehydrated, 0) or ``"enough"`` drinkable water (6).
    hunger : str, default "none"
        ``"none"`` (0), ``"satiated"`` (4) or ``"fresh"`` (satiated with fresh or well-prepared
        food, 6).
    sleep_hours : float or array_like, default 0
        Hours slept during this segment, not necessarily in a row; 6 or more gives 4 points.
        Guard duty and non-physical actions are not sleep.
    comfort : int or array_like, default 0
        Comfort of the equipment used, 0..4.
    armour_on : bool or array_like, default False
        Armour or encumbering gear kept on: comfort counts 0 ...
    armour_keeps_comfort : bool or array_like, default False
        ... unless the armour says otherwise.
    modifiers : int or array_like, default 0
        Sum of the GM's modifiers (heavy rain without shelter: -3 in the document's example).
    rules : Rules, optional
        Rules to read ``[rest]`` from (default: the bundled rules).

    Returns
    -------
    int or numpy.ndarray
        The score: an int for scalar input, else an array of the broadcast shape.

    Raises
    ------
    ValueError
        An unknown thirst or hunger word, a comfort outside 0..4, negative sleep hours, naming
        the argument and what is accepted.

    Examples
    --------
    >>> import balance as bl
    >>> bl.rest.rest_score(thirst="enough", hunger="satiated", sleep_hours=6, comfort=1)   # forest
    15
    >>> rest_score("enough", "fresh", sleep_hours=2, comfort=1)   # cave, first segment
    13
    >>> rest_score("enough", "satiated", 6, comfort=3, armour_on=True)   # armour on: comfort 0
    14
    """
    parts = _components(thirst, hunger, sleep_hours, comfort, armour_on, armour_keeps_comfort,
                        modifiers, resolve(rules))
    score = parts["score"]
    return int(score) if np.ndim(score) == 0 else score


def score_breakdown(thirst: str = "none", hunger: str = "none", sleep_hours: float = 0,
                    comfort: int = 0, *, armour_on: bool = False,
                    armour_keeps_comfort: bool = False, modifiers: int = 0,
                    rules: Rules | None = None) -> pd.Series:
    """The points of each component of a Rest score, and the score (core rules, rest).

    Parameters
    ----------
    thirst, hunger, sleep_hours, comfort, armour_on, armour_keeps_comfort, modifiers
        As in :func:`rest_score`, one value each.
    rules : Rules, optional
        Rules to read ``[rest]`` from (default: the bundled rules).

    Returns
    -------
    pandas.Series
        ``points`` of thirst, hunger, sleep, comfort, modifiers and score.

    Raises
    ------
    ValueError
        As :func:`rest_score`, and arrays instead of single values.

    Examples
    --------
    >>> import balance as bl
    >>> bl.rest.score_breakdown("enough", "satiated", 6, 1).to_dict()
    {'thirst': 6, 'hunger': 4, 'sleep': 4, 'comfort': 1, 'modifiers': 0, 'score': 15}
    """
    parts = _components(thirst, hunger, sleep_hours, comfort, armour_on, armour_keeps_comfort,
                        modifiers, resolve(rules))
    if any(np.ndim(v) for v in parts.values()):
        raise ValueError("score_breakdown takes one value per argument; use rest_score for arrays")
    return pd.Series({k: int(v) for k, v in parts.items()}, name="points")


def quick_score(quality: str, *, rules: Rules | None = None) -> int:
    """The GM's quick score: poor 10, adequate 15, good 20, excellent 25 (core rules, rest).

    Parameters
    ----------
    quality : str
        ``"poor"``, ``"adequate"``, ``"good"``, ``"excellent"`` or their French names.
    rules : Rules, optional
        Rules to read ``[rest]`` from (default: the bundled rules).

    Returns
    -------
    int
        The score.

    Raises
    ------
    ValueError
        An unknown quality, with the accepted names.

    Examples
    --------
    >>> import balance as bl
    >>> bl.rest.quick_score("adequate"), bl.rest.quick_score("bon")
    (15, 20)
    >>> quick_score("convenable")
    15
    """
    rest = resolve(rules)["rest"]
    rows = [{"en": k, "fr": rest["quick_scores_fr"].get(k, k), "score": v}
            for k, v in rest["quick_scores"].items()]
    return int(find_row(rows, quality, "quality")[1]["score"])


def _segment(item: object, index: int, rules: Rules) -> Segment:
    where = f"segments[{index}]"
    hours: object
    score: object
    start: object = None
    if isinstance(item, Segment):
        hours, score, start = item.hours, item.score, item.start
    elif isinstance(item, Mapping):
        given = dict(item)
        if "hours" not in given:
            raise ValueError(f"{where} must give 'hours', got {given!r}")
        hours, start = given.pop("hours"), given.pop("start", None)
        score = given.pop("score") if "score" in given else given
    elif isinstance(item, Sequence) and not isinstance(item, str) and len(item) in (2, 3):
        start, hours, score = item if len(item) == 3 else (None, *item)
    else:
        raise ValueError(f"{where} must be (hours, score), (start, hours, score), a dict or a "
                         f"Segment, got {item!r}")
    whole_hours = check_integer(f"{where} hours", hours, min=0, max=_MAX_HOURS)
    begins = None if start is None else check_integer(f"{where} start", start, min=0,
                                                      max=_MAX_HOURS)
    if isinstance(score, Mapping):
        unknown = set(score) - set(_SCORE_ARGS)
        if unknown:
            bad = sorted(unknown)[0]
            raise ValueError(f"{where}: unknown score component {bad!r}"
                             f"{did_you_mean(bad, _SCORE_ARGS)}; accepted: score or "
                             f"{', '.join(_SCORE_ARGS)}")
        sleep = check_number_array(f"{where} sleep_hours", score.get("sleep_hours", 0), min=0)
        if np.any(sleep > whole_hours):
            raise ValueError(f"{where} sleep_hours must be at most the segment's {whole_hours} "
                             "hours")
        score = rest_score(**score, rules=rules)
    return Segment(hours=whole_hours, score=check_integer(f"{where} score", score, min=-10_000,
                                                          max=10_000), start=begins)


def _start(seg: Segment) -> int:
    """The start hour of a segment placed in time by :func:`_segments`."""
    assert seg.start is not None  # _segments gives every segment its start
    return seg.start


def _segments(segments: object, rules: Rules) -> list[Segment]:
    if isinstance(segments, (Segment, Mapping)) or (
            isinstance(segments, tuple) and segments and np.isscalar(segments[0])):
        segments = [segments]  # a single segment
    if not isinstance(segments, Sequence) or isinstance(segments, str):
        raise ValueError(f"segments must be a list of (hours, score) segments, got {segments!r}")
    out, clock = [], 0
    for i, item in enumerate(segments):
        seg = _segment(item, i, rules)
        start = clock if seg.start is None else seg.start
        if start < clock:
            raise ValueError(f"segments[{i}] start must be >= {clock} (segments in time order, "
                             f"not overlapping), got {start}")
        out.append(Segment(seg.hours, seg.score, start))
        clock = start + seg.hours
    return out


def _counted(segs: list[Segment], cap: int, window: int) -> list[int]:
    """Greedy in time order: an hour counts if fewer than ``cap`` counted in the window."""
    recent: deque[int] = deque()
    counted = []
    for seg in segs:
        n = 0
        for h in range(_start(seg), _start(seg) + seg.hours):
            while recent and recent[0] <= h - window:
                recent.popleft()
            if len(recent) < cap:
                recent.append(h)
                n += 1
        counted.append(n)
    return counted


def counted_hours(segments: object, *, rules: Rules | None = None) -> list[int]:
    """Hours of each segment that count under the cap, 12 in any 24 h (core rules, rest).

    Hours are counted in time order: an hour counts when fewer than 12 hours counted in the
    24-hour window ending with it (a sliding window, our reading of "any 24 h").

    Parameters
    ----------
    segments : list of segments, or one segment
        ``(hours, score)`` (segments follow each other), ``(start_hour, hours, score)``, a dict
        (``{"hours": 3, "score": 13}`` or ``{"hours": 3, "thirst": "enough", ...}``, whose score is
        computed from its components) or :class:`Segment`, in time order.
    rules : Rules, optional
        Rules to read ``[rest]`` from (default: the bundled rules).

    Returns
    -------
    list of int
        Counted hours, one per segment.

    Raises
    ------
    ValueError
        A malformed segment (naming ``segments[i]``), hours outside 0..the hours budget, segments out
        of time order or overlapping, more sleep than the segment's hours, an unknown score
        component (with a did-you-mean).

    Examples
    --------
    >>> import balance as bl
    >>> counted_hours([(14, 15)])
    [12]
    >>> counted_hours([(0, 10, 15), (14, 8, 15)])   # 10 h, a 4 h break, 8 h: 2 more count
    [10, 2]
    """
    rules = resolve(rules)
    rest = rules["rest"]
    return _counted(_segments(segments, rules), rest["max_hours_per_day"], rest["window_hours"])


def rest_log(segments: object, *, hp: int | None = None, max_hp: int | None = None,
             flux: int | None = None, max_flux: int | None = None,
             rules: Rules | None = None) -> pd.DataFrame:
    """One row per segment of a rest: hours counted, score and regeneration (core rules, rest).

    Parameters
    ----------
    segments : list of segments, or one segment
        ``(hours, score)`` (segments follow each other), ``(start_hour, hours, score)``, a dict
        (``{"hours": 3, "score": 13}`` or ``{"hours": 3, "thirst": "enough", ...}``, whose score is
        computed from its components) or :class:`Segment`, in time order.
    hp, max_hp : int, optional
        When either is given (``hp`` defaults to 0), the frame adds hp_before, hp_after (capped
        at ``max_hp``) and hp_gained (what the cap let through: after - before).
    flux, max_flux : int, optional
        Likewise for Flux.
    rules : Rules, optional
        Rules to read ``[rest]`` from (default: the bundled rules).

    Returns
    -------
    pandas.DataFrame
        segment, start, end, hours, counted_hours, score, regeneration (score x counted hours,
        uncapped), and the pools' before, after and gained columns when asked for.

    Raises
    ------
    ValueError
        A malformed segment (naming ``segments[i]``), hours outside 0..the hours budget, segments out
        of time order or overlapping, more sleep than the segment's hours, an unknown score
        component (with a did-you-mean).
        Also a current value above its maximum.

    Examples
    --------
    >>> import balance as bl
    >>> log = bl.rest.rest_log([(3, 13), (5, 12)], hp=20, max_hp=80)
    >>> log[["counted_hours", "regeneration", "hp_after", "hp_gained"]].values.tolist()
    [[3, 39, 59, 39], [5, 60, 80, 21]]
    """
    rules = resolve(rules)
    rest = rules["rest"]
    pools = {name: _pool(name, f"max_{name}", now, cap)
             for name, now, cap in (("hp", hp, max_hp), ("flux", flux, max_flux))
             if now is not None or cap is not None}
    segs = _segments(segments, rules)
    counted = _counted(segs, rest["max_hours_per_day"], rest["window_hours"])
    frame = pd.DataFrame({
        "segment": np.arange(1, len(segs) + 1, dtype=np.int64),
        "start": [s.start for s in segs], "end": [_start(s) + s.hours for s in segs],
        "hours": [s.hours for s in segs], "counted_hours": counted,
        "score": [s.score for s in segs],
    })
    per_hour = np.maximum(frame["score"].to_numpy(), rest["min_score"])
    frame["regeneration"] = per_hour * frame["counted_hours"].to_numpy()
    for name, (now, cap) in pools.items():
        after = _fill(frame["regeneration"].to_numpy(), now, cap)
        frame[f"{name}_before"] = np.r_[now, after][:after.size]
        frame[f"{name}_after"] = after
        frame[f"{name}_gained"] = after - frame[f"{name}_before"].to_numpy()
    return frame


def regeneration(segments: object, *, current: int | None = None, maximum: int | None = None,
                 rules: Rules | None = None) -> int:
    """HP (or Flux) regenerated by a rest of one or more segments, under the cap (core rules, rest).

    Sum over segments of score x counted hours (a score below ``rest.min_score``, 0, counts as
    that: a rest never wounds, *assumed*); with ``maximum`` the gain stops at
    ``maximum - current``.

    Parameters
    ----------
    segments : list of segments, or one segment
        ``(hours, score)`` (segments follow each other), ``(start_hour, hours, score)``, a dict
        (``{"hours": 3, "score": 13}`` or ``{"hours": 3, "thirst": "enough", ...}``, whose score is
        computed from its components) or :class:`Segment`, in time order.
    current : int, optional
        The pool's value before the rest (default 0).
    maximum : int, optional
        The pool's maximum (default: no cap).
    rules : Rules, optional
        Rules to read ``[rest]`` from (default: the bundled rules).

    Returns
    -------
    int
        HP or Flux regained.

    Raises
    ------
    ValueError
        A malformed segment (naming ``segments[i]``), hours outside 0..the hours budget, segments out
        of time order or overlapping, more sleep than the segment's hours, an unknown score
        component (with a did-you-mean).
        Also ``current`` above ``maximum``.

    Examples
    --------
    >>> import balance as bl
    >>> bl.rest.regeneration([(8, 15)])                 # forest: 15 for 8 h
    120
    >>> bl.rest.regeneration([(3, 13), (5, 12)])        # cave, interrupted
    99
    >>> bl.rest.regeneration([(14, 15)])                # 14 h in one day: only 12 count
    180
    >>> bl.rest.regeneration([(8, 15)], current=100, maximum=150)
    50
    """
    now, cap = _pool("current", "maximum", current, maximum)
    gains = rest_log(segments, rules=rules)["regeneration"].to_numpy()
    return int(_fill(gains, now, cap)[-1] - now) if gains.size else 0


def _pool(name: str, max_name: str, now: object, cap: object) -> tuple[int, int | None]:
    cap = None if cap is None else check_integer(max_name, cap, min=0, max=10**9)
    now = 0 if now is None else check_integer(name, now, min=-10**9, max=10**9)
    if cap is not None and now > cap:
        raise ValueError(f"{name} must be at most {max_name} ({cap}), got {now}")
    return now, cap


def _fill(gains: np.ndarray, now: int, cap: int | None) -> np.ndarray:
    """Pool value after each segment, never above ``cap`` (segment by segment)."""
    after = []
    for gain in gains:
        now = now + int(gain)
        now = now if cap is None else min(now, cap)
        after.append(now)
    return np.asarray(after, dtype=np.int64)


def rest_needed(missing: ArrayLike, score: ArrayLike, *,
                rules: Rules | None = None) -> pd.DataFrame:
    """Counted hours and days of rest to regain ``missing`` HP/Flux at a ``score`` (core rules, rest).

    ``hours = ceil(missing / score)`` counted hours, rested as early as the cap lets them count
    (``[rest] max_hours_per_day`` = 12 in any ``window_hours`` = 24): ``k = ceil(hours / 12)``
    capped rests, a window apart, so the last one ends ``hours + (k - 1) x (24 - 12)`` hours
    after the first starts; ``days`` = that in days, rounded up (bundled rules:
    ``ceil(hours / 12)``, one capped rest a day). A score of 0 or less never gets there: ``inf``.
    Broadcasts; one row per combination.

    Parameters
    ----------
    missing : int or array_like of int
        HP or Flux to regain (0..10**9).
    score : int or array_like of int
        The Rest score (-10,000..10,000).
    rules : Rules, optional
        Rules to read ``[rest]`` from (default: the bundled rules).

    Returns
    -------
    pandas.DataFrame
        missing, score, hours, days.

    Raises
    ------
    ValueError
        A missing amount or score that is not a whole number in its range.

    Examples
    --------
    >>> import balance as bl
    >>> rest_needed(150, 15)[["hours", "days"]].iloc[0].tolist()
    [10.0, 1.0]
    >>> bl.rest.rest_needed([60, 400], 15)["days"].tolist()
    [1.0, 3.0]
    """
    rest = resolve(rules)["rest"]
    m = check_integer_array("missing", missing, min=0, max=10**9)
    s = check_integer_array("score", score, min=-10_000, max=10_000)
    m, s = np.broadcast_arrays(m, s)
    per_hour = np.maximum(s, rest["min_score"])
    hours = np.divide(m, per_hour, out=np.full(m.shape, np.inf), where=per_hour > 0)
    hours = np.where(m == 0, 0.0, np.ceil(hours))
    cap, window = rest["max_hours_per_day"], rest["window_hours"]
    rests = np.ceil(hours / cap)
    # the rules hold the window at least as long as the cap (invariant window_holds_cap)
    elapsed = hours + np.maximum(rests - 1, 0) * (window - cap)
    days = np.ceil(elapsed / HOURS_PER_DAY)
    return pd.DataFrame({"missing": m.ravel(), "score": s.ravel(), "hours": hours.ravel(),
                         "days": days.ravel()})
