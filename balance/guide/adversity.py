"""Adversity ratios and encounter calibration (GM guide, adversity ratio and
calibration), in exact fractions. Read through ``bl.encounters`` (:mod:`balance.guide.encounters`).

>>> import balance as bl
>>> bl.encounters.calibration(ratios=["3/1", "1/2", "1/2"], pcs=4)
Calibration(value=Fraction(0, 1), challenge='Demanding')
>>> bl.encounters.calibration(ratios=["3/1", "1/2"], pcs=4).challenge
'Manageable'

Advice (creature count, creature levels, area abilities) is never an error: ``calibration``
issues it as Python warnings of category :class:`EncounterAdvice`, and :func:`advice` returns
the same lines as a list (use that in code that must not warn).
"""
from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, NamedTuple

from ..errors import check_integer
from ..names import find_row
from ..rules import Rules, resolve
from ..rules.ratios import parse_ratio

__all__ = ["Calibration", "EncounterAdvice", "parse_ratio", "ladder", "base_ratio",
           "adjusted_ratio", "calibration", "challenge", "advice"]



class EncounterAdvice(UserWarning):
    """A GM-guide recommendation an encounter does not follow (GM guide, adversity ratio
    and calibration)."""


class Calibration(NamedTuple):
    """Calibration value (exact) and the challenge name; compares equal to a plain tuple."""

    value: Fraction
    challenge: str


def named_row(rows: Sequence[Mapping], name: Any, what: str) -> Mapping:
    """The row of a small named table (sizes, kinds); the error lists every accepted name."""
    try:
        return find_row(rows, name, what)[1]
    except ValueError as err:
        head = str(err).split("; accepted:")[0]
        raise ValueError(f"{head}; accepted: {', '.join(r['en'] for r in rows)}") from None


def ladder(*, rules: Rules | None = None) -> list[Fraction]:
    """The ratio ladder (1/3, 1/2, 1/1, 2/1, ...) as Fractions (GM guide, adversity ratio and calibration).

    Parameters
    ----------
    rules : Rules, optional
        Rules to read ``[encounters]`` and ``[creatures]`` from (default: the bundled rules).

    Returns
    -------
    list of Fraction
        The rungs, lowest first (past the last rung the ladder continues by whole steps,
        *assumed*).

    Raises
    ------
    RulesError
        ``rules`` given as a file or variant name that cannot be loaded.

    Examples
    --------
    >>> import balance as bl
    >>> [str(r) for r in bl.encounters.ladder()][:4]
    ['1/3', '1/2', '1', '2']
    """
    rules = resolve(rules)
    return [parse_ratio(r, "encounters.ladder") for r in rules["encounters"]["ladder"]]


def _step(ratio: Fraction, steps: int, rules: Rules) -> Fraction:
    rungs = ladder(rules=rules)
    beyond = rules["encounters"]["ladder_step_beyond"]
    if steps == 0:
        return ratio
    if ratio in rungs:
        i = rungs.index(ratio) + steps
    else:  # beyond the last rung, by whole steps
        extra = (ratio - rungs[-1]) / beyond
        if extra <= 0 or extra.denominator != 1:
            raise ValueError(f"base ratio {ratio} is not on the ladder, so the stat-sum "
                             f"adjustment cannot move it; accepted: "
                             f"{', '.join(str(r) for r in rungs)}, then steps of {beyond}")
        i = len(rungs) - 1 + int(extra) + steps
    if i < 0:
        return rungs[0]
    if i < len(rungs):
        return rungs[i]
    return rungs[-1] + (i - len(rungs) + 1) * beyond


def base_ratio(size: str, kind: str, *, rules: Rules | None = None) -> Fraction:
    """Base adversity ratio of a creature by size and kind (GM guide, adversity ratio and calibration).

    A mini-boss uses the standard column.

    Parameters
    ----------
    size : str
        ``tiny``, ``small``, ``medium``, ``large``, ``huge`` or ``titanic`` (or a French name).
    kind : str
        ``standard``, ``mini-boss`` or ``boss``.
    rules : Rules, optional
        Rules to read ``[encounters]`` and ``[creatures]`` from (default: the bundled rules).

    Returns
    -------
    Fraction
        The base ratio.

    Raises
    ------
    ValueError
        An unknown size or kind (listing the accepted names), or a size without a ratio in that
        column.

    Examples
    --------
    >>> import balance as bl
    >>> bl.encounters.base_ratio("medium", "boss"), bl.encounters.base_ratio("small", "mini-boss")
    (Fraction(2, 1), Fraction(1, 2))
    """
    rules = resolve(rules)
    c = rules["creatures"]
    size_row = named_row(c["sizes"], size, "size")
    kind_row = named_row(c["kinds"], kind, "kind")
    column = kind_row["ratio_column"]
    for row in rules["encounters"]["base_ratios"]:
        if row["kind"] == column and row["size"] == size_row["en"]:
            return parse_ratio(row["ratio"], "encounters.base_ratios")
    sizes = [r["size"] for r in rules["encounters"]["base_ratios"] if r["kind"] == column]
    raise ValueError(f"size {size!r} has no base ratio for {kind_row['en']} creatures; "
                     f"accepted: {', '.join(sizes)}")


def adjusted_ratio(size: str, kind: str, stat_sum: int, *, rules: Rules | None = None) -> Fraction:
    """Base ratio moved along the ladder by the stat-sum adjustment (GM guide, adversity ratio and calibration).

    A sum of 2 or less moves one step down; high sums move up (``encounters.stat_sum_steps``);
    a step down from 1/3 stays 1/3 (*assumed*).

    Parameters
    ----------
    size, kind : str
        As in :func:`base_ratio`.
    stat_sum : int
        Sum of the creature's six stats.
    rules : Rules, optional
        Rules to read ``[encounters]`` and ``[creatures]`` from (default: the bundled rules).

    Returns
    -------
    Fraction
        The adjusted ratio.

    Raises
    ------
    ValueError
        As :func:`base_ratio`, and a stat sum that is not an integer.

    Examples
    --------
    >>> import balance as bl
    >>> bl.encounters.adjusted_ratio("medium", "boss", stat_sum=12)
    Fraction(3, 1)
    """
    rules = resolve(rules)
    base = base_ratio(size, kind, rules=rules)
    total = check_integer("stat_sum", stat_sum)
    rows = rules["encounters"]["stat_sum_steps"]
    steps = rows[0]["steps"] if total < rows[0]["low"] else next(
        r["steps"] for r in rows if r["low"] <= total and ("high" not in r or total <= r["high"]))
    return _step(base, steps, rules)


def challenge(value: Fraction | int | float, *, lang: str = "en",
              rules: Rules | None = None) -> str:
    """Challenge name of a calibration value: the band holding ``floor(value)`` (GM guide, adversity ratio and calibration).

    Values below the first band count as *Easy* (our reading).

    Parameters
    ----------
    value : Fraction, int or float
        A calibration (finite).
    lang : str, default "en"
        ``"en"`` or ``"fr"``.
    rules : Rules, optional
        Rules to read ``[encounters]`` and ``[creatures]`` from (default: the bundled rules).

    Returns
    -------
    str
        Easy / Manageable / Demanding / Intense / Impossible (Facile / Gérable / Exigeant /
        Intense / Impossible).

    Raises
    ------
    ValueError
        A value that is not a finite real number.

    Examples
    --------
    >>> import balance as bl
    >>> bl.encounters.challenge(0), bl.encounters.challenge(0, lang="fr")
    ('Demanding', 'Exigeant')
    """
    rules = resolve(rules)
    if not isinstance(value, numbers.Real) or isinstance(value, bool) \
            or not math.isfinite(value):
        raise ValueError(f"value must be a finite calibration (Fraction, int or float), "
                         f"got {value!r}")
    level = math.floor(value)
    rows = rules["encounters"]["challenges"]
    row = rows[0] if level < rows[0]["low"] else next(
        r for r in rows if r["low"] <= level and ("high" not in r or level <= r["high"]))
    return row.get(lang) or row["en"]


def _ratios(ratios: Any) -> list[Fraction]:
    if isinstance(ratios, (str, Fraction, int)) or hasattr(ratios, "adversity_ratio"):
        ratios = [ratios]
    if not isinstance(ratios, Sequence) or not ratios:
        raise ValueError(f"ratios must be a non-empty list of ratios or creature sheets, "
                         f"got {ratios!r}")
    return [parse_ratio(r) for r in ratios]


def calibration(ratios: Any, pcs: int = 4, *, party_levels: Sequence[int] | None = None,
                lang: str = "en", rules: Rules | None = None) -> Calibration:
    """Calibration = sum of the creatures' ratios - number of PCs, and its challenge (GM guide, adversity ratio and calibration).

    Advice the encounter does not follow is issued as :class:`EncounterAdvice` warnings
    (:func:`advice` returns the same lines quietly).

    Parameters
    ----------
    ratios : list of str, Fraction, int or creature sheets
        ``["3/1", "1/2", "1/2"]``; sheets also let the advice check levels and area abilities.
    pcs : int, default 4
        Number of player characters (1..100).
    party_levels : list of int, optional
        PC levels, for the level advice.
    lang : str, default "en"
        Language of the challenge name.
    rules : Rules, optional
        Rules to read ``[encounters]`` and ``[creatures]`` from (default: the bundled rules).

    Returns
    -------
    Calibration
        ``value`` (exact, a Fraction) and ``challenge``.

    Raises
    ------
    ValueError
        No ratio, a ratio that cannot be read, or ``pcs`` out of range.

    Examples
    --------
    >>> import balance as bl
    >>> bl.encounters.calibration(ratios=["3/1", "1/2", "1/2"], pcs=4)
    Calibration(value=Fraction(0, 1), challenge='Demanding')
    """
    rules = resolve(rules)
    pcs = check_integer("pcs", pcs, min=1, max=rules["encounters"]["max_pcs"])
    values = _ratios(ratios)
    value = sum(values, Fraction(0)) - pcs
    for line in advice(ratios, pcs, party_levels=party_levels, rules=rules):
        warnings.warn(line, EncounterAdvice, stacklevel=2)
    return Calibration(value, challenge(value, lang=lang, rules=rules))


def advice(creatures: Any, pcs: int = 4, *, party_levels: Sequence[int] | None = None,
           rules: Rules | None = None) -> list[str]:
    """The GM guide's recommendations an encounter does not follow, as text (GM guide, adversity ratio and calibration).

    Creatures <= PCs + 1; each creature's level within the average PC level +/- 1 (needs sheets
    and ``party_levels``); a creature of ratio 2/1 or more should have an area ability (sheets).

    Parameters
    ----------
    creatures : list of str, Fraction, int or creature sheets
        The encounter, as for :func:`calibration`.
    pcs : int, default 4
        Number of player characters.
    party_levels : list of int, optional
        PC levels, for the level advice.
    rules : Rules, optional
        Rules to read ``[encounters]`` and ``[creatures]`` from (default: the bundled rules).

    Returns
    -------
    list of str
        One line per recommendation not followed (empty when all are).

    Raises
    ------
    ValueError
        As :func:`calibration`, and ``party_levels`` that is not a non-empty list of levels.

    Examples
    --------
    >>> import balance as bl
    >>> bl.encounters.advice(["1/2"] * 6, pcs=4)
    ['6 creatures is more than PCs + 1 = 5 by 1']
    """
    rules = resolve(rules)
    enc = rules["encounters"]
    pcs = check_integer("pcs", pcs, min=1, max=enc["max_pcs"])
    items = _as_list(creatures)
    values = _ratios(items)
    out = []
    limit = pcs + enc["max_creatures_over_pcs"]
    if len(items) > limit:
        out.append(f"{len(items)} creatures is more than PCs + {enc['max_creatures_over_pcs']} "
                   f"= {limit} by {len(items) - limit}")
    sheets = [c for c in items if hasattr(c, "level")]
    if party_levels is not None:
        if not isinstance(party_levels, Sequence) or isinstance(party_levels, str):
            raise ValueError(f"party_levels must be a list of PC levels, got {party_levels!r}")
        levels = [check_integer("party_levels", v, min=1) for v in party_levels]
        if not levels:
            raise ValueError("party_levels must list at least one PC level")
        mean = Fraction(sum(levels), len(levels))
        tol = enc["level_tolerance"]
        for c in sheets:
            if abs(c.level - mean) > tol:
                out.append(f"{c.name} is level {c.level}, outside the average PC level "
                           f"{float(mean):g} +/- {tol} by {float(abs(c.level - mean) - tol):g}")
    area = parse_ratio(enc["area_ability_ratio"], "encounters.area_ability_ratio")
    for c, r in zip(items, values):
        if hasattr(c, "has_area") and r >= area and not c.has_area:
            out.append(f"{c.name} has ratio {r} (>= {area}) but no area ability")
    return out


def _as_list(creatures: Any) -> list:
    if isinstance(creatures, (str, Fraction, int)) or hasattr(creatures, "adversity_ratio"):
        return [creatures]
    return list(creatures) if isinstance(creatures, Sequence) else [creatures]
