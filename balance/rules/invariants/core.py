"""Invariants of the core rules: injuries, treatment, negotiation, rest."""
from __future__ import annotations

from .registry import invariant
from ._tools import Source, fail, row_name, span


@invariant("injuries.threshold_after_table", "injuries.death_threshold", "injuries.table")
def threshold_after_table(data: dict, source_of: Source) -> None:
    """Every row of the critical-injury table can be rolled (core rules, critical injuries): the death
    threshold lies above the last row's ``low``; a total at or above the threshold is death,
    and the last row runs up to ``death_threshold - 1`` (rows that start at or above it would
    get negative chances). A last row that states its ``high`` ends below the threshold
    (a threshold above it extends the row, as the bundled ``death_threshold_180`` does).

    Fix: raise ``injuries.death_threshold`` above the last row's ``low``, or shorten the table;
    end the last row below the threshold, or leave its ``high`` out.
    """
    inj = data["injuries"]
    threshold, rows = inj["death_threshold"], inj["table"]
    dead = [i for i, row in enumerate(rows) if row["low"] >= threshold]
    if not dead:
        last = rows[-1]
        if last.get("high", 0) >= threshold:
            name = row_name(last, len(rows) - 1)
            raise fail(source_of, ["injuries.table", "injuries.death_threshold"],
                       f"injuries.table: the last row {name} ({span(last)}) runs past "
                       f"injuries.death_threshold = {threshold}: totals {threshold}-"
                       f"{last['high']} would be death, not {name}; end the row at "
                       f"{threshold - 1} or leave its 'high' out (it then runs up to the "
                       "threshold)")
        return
    first, last = rows[dead[0]], rows[-1]
    which = (f"rows {row_name(first, dead[0])} ({span(first)}) to "
             f"{row_name(last, len(rows) - 1)} ({span(last)})" if len(dead) > 1
             else f"row {row_name(last, len(rows) - 1)} ({span(last)})")
    # the smallest threshold this table takes: past its last row's high, or past its low
    # when the last row is open-ended (it then runs up to the threshold)
    raise fail(source_of, ["injuries.death_threshold", "injuries.table"],
               f"injuries.death_threshold = {threshold} falls inside the injury table: "
               f"{which} could never be rolled; raise the threshold above "
               f"{last.get('high', last['low'])} or shorten the table")


@invariant("treatment.attempt_within_retry", "treatment.<level>.minutes",
           "treatment.<level>.retry_minutes")
def attempt_within_retry(data: dict, source_of: Source) -> None:
    """One healer's attempts do not overlap (core rules, treating injuries): attempts start ``retry_minutes``
    apart and last ``minutes``, so a level's ``minutes`` is at most its ``retry_minutes``.

    Fix: shorten the attempt or lengthen the retry interval.
    """
    for name, level in data["treatment"].items():
        if not isinstance(level, dict) or "minutes" not in level:
            continue
        if level["minutes"] > level["retry_minutes"]:
            path = f"treatment.{name}"
            raise fail(source_of, [f"{path}.minutes", f"{path}.retry_minutes"],
                       f"{path}.minutes = {level['minutes']} is longer than "
                       f"{path}.retry_minutes = {level['retry_minutes']}: attempts would "
                       "overlap; shorten the attempt or lengthen the retry interval")


@invariant("negotiation.divisors_ordered", "negotiation.partial_divisor",
           "negotiation.full_divisor")
def divisors_ordered(data: dict, source_of: Source) -> None:
    """A partial success needs fewer success points than a full one (core rules, negotiation): X /
    ``partial_divisor`` <= X / ``full_divisor``, i.e. ``partial_divisor >= full_divisor``.

    Fix: make ``partial_divisor`` at least ``full_divisor``.
    """
    n = data["negotiation"]
    if n["partial_divisor"] < n["full_divisor"]:
        raise fail(source_of, ["negotiation.partial_divisor", "negotiation.full_divisor"],
                   f"negotiation.partial_divisor = {n['partial_divisor']} is below "
                   f"negotiation.full_divisor = {n['full_divisor']}: a partial success would "
                   "need more success points than a full one; make partial_divisor at least "
                   "full_divisor")


@invariant("negotiation.rule_known", "negotiation.rule")
def rule_known(data: dict, source_of: Source) -> None:
    """``negotiation.rule`` names a negotiation rule: ``"psychology"`` (core rules, negotiation) or
    ``"charisma"`` (GM guide, Charisma negotiation: ``[economy.negotiation]``).

    Fix: write one of those two words.
    """
    rule = data["negotiation"]["rule"]
    if rule not in ("psychology", "charisma"):
        raise fail(source_of, ["negotiation.rule"],
                   f"negotiation.rule = {rule!r} is not 'psychology' or 'charisma'; write "
                   "one of those two words")


@invariant("rest.window_holds_cap", "rest.max_hours_per_day", "rest.window_hours")
def window_holds_cap(data: dict, source_of: Source) -> None:
    """The counted-hours cap fits its window (core rules, rest): ``max_hours_per_day`` counted
    hours in any window of ``window_hours`` hours, so the cap is at most the window.

    Fix: lower the cap or widen the window.
    """
    r = data["rest"]
    if r["max_hours_per_day"] > r["window_hours"]:
        raise fail(source_of, ["rest.max_hours_per_day", "rest.window_hours"],
                   f"rest.max_hours_per_day = {r['max_hours_per_day']} is more than "
                   f"rest.window_hours = {r['window_hours']}: the cap could never be reached; "
                   "lower the cap or widen the window")


@invariant("rest.armour_comfort_in_range", "rest.armour_comfort", "rest.comfort_max")
def armour_comfort_in_range(data: dict, source_of: Source) -> None:
    """Comfort with armour on is a comfort value (core rules, rest): ``armour_comfort`` is at
    most ``comfort_max``.

    Fix: lower ``armour_comfort`` or raise ``comfort_max``.
    """
    r = data["rest"]
    if r["armour_comfort"] > r["comfort_max"]:
        raise fail(source_of, ["rest.armour_comfort", "rest.comfort_max"],
                   f"rest.armour_comfort = {r['armour_comfort']} is above rest.comfort_max = "
                   f"{r['comfort_max']}; lower armour_comfort or raise comfort_max")
