"""What a tuning varies: one numeric rules key, or one named table transform (a *knob*).

A numeric key (``"injuries.death_threshold"``) takes integer or real values, bounded by the
key's ``[limits]`` in the bundled rules (or ``bounds=``). A transform changes a whole table
with one number; the set is small on purpose:

``injuries.shift_rows`` (integer k)
    every boundary *between* two rows of the critical-injury table moves by k (core rules,
    critical injuries): the table still starts at its first ``low`` and ends at its last
    ``high``; k > 0 widens the first row and narrows the last. Bounds: -50..50.
``economy.scale_prices`` (real factor)
    the die values of the price table and the cost per bonus point are multiplied by the
    factor and rounded to whole NX (GM guide, economy). Bounds: 0.25..4.
``negotiation.scale_thresholds`` (real factor)
    the two Psychology thresholds X/4 and X/2 are multiplied by the factor, i.e. both divisors
    are divided by it and rounded to whole numbers (at least 1) (core rules, negotiation).
    Bounds: 0.25..4.

A candidate value that breaks a rule (``Rules.updated`` raises ``RulesError``: a death
threshold inside the injury table, reversed rows) is *invalid*: the solvers skip it and never
evaluate the metric there.

>>> import balance as bl
>>> k = knob("injuries.death_threshold")
>>> k.integer, k.bounds, k.current
(True, (2, 100000), 176)
>>> k.apply(150) is None      # inside the injury table: invalid, skipped
True
>>> k.apply(183)["injuries"]["death_threshold"]
183
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import RulesError, check_number, did_you_mean
from ..rules import Rules, resolve
from ..rules.loader import _bundled, plain
from ..rules.tables import nested

__all__ = ["Knob", "knob", "TRANSFORMS", "numeric_keys"]


@dataclass(frozen=True)
class Knob:
    """One thing a tuning varies: ``apply(value)`` gives the rules with that value, or None
    when the value breaks a rule (invalid: skipped)."""

    name: str
    integer: bool
    bounds: tuple[float, float]
    current: float
    build: Callable[[float], dict] = field(repr=False, compare=False)
    rules: Rules = field(repr=False, compare=False)
    _cache: dict = field(default_factory=dict, repr=False, compare=False)
    _why: dict = field(default_factory=dict, repr=False, compare=False)

    def apply(self, value: float) -> Rules | None:
        """The rules with this value, or None when they break a rule (``RulesError``)."""
        value = int(value) if self.integer else float(value)
        if value not in self._cache:
            try:
                self._cache[value] = self.rules.updated(self.build(value),
                                                        source=f"<{self.name} = {value}>")
            except RulesError as exc:
                self._cache[value] = None
                self._why[value] = str(exc).splitlines()[0].removeprefix(
                    f"<{self.name} = {value}>: ")
        return self._cache[value]

    def why(self, value: float) -> str:
        """The rules' one-line refusal of ``value`` ('' if it was valid or never tried)."""
        return self._why.get(int(value) if self.integer else float(value), "")

    def overrides(self, value: float) -> dict:
        """The nested dict this value sets (what a variant file of it holds)."""
        return self.build(int(value) if self.integer else float(value))


def _shift_rows(rules: Rules) -> Callable[[float], dict]:
    rows = plain(rules["injuries"]["table"])

    def build(k: float) -> dict:
        out = [dict(r) for r in rows]
        for i in range(len(out) - 1):
            out[i]["high"] = rows[i]["high"] + int(k)
            out[i + 1]["low"] = rows[i + 1]["low"] + int(k)
        return {"injuries": {"table": out}}
    return build


def _scale_prices(rules: Rules) -> Callable[[float], dict]:
    econ = rules["economy"]
    rows = plain(econ["dice_values"])

    def build(f: float) -> dict:
        dice = [dict(r, value=int(round(r["value"] * f))) for r in rows]
        return {"economy": {"dice_values": dice, "point_cost": int(round(econ["point_cost"] * f))}}
    return build


def _scale_thresholds(rules: Rules) -> Callable[[float], dict]:
    neg = rules["negotiation"]

    def build(f: float) -> dict:
        return {"negotiation": {k: max(1, int(round(neg[k] / f)))
                                for k in ("partial_divisor", "full_divisor")}}
    return build


#: name -> (integer?, default bounds, builder of the overrides, what it does)
TRANSFORMS: dict[str, tuple[bool, tuple[float, float], Callable, str]] = {
    "injuries.shift_rows": (True, (-50, 50), _shift_rows,
                            "move every boundary between two injury rows by k"),
    "economy.scale_prices": (False, (0.25, 4.0), _scale_prices,
                             "multiply the die values and the point cost by a factor"),
    "negotiation.scale_thresholds": (False, (0.25, 4.0), _scale_thresholds,
                                     "multiply the thresholds X/4 and X/2 by a factor"),
}


def numeric_keys(rules: Rules | None = None) -> list[str]:
    """Dotted keys of the plain numbers of the rules (not inside row tables), e.g. for ``vary``."""
    rules = resolve(rules)
    out: list[str] = []

    def walk(node: Any, path: str) -> None:
        for key, value in node.items():
            where = f"{path}.{key}" if path else key
            if hasattr(value, "items"):
                walk(value, where)
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                out.append(where)
    walk(rules, "")
    return out


def _bounds(name: str, bounds: Any, default: tuple | None, integer: bool) -> tuple:
    if bounds is None:
        if default is None:
            raise ValueError(f"vary: {name} has no [limits] in the bundled rules; give "
                             "bounds=(low, high)")
        return tuple(default)
    if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
        raise ValueError(f"bounds must be a pair (low, high), got {bounds!r}")
    lo = check_number("bounds low", bounds[0])
    hi = check_number("bounds high", bounds[1])
    if integer and not (float(lo).is_integer() and float(hi).is_integer()):
        raise ValueError(f"bounds: {name} is an integer; give whole numbers, got {lo:g} "
                         f"and {hi:g}")
    if not lo < hi:
        raise ValueError(f"bounds: low must be below high (low < high), got {lo:g} and {hi:g}")
    if default is not None and (lo < default[0] or hi > default[1]):
        raise ValueError(f"bounds: must lie within the [limits] of {name}, {default[0]} to "
                         f"{default[1]}, got {lo:g} and {hi:g}")
    return (int(lo), int(hi)) if integer else (float(lo), float(hi))


def knob(vary: str, *, bounds: Any = None, rules: Rules | None = None) -> Knob:
    """The :class:`Knob` named ``vary``: a numeric rules key or one of :data:`TRANSFORMS`.

    Raises
    ------
    ValueError
        ``vary`` names no numeric key and no transform; bounds outside the key's limits.
    """
    rules = resolve(rules)
    if not isinstance(vary, str):
        raise ValueError(f"vary must be a rules key such as 'injuries.death_threshold' or a "
                         f"transform ({', '.join(TRANSFORMS)}), got {vary!r}")
    if vary in TRANSFORMS:
        integer, default, factory, _ = TRANSFORMS[vary]
        lo, hi = _bounds(vary, bounds, None if bounds is not None else default, integer)
        current = 0 if integer else 1.0
        return Knob(vary, integer, (lo, hi), current, factory(rules), rules)
    value = rules.get(vary, None)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        keys = numeric_keys(rules) + list(TRANSFORMS)
        raise ValueError(f"vary: {vary!r} is not a numeric rules key nor a transform"
                         f"{did_you_mean(vary, keys)}; e.g. injuries.death_threshold, "
                         f"{', '.join(TRANSFORMS)}")
    integer = isinstance(_default(vary), int)
    limits = _bundled()[1].get(vary)
    lo, hi = _bounds(vary, bounds, limits, integer)
    if not all(math.isfinite(b) for b in (lo, hi)):
        raise ValueError(f"bounds of {vary} must be finite")
    return Knob(vary, integer, (lo, hi), value, lambda v: nested(vary, v), rules)


def _default(path: str) -> Any:
    node: Any = _bundled()[0]
    for part in path.split("."):
        node = node[part]
    return node
