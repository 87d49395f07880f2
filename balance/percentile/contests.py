"""Contests: opposed and differential rolls, with the over-100 rule (percentile rules, opposed
and differential rolls).

Order of modifiers (our reading): each side's difficulty grade first, then the over-100 rule on
the graded skills (the skills actually rolled). Exact, by enumerating the die x die roll pairs.

>>> import balance as bl
>>> float(round(bl.percentile.opposed(70, 50)["first_wins"], 4))
0.5724
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from collections.abc import Iterable, Sequence

import numpy as np

from .. import dice
from ..rules import resolve
from ._common import SUCCESS, RulesLike, check_skill, section
from ._common import grade as find_grade
from .rolls import tier_codes

if TYPE_CHECKING:  # pandas is imported where a frame is built (a fast start)
    import pandas as pd

__all__ = ["contest_skills", "opposed", "differential", "opposed_outcome", "effects_won"]


def contest_skills(skills: Sequence[int], rules: RulesLike = None) -> list[int]:
    """Skills after the over-100 rule: if the highest is ``100 + x``, every skill drops by ``x``.

    Skills do not go below 0.

    >>> import balance as bl
    >>> bl.percentile.contest_skills([130, 80])
    [100, 50]
    """
    cap = section(rules)["contest"]["skill_cap"]
    if isinstance(skills, (str, bytes)) or not isinstance(skills, Iterable):
        raise ValueError(f"skills must be a sequence of integers >= 0, got {skills!r}")
    skills = [check_skill("skills", s) for s in skills]
    excess = max(0, max(skills, default=0) - cap)
    return [max(0, s - excess) for s in skills]


def opposed_outcome(tier1, roll1, tier2, roll2, rules: RulesLike = None) -> np.ndarray:
    """+1 first wins, -1 second wins, 0 stalemate (broadcasting tier codes and rolls).

    Higher tier wins if it is a success; the same successful tier: the higher roll wins; equal
    rolls, or neither succeeds: stalemate. (``rules`` is accepted for uniformity: the
    comparison uses no number.)
    """
    t1, t2 = np.asarray(tier1), np.asarray(tier2)
    r1, r2 = np.asarray(roll1), np.asarray(roll2)
    first = (t1 >= SUCCESS) & ((t1 > t2) | ((t1 == t2) & (r1 > r2)))
    second = (t2 >= SUCCESS) & ((t2 > t1) | ((t1 == t2) & (r2 > r1)))
    return first.astype(np.int8) - second.astype(np.int8)


def effects_won(tier1, tier2, rules: RulesLike = None) -> np.ndarray:
    """Special effects of a differential roll, signed (+ first side, - second side).

    Percentile rules, differential rolls: the margin between the tiers' values (fumble 0, failure 1,
    success 2, critical 3), won by the better side, so failure vs fumble gives the failing side 1 and
    critical vs fumble 3; capped at ``contest.max_effects``. The rules switch
    ``contest.winner_must_succeed = true`` restores the earlier reading: a side that did not
    succeed wins none (failure vs fumble gives 0).

    >>> import balance as bl
    >>> bl.percentile.effects_won([1, 3], [0, 0]).tolist()
    [1, 3]
    """
    sec = section(rules)
    values = np.array([row["value"] for row in sec["tiers"]["table"]])
    t1, t2 = np.asarray(tier1), np.asarray(tier2)
    diff = values[t1] - values[t2]
    if sec["contest"]["winner_must_succeed"]:
        diff = np.where((diff > 0) & (t1 < SUCCESS), 0, diff)
        diff = np.where((diff < 0) & (t2 < SUCCESS), 0, diff)
    cap = sec["contest"]["max_effects"]
    return np.clip(diff, -cap, cap)


def _pair_grid(first: int, second: int, first_grade: str | None, second_grade: str | None,
               rules: RulesLike) -> tuple:
    """Tier codes and rolls of both sides over every roll pair (die x die)."""
    rules = resolve(rules)
    first = check_skill("first", first)
    second = check_skill("second", second)
    g1 = find_grade(first_grade, rules, "first_grade")
    g2 = find_grade(second_grade, rules, "second_grade")
    die = section(rules)["die"]
    rolls = np.arange(1, die + 1)
    rolling = [(g.apply(s) if g.roll else None) for g, s in ((g1, first), (g2, second))]
    adjusted = contest_skills([s for s in rolling if s is not None], rules)
    no_roll = section(rules)["grades"]["no_roll_tier"]
    codes = []
    for s in rolling:
        if s is None:
            codes.append(np.full(die, ["fumble", "failure", "success", "critical"].index(no_roll)))
        else:
            codes.append(tier_codes(rolls, adjusted.pop(0), rules))
    return codes[0][:, None], rolls[:, None], codes[1][None, :], rolls[None, :], die


def opposed(first: int, second: int, *, first_grade: str | None = None,
            second_grade: str | None = None, rules: RulesLike = None) -> pd.Series:
    """Exact opposed roll between two skills (percentile rules, opposed rolls), with the over-100 rule.

    Returns
    -------
    Series first_wins, second_wins, stalemate (sums to 1).
    """
    t1, r1, t2, r2, die = _pair_grid(first, second, first_grade, second_grade, rules)
    outcome = opposed_outcome(t1, r1, t2, r2)
    counts = [(outcome == 1).sum(), (outcome == -1).sum(), (outcome == 0).sum()]
    return dice.outcome_table(np.asarray(counts, dtype=float),
                              ["first_wins", "second_wins", "stalemate"], "outcome", total=die**2)


def differential(first: int, second: int, *, first_grade: str | None = None,
                 second_grade: str | None = None, rules: RulesLike = None) -> pd.Series:
    """Exact distribution of special effects won in a differential roll (percentile rules, differential
    rolls).

    Returns
    -------
    Series indexed by effects (signed: + won by the first side, - by the second), -3..3.
    """
    t1, _, t2, _, die = _pair_grid(first, second, first_grade, second_grade, rules)
    effects = effects_won(t1, t2, rules)
    cap = section(rules)["contest"]["max_effects"]
    counts = np.bincount((effects + cap).ravel(), minlength=2 * cap + 1)
    return dice.outcome_table(counts, np.arange(-cap, cap + 1), "effects", total=die**2)

