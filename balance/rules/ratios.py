"""Adversity ratios as the GM guide writes them (``"3/1"``, ``"1/2"``, ``"2"``): read here, below
the rules' validation, so that a ratio in a rules file and a ratio passed to
:mod:`balance.encounters` are read by the same function."""
from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

__all__ = ["parse_ratio"]

_FRACTION = re.compile(r"^\s*(\d+)\s*(?:/\s*(\d+))?\s*$")


def parse_ratio(ratio: Any, name: str = "ratios") -> Fraction:
    """An adversity ratio from ``"3/1"``, ``"1/2"``, ``"2"``, a Fraction, an int or a sheet."""
    if hasattr(ratio, "adversity_ratio"):
        ratio = ratio.adversity_ratio
        if ratio is None:
            raise ValueError(f"{name}: a player character has no adversity ratio")
    if isinstance(ratio, Fraction):
        value = ratio
    elif isinstance(ratio, int) and not isinstance(ratio, bool):
        value = Fraction(ratio)
    elif isinstance(ratio, str) and (m := _FRACTION.match(ratio)):
        if m.group(2) is not None and int(m.group(2)) == 0:
            raise ValueError(f"{name}: ratio {ratio!r} divides by zero")
        value = Fraction(int(m.group(1)), int(m.group(2) or 1))
    else:
        raise ValueError(f"{name}: {ratio!r} is not an adversity ratio; expected a fraction "
                         "such as '3/1' or '1/2', a Fraction, an integer or a creature sheet")
    if value <= 0:
        raise ValueError(f"{name}: an adversity ratio must be > 0, got {value}")
    return value
