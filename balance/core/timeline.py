"""Time, Reactions and Complex Actions on a timeline of whole seconds (core rules, time, Reactions and Complex Actions).

* An action costing ``k`` A.P. charges ``ap_per_second`` A.P. a second (1, assumed) and completes
  at the end of its last charging second: started at second ``s``, it completes at the end of
  second ``s + ceil(k / ap_per_second) - 1``.
* A Reaction costs no A.P.; it answers a trigger that has fully resolved, at the trigger's
  second; one Reaction per trigger; none while the shared cooldown runs. Used at second ``t``
  with cooldown ``c``: no Reaction before second ``t + c`` (``c`` may be 0). It leaves the charge
  of the current action untouched.
* A Complex Action (``*``), when it completes, lets each hostile creature in reach with its
  Reaction available make one Opportunity Attack, once. A voluntary move while it charges cancels
  it and loses all charge; a forced move does not; starting another action cancels any charge.

Pure functions answer single questions (:func:`completion_second`, :func:`charge_at`,
:func:`reaction_available`, :func:`answered_triggers`); :func:`simulate` plays a list of events
(:func:`start`, :func:`move`, :func:`trigger`) and returns a tidy log, one row per thing that
happens, second by second. Numbers come from ``rules["time"]``.

>>> import balance as bl
>>> bl.timeline.reaction_available(uses=[2], second=[9, 10], cooldown=8).tolist()
[False, True]
>>> bl.timeline.completion_second(start=0, cost=5)
4
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ..errors import check_integer, check_integer_array
from ..rules import Rules, resolve

__all__ = ["Event", "start", "move", "trigger", "simulate", "charge_seconds", "completion_second",
           "charge_at", "reaction_available", "answered_triggers"]

_MAX = 10**9
OPPORTUNITY_ATTACK = "Opportunity Attack"
LOG_COLUMNS = ["second", "creature", "event", "action", "charge", "cost", "reaction", "cooldown",
               "ready_at", "detail"]


# -- pure functions ----------------------------------------------------------------------------

def _cooldown(cooldown: ArrayLike | None, rules: Rules, name: str = "cooldown") -> np.ndarray:
    if cooldown is None:
        cooldown = rules["time"]["opportunity_attack_cooldown"]
    return check_integer_array(name, cooldown, min=0, max=_MAX)


def _scalar(x: np.ndarray) -> int | np.ndarray:
    return int(x) if np.ndim(x) == 0 else x


def charge_seconds(cost: ArrayLike, *, rules: Rules | None = None) -> int | np.ndarray:
    """Seconds of charging an action of ``cost`` A.P. needs: ``ceil(cost / ap_per_second)`` (core rules, time, Reactions and Complex Actions).

    Parameters
    ----------
    cost : int or array_like of int
        The action's cost in A.P. (1..10**9).
    rules : Rules, optional
        Rules to read ``[time]`` from (default: the bundled rules).

    Returns
    -------
    int or numpy.ndarray
        Seconds: an int for scalar input, else an array.

    Raises
    ------
    ValueError
        A cost that is not a whole number in 1..10**9.

    Examples
    --------
    >>> import balance as bl
    >>> bl.timeline.charge_seconds(5)
    5
    >>> bl.timeline.charge_seconds([1, 3]).tolist()
    [1, 3]
    """
    rate = resolve(rules)["time"]["ap_per_second"]
    k = check_integer_array("cost", cost, min=1, max=_MAX)
    return _scalar(-(-k // rate))


def completion_second(start: ArrayLike, cost: ArrayLike, *,
                      rules: Rules | None = None) -> int | np.ndarray:
    """Second at whose end an action started at ``start`` completes, uninterrupted (core rules, time, Reactions and Complex Actions).

    Started at second ``s``, an action of ``k`` A.P. completes at the end of second
    ``s + ceil(k / ap_per_second) - 1``. Broadcasts.

    Parameters
    ----------
    start : int or array_like of int
        Second the action starts (0..10**9).
    cost : int or array_like of int
        The action's cost in A.P. (1..10**9).
    rules : Rules, optional
        Rules to read ``[time]`` from (default: the bundled rules).

    Returns
    -------
    int or numpy.ndarray
        The completion second.

    Raises
    ------
    ValueError
        A start or cost that is not a whole number in its range.

    Examples
    --------
    >>> import balance as bl
    >>> bl.timeline.completion_second(start=0, cost=5)
    4
    >>> completion_second(start=[0, 7], cost=3).tolist()
    [2, 9]
    """
    s = check_integer_array("start", start, min=0, max=_MAX)
    return _scalar(s + np.asarray(charge_seconds(cost, rules=rules)) - 1)


def charge_at(start: ArrayLike, cost: ArrayLike, second: ArrayLike, *,
              rules: Rules | None = None) -> int | np.ndarray:
    """A.P. charged by the end of ``second``, uninterrupted (0 before ``start``) (core rules, time, Reactions and Complex Actions).

    Parameters
    ----------
    start : int or array_like of int
        Second the action starts (0..10**9).
    cost : int or array_like of int
        The action's cost in A.P.; the charge never passes it.
    second : int or array_like of int
        Seconds to ask about; broadcasts with the others.
    rules : Rules, optional
        Rules to read ``[time]`` from (default: the bundled rules).

    Returns
    -------
    int or numpy.ndarray
        A.P. charged.

    Raises
    ------
    ValueError
        A start, cost or second that is not a whole number in its range.

    Examples
    --------
    >>> import balance as bl
    >>> charge_at(start=0, cost=5, second=[0, 2, 4, 9]).tolist()
    [1, 3, 5, 5]
    """
    rate = resolve(rules)["time"]["ap_per_second"]
    s = check_integer_array("start", start, min=0, max=_MAX)
    k = check_integer_array("cost", cost, min=1, max=_MAX)
    t = check_integer_array("second", second, min=0, max=_MAX)
    return _scalar(np.clip((t - s + 1) * rate, 0, k))


def reaction_available(uses: ArrayLike, second: ArrayLike, cooldown: ArrayLike | None = None, *,
                       rules: Rules | None = None) -> bool | np.ndarray:
    """Whether a creature may use a Reaction at ``second`` given its past Reactions (core rules, time, Reactions and Complex Actions).

    A Reaction used at second ``u`` with cooldown ``c`` blocks seconds ``u .. u + c - 1``.

    Parameters
    ----------
    uses : array_like of int
        Seconds at which the creature used Reactions (their triggers' seconds).
    second : int or array_like of int
        Seconds to ask about; the answer has this shape.
    cooldown : int or array_like of int, optional
        Cooldown of each use (scalar, or one per use). Default: the Opportunity Attack's
        (``time.opportunity_attack_cooldown``, 8).
    rules : Rules, optional
        Rules to read ``[time]`` from (default: the bundled rules).

    Returns
    -------
    bool or numpy.ndarray
        ``True`` where a Reaction is available.

    Raises
    ------
    ValueError
        Seconds or cooldowns that are not whole numbers >= 0, or a number of cooldowns that is
        neither one nor one per use.

    Examples
    --------
    >>> import balance as bl
    >>> bl.timeline.reaction_available(uses=[2], second=[9, 10], cooldown=8).tolist()
    [False, True]
    >>> reaction_available([2], 2, cooldown=0)   # cooldown 0: free again at once
    True
    """
    rules = resolve(rules)
    u = check_integer_array("uses", uses, min=0, max=_MAX).reshape(-1)
    t = check_integer_array("second", second, min=0, max=_MAX)
    c = _cooldown(cooldown, rules)
    if c.ndim and c.size != u.size:
        raise ValueError(f"cooldown must be one number or one per use ({u.size}), got {c.size}")
    blocked = (t[..., None] >= u) & (t[..., None] < u + c)
    free = ~blocked.any(axis=-1)
    return bool(free) if free.ndim == 0 else free


def answered_triggers(triggers: ArrayLike, cooldown: ArrayLike | None = None, *,
                      rules: Rules | None = None) -> np.ndarray:
    """Which of a creature's triggers it answers, reacting whenever it can (core rules, time, Reactions and Complex Actions).

    Parameters
    ----------
    triggers : array_like of int
        Seconds of distinct triggering events, in time order.
    cooldown : int or array_like of int, optional
        Cooldown of the Reaction used (one number, or one per trigger). Default: the
        Opportunity Attack's.
    rules : Rules, optional
        Rules to read ``[time]`` from (default: the bundled rules).

    Returns
    -------
    numpy.ndarray
        A boolean array, one entry per trigger.

    Raises
    ------
    ValueError
        Seconds that are not whole numbers >= 0 or not in time order, or negative cooldowns.

    Examples
    --------
    >>> import balance as bl
    >>> answered_triggers([2, 5, 10, 10, 17], cooldown=8).tolist()
    [True, False, True, False, False]
    """
    rules = resolve(rules)
    t = check_integer_array("triggers", triggers, min=0, max=_MAX).reshape(-1)
    if np.any(np.diff(t) < 0):
        raise ValueError("triggers must be seconds in time order (non-decreasing)")
    c = np.broadcast_to(_cooldown(cooldown, rules), t.shape) if t.size else t
    out = np.zeros(t.size, dtype=bool)
    ready = -1
    for i in range(t.size):
        if t[i] >= ready:
            out[i], ready = True, t[i] + c[i]
    return out


# -- events --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Event:
    """Something a creature does or undergoes at a ``second``; build with start/move/trigger."""

    second: int
    creature: str
    kind: str  # "start", "move", "forced_move", "trigger"
    action: str = ""
    cost: int = 0
    complex: bool = False
    provokes: tuple[str, ...] = ()
    reaction: str = ""
    cooldown: int | None = None
    source: str = ""


def _name(what: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} must be a non-empty name, got {value!r}")
    return value


def start(second: int, creature: str, action: str, cost: int, *, complex: bool = False,
          provokes: Iterable[str] = ()) -> Event:
    """An event: ``creature`` starts charging ``action`` of ``cost`` A.P. at ``second`` (core rules, time, Reactions and Complex Actions).

    Parameters
    ----------
    second : int
        Second the action starts (0..10**9).
    creature : str
        Who acts.
    action : str
        The action's name (a Complex Action is marked ``*`` in the document).
    cost : int
        The action's cost in A.P. (1..10**9).
    complex : bool, default False
        ``True`` for a Complex Action.
    provokes : iterable of str, default ()
        Creatures offered an Opportunity Attack when the action completes (for a Complex Action:
        the hostiles in reach; for a move out of reach: the creature left behind).

    Returns
    -------
    Event
        For :func:`simulate`.

    Raises
    ------
    ValueError
        An empty name, a second or cost out of range, or ``complex`` that is not a bool.

    Examples
    --------
    >>> import balance as bl
    >>> e = bl.timeline.start(0, "Aliena", "Complex Spell*", 3, complex=True, provokes="Balthazar")
    >>> e.kind, e.cost, e.provokes
    ('start', 3, ('Balthazar',))
    """
    if isinstance(provokes, str):
        provokes = (provokes,)
    if not isinstance(complex, bool):
        raise ValueError(f"complex must be True or False, got {complex!r}")
    return Event(check_integer("second", second, min=0, max=_MAX), _name("creature", creature),
                 "start", action=_name("action", action),
                 cost=check_integer("cost", cost, min=1, max=_MAX), complex=complex,
                 provokes=tuple(_name("provokes", p) for p in provokes))


def move(second: int, creature: str, *, forced: bool = False) -> Event:
    """An event: ``creature`` moves at ``second`` (core rules, time, Reactions and Complex Actions).

    A voluntary move cancels a charging Complex Action (and all its charge); a forced move
    cancels nothing.

    Parameters
    ----------
    second : int
        Second of the move (0..10**9).
    creature : str
        Who moves.
    forced : bool, default False
        ``True`` for a forced move.

    Returns
    -------
    Event
        For :func:`simulate`.

    Raises
    ------
    ValueError
        An empty name, a second out of range, or ``forced`` that is not a bool.

    Examples
    --------
    >>> import balance as bl
    >>> bl.timeline.move(2, "Calliope").kind, bl.timeline.move(2, "Calliope", forced=True).kind
    ('move', 'forced_move')
    """
    if not isinstance(forced, bool):
        raise ValueError(f"forced must be True or False, got {forced!r}")
    return Event(check_integer("second", second, min=0, max=_MAX), _name("creature", creature),
                 "forced_move" if forced else "move")


def trigger(second: int, creature: str, reaction: str = OPPORTUNITY_ATTACK, *,
            cooldown: int | None = None, source: str = "") -> Event:
    """An event: a fully resolved trigger at ``second`` offers ``creature`` a Reaction (core rules, time, Reactions and Complex Actions).

    Two events with the same second, creature and ``source`` are the same trigger: only one
    Reaction answers it.

    Parameters
    ----------
    second : int
        Second of the trigger (0..10**9).
    creature : str
        Who may react.
    reaction : str, default "Opportunity Attack"
        The Reaction offered.
    cooldown : int, optional
        Its cooldown; default the Opportunity Attack's (``rules["time"]``).
    source : str, default ""
        What triggered it.

    Returns
    -------
    Event
        For :func:`simulate`.

    Raises
    ------
    ValueError
        An empty name, or a second or cooldown out of range.

    Examples
    --------
    >>> import balance as bl
    >>> bl.timeline.trigger(2, "Demilio", source="Balthazar leaves reach").reaction
    'Opportunity Attack'
    """
    if cooldown is not None:
        cooldown = check_integer("cooldown", cooldown, min=0, max=_MAX)
    return Event(check_integer("second", second, min=0, max=_MAX), _name("creature", creature),
                 "trigger", reaction=_name("reaction", reaction), cooldown=cooldown,
                 source=str(source))


# -- simulation -----------------------------------------------------------------------------------

@dataclass
class _Charging:
    action: str
    cost: int
    complex: bool
    provokes: tuple[str, ...]
    charge: int = 0


def simulate(events: Iterable[Event], *, until: int | None = None,
             rules: Rules | None = None) -> pd.DataFrame:
    """Play ``events`` second by second; return the log of what happens (core rules, time, Reactions and Complex Actions).

    Each second ``t`` runs in three steps:

    1. ``start`` and ``move`` events of second ``t``, in the order given. Starting an action
       cancels the creature's current charge; a voluntary move cancels a charging Complex Action
       (an ordinary one too if ``rules["time"]["movement_cancels_simple_actions"]``); a forced
       move cancels nothing.
    2. Every charging action gains ``ap_per_second`` A.P.; an action whose charge reaches its
       cost completes at the end of ``t`` and offers an Opportunity Attack to each creature it
       ``provokes`` (one trigger, at ``t``, never while it charges).
    3. Triggers of second ``t``: those of step 2, then the ``trigger`` events in the order given.
       A creature answers a trigger when its shared cooldown allows (it always does when it
       can); a Reaction uses no A.P. and leaves its current charge as it is.

    Parameters
    ----------
    events : iterable of Event
        Built with :func:`start`, :func:`move`, :func:`trigger`; any order (sorted by second,
        stable).
    until : int, optional
        Last second played. Default: until the last event and every charge have finished.
    rules : Rules, optional
        Rules to read ``[time]`` from (default: the bundled rules).

    Returns
    -------
    pandas.DataFrame
        One row per happening, columns ``second, creature, event, action, charge, cost,
        reaction, cooldown, ready_at, detail``. ``event`` is one of start, charge, complete,
        cancel, move, forced_move, reaction, no_reaction. ``charge``/``cost`` are the
        creature's current action (for a cancel: the charge lost); ``ready_at`` is the second
        from which the creature may react again.

    Raises
    ------
    ValueError
        An item of ``events`` that is not an Event (naming ``events[i]``), or ``until`` out of
        range.

    Examples
    --------
    >>> log = simulate([start(0, "Calliope", "spell", 5), trigger(2, "Calliope")])
    >>> log.loc[log.event == "reaction", ["second", "charge", "cost", "ready_at"]].values.tolist()
    [[2, 3, 5, 10]]
    """
    rules = resolve(rules)
    time = rules["time"]
    rate = time["ap_per_second"]
    events = list(events)
    for i, e in enumerate(events):
        if not isinstance(e, Event):
            raise ValueError(f"events[{i}] must be an Event (use start, move or trigger), "
                             f"got {e!r}")
    if until is not None:
        until = check_integer("until", until, min=0, max=_MAX)
    by_second: dict[int, list[tuple[int, Event]]] = {}
    for i, e in enumerate(events):
        by_second.setdefault(e.second, []).append((i, e))
    rows: list[dict] = []
    charging: dict[str, _Charging] = {}
    uses: dict[str, list[tuple[int, int]]] = {}
    answered: set[tuple] = set()

    def log(t: int, who: str, what: str, ch: _Charging | None = None, **extra: object) -> None:
        row = dict(second=t, creature=who, event=what, action=ch.action if ch else None,
                   charge=ch.charge if ch else None, cost=ch.cost if ch else None)
        row.update(extra)
        rows.append(row)

    def react(t: int, who: str, reaction: str, cooldown: int, key: tuple, source: str) -> None:
        ch = charging.get(who)
        ready = max((u + c for u, c in uses.get(who, []) if u <= t < u + c), default=None)
        if key in answered:
            log(t, who, "no_reaction", ch, reaction=reaction, detail=f"{source}: already "
                "answered (one Reaction per trigger)")
        elif ready is not None:
            log(t, who, "no_reaction", ch, reaction=reaction, ready_at=ready,
                detail=f"{source}: shared cooldown until second {ready}")
        else:
            answered.add(key)
            uses.setdefault(who, []).append((t, cooldown))
            log(t, who, "reaction", ch, reaction=reaction, cooldown=cooldown,
                ready_at=t + cooldown, detail=source)

    oa_cooldown = time["opportunity_attack_cooldown"]
    last = max(by_second, default=-1)
    t = min(by_second, default=0)
    while (until is None or t <= until) and (t <= last or charging):
        todo = by_second.get(t, [])
        for _, e in todo:
            current = charging.get(e.creature)
            if e.kind == "start":
                if current:
                    log(t, e.creature, "cancel", current, detail=f"starts {e.action}")
                charging[e.creature] = _Charging(e.action, e.cost, e.complex, e.provokes)
                log(t, e.creature, "start", charging[e.creature],
                    detail="complex action" if e.complex else None)
            elif e.kind == "move":
                cancels = current is not None and (
                    current.complex or time["movement_cancels_simple_actions"])
                log(t, e.creature, "move", current,
                    detail="voluntary movement" + (": cancels the charge" if cancels else ""))
                if cancels:
                    log(t, e.creature, "cancel", charging.pop(e.creature),
                        detail="voluntary movement while charging")
            elif e.kind == "forced_move":
                log(t, e.creature, "forced_move", current, detail="forced movement: no effect")
        offers: list[tuple[str, str, Any, tuple, str]] = []  # who, reaction, cd, key, source
        for who, ch in list(charging.items()):
            ch.charge = min(ch.cost, ch.charge + rate)
            log(t, who, "charge", ch)
            if ch.charge >= ch.cost:
                log(t, who, "complete", charging.pop(who),
                    detail=f"provokes {', '.join(ch.provokes)}" if ch.provokes else None)
                source = f"{who} completes {ch.action}"
                offers += [(o, OPPORTUNITY_ATTACK, oa_cooldown, (t, o, source), source)
                           for o in ch.provokes]
        for i, e in todo:
            if e.kind == "trigger":
                key = (t, e.creature, e.source) if e.source else (t, e.creature, "#", i)
                cd = oa_cooldown if e.cooldown is None else e.cooldown
                offers.append((e.creature, e.reaction, cd, key, e.source or "trigger"))
        for offer in offers:
            react(t, *offer)
        t += 1
        if not charging and t not in by_second:  # idle: jump to the next event
            t = min((s for s in by_second if s > t), default=t)
    frame = pd.DataFrame(rows, columns=LOG_COLUMNS)
    ints = {c: "Int64" for c in ("charge", "cost", "cooldown", "ready_at")}
    return frame.astype({"second": np.int64, **ints})
