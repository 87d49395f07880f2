"""Shared helpers of the percentile package: reading the percentile rules from rules data."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..errors import check_integer, did_you_mean
from ..names import find_row, normalise
from ..rules import Rules, resolve

__all__ = ["TIERS", "FUMBLE", "FAILURE", "SUCCESS", "CRITICAL", "Grade", "section", "grade",
           "check_skill", "ceil_div", "RulesLike"]

RulesLike = Rules | str | None

#: tier codes, in order of quality (the structure of the percentile rules, skill roll; their names are data)
FUMBLE, FAILURE, SUCCESS, CRITICAL = 0, 1, 2, 3
TIERS = ("fumble", "failure", "success", "critical")


def section(rules: RulesLike) -> Mapping:
    """The ``[percentile]`` section of ``rules`` (None -> bundled)."""
    return resolve(rules)["percentile"]


def ceil_div(a, b):
    """Integer ceiling of ``a / b`` (``b > 0``), for ints or integer arrays."""
    return -(-a // b)


@dataclass(frozen=True)
class Grade:
    """A difficulty grade: skill x numerator / denominator rounded up; ``roll`` False = no roll."""

    name: str
    numerator: int
    denominator: int
    roll: bool

    def apply(self, skill):
        """The modified skill (int or integer array); meaningless when ``roll`` is False."""
        return ceil_div(np.asarray(skill, dtype=np.int64) * self.numerator, self.denominator) \
            if isinstance(skill, np.ndarray) else ceil_div(int(skill) * self.numerator,
                                                           self.denominator)


def grade(name: object, rules: RulesLike = None, what: str = "grade") -> Grade:
    """The difficulty grade called ``name`` (English or French; ``"very_easy"`` works too).

    ``None`` means the rules' default grade (Standard). Unknown names raise a one-line
    ``ValueError`` naming ``what`` with a did-you-mean.
    """
    grades = section(rules)["grades"]
    if name is None:
        name = grades["default"]
    rows = grades["table"]
    if isinstance(name, str):
        name = name.replace("_", " ")
        try:
            _, row = find_row(rows, name, what)
        except ValueError:
            row = None
    else:
        row = None
    if row is None:
        choices = [r["en"] for r in rows]
        hint = did_you_mean(normalise(str(name)), [normalise(c) for c in choices])
        raise ValueError(f"{what} must be one of {', '.join(map(repr, choices))} (or French), "
                         f"got {name!r}{hint}")
    return Grade(row["en"], row["numerator"], row["denominator"], row["roll"])


def check_skill(name: str, value: object) -> int:
    """A skill percentage: an integer >= 0 (one-line ``ValueError`` otherwise)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return check_integer(name, value, min=0)
