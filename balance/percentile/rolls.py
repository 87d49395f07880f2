"""Skill rolls: the four tiers of a d100 roll against a skill (percentile rules, skill roll), exact and sampled.

>>> import balance as bl
>>> float(bl.percentile.tiers(65)["critical"])
0.07
>>> bl.percentile.graded_skill(65, "hard")
44
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from collections.abc import Iterable

import numpy as np

from .. import dice
from ..budgets import check_grid, check_length
from ..dice.sampling import draw_dtype, face_counts
from ..errors import check_integer, check_integer_array
from ..rng import RNGLike, as_generator
from ..rules import Rules, resolve
from ._common import (CRITICAL, FAILURE, FUMBLE, SUCCESS, TIERS, RulesLike, ceil_div,
                      check_skill, section)
from ._common import grade as find_grade

if TYPE_CHECKING:  # pandas is imported where a frame is built (a fast start)
    import pandas as pd

__all__ = ["tier_codes", "tiers", "tier_probabilities", "graded_skill", "tier_table", "tier_lookup", "sample_tiers",
           "tier_sampler", "tier_names"]


def tier_codes(rolls, skills, rules: RulesLike = None) -> np.ndarray:
    """Tier code (0 fumble, 1 failure, 2 success, 3 critical) of each roll against each skill.

    Broadcasts ``rolls`` (1..die) against ``skills`` (modified skills >= 0), following the
    precedence of the percentile rules, skill roll: fumble, automatic failure, success (roll <= skill
    or automatic), critical (a success with roll <= ceil(skill / critical_divisor)).
    """
    sec = section(rules)
    p = sec["roll"]
    r = check_integer_array("rolls", rolls, min=1, max=sec["die"])
    s = check_integer_array("skills", skills, min=0)
    crit = ceil_div(s, p["critical_divisor"])
    fumble_min = np.where(s > p["high_skill"], p["high_skill_fumble_min"], p["fumble_min"])
    code = np.where(r <= crit, CRITICAL, SUCCESS)
    success = (r <= s) | (r <= p["automatic_success_max"])
    code = np.where(success, code, FAILURE)
    code = np.where(r >= p["automatic_failure_min"], FAILURE, code)
    return np.where(r >= fumble_min, FUMBLE, code).astype(np.int8)


def _skill_cap(rules) -> int:
    """A skill from which every higher skill has the same tiers on every face."""
    sec = section(rules)
    p = sec["roll"]
    return int(max(sec["die"] * p["critical_divisor"], p["high_skill"] + 1, sec["die"]))


def tier_lookup(rules: RulesLike = None) -> np.ndarray:
    """Lookup ``table[min(skill, cap), roll]`` -> tier code, shape (cap + 1, die + 1) (cached).

    Column 0 is unused (rolls start at 1). Skills above ``cap`` behave like ``cap``.
    """
    rules = resolve(rules)

    def build(r):
        die = section(r)["die"]
        skills = np.arange(_skill_cap(r) + 1)[:, None]
        table = np.full((skills.size, die + 1), FAILURE, dtype=np.int8)
        table[:, 1:] = tier_codes(np.arange(1, die + 1)[None, :], skills, r)
        table.setflags(write=False)
        return table

    return rules.memo("percentile.tier_lookup", build)


def _tier_counts(rules) -> np.ndarray:
    """``counts[min(skill, cap), tier]``: faces giving each tier (cached)."""
    def build(r):
        table = tier_lookup(r)[:, 1:]
        counts = np.stack([(table == t).sum(axis=1) for t in range(4)], axis=1)
        counts.setflags(write=False)
        return counts

    return resolve(rules).memo("percentile.tier_counts", build)


def tier_names(rules: RulesLike = None, lang: str = "en") -> list[str]:
    """Display names of the four tiers (``lang`` "en" or "fr"), in quality order."""
    return [row.get(lang, row["en"]) for row in section(rules)["tiers"]["table"]]


def graded_skill(skill: int, grade_name: str | None = None,
                 rules: RulesLike = None) -> int | None:
    """The skill after a difficulty grade (fractions rounded up); ``None`` for a no-roll grade.

    >>> import balance as bl
    >>> bl.percentile.graded_skill(65, "formidable")
    33
    """
    skill = check_skill("skill", skill)
    g = find_grade(grade_name, rules)
    return g.apply(skill) if g.roll else None


def tiers(skill: int, grade: str | None = None, rules: RulesLike = None) -> pd.Series:
    """Exact probabilities of fumble, failure, success, critical for one roll (percentile rules, skill roll).

    Parameters
    ----------
    skill : int
        Skill percentage (>= 0), before the grade.
    grade : str, optional
        Difficulty grade (English or French name; default Standard). Hopeless: no roll,
        counted as a failure.

    Returns
    -------
    Series indexed by tier, summing to 1.
    """
    rules = resolve(rules)
    return dice.outcome_table(tier_probabilities(skill, grade, rules), TIERS, "tier", total=1)


def tier_probabilities(skill: int, grade: str | None = None,
                       rules: RulesLike = None) -> np.ndarray:
    """:func:`tiers` as an array in the order of ``TIERS`` (no pandas: a quick answer).

    Parameters
    ----------
    skill : int
        Skill percentage (>= 0), before the grade.
    grade : str, optional
        Difficulty grade (English or French name; default Standard).

    Returns
    -------
    ndarray of 4 probabilities: fumble, failure, success, critical (percentile rules,
    skill roll).

    Examples
    --------
    >>> from balance.percentile.rolls import tier_probabilities
    >>> tier_probabilities(65).tolist()
    [0.02, 0.33, 0.58, 0.07]
    """
    rules = resolve(rules)
    skill = check_skill("skill", skill)
    modified = graded_skill(skill, grade, rules)
    die = section(rules)["die"]
    if modified is None:
        counts = np.zeros(4)
        counts[_no_roll_tier(rules)] = die
    else:
        counts = _tier_counts(rules)[min(modified, _skill_cap(rules))]
    return np.asarray(counts, dtype=float) / die


def _no_roll_tier(rules) -> int:
    return TIERS.index(section(rules)["grades"]["no_roll_tier"])


def tier_table(skills: Iterable[int] = range(1, 201), grades: Iterable[str] | None = None,
               rules: RulesLike = None) -> pd.DataFrame:
    """Tier probabilities for every skill x grade in one call (tidy).

    Returns
    -------
    DataFrame with columns skill, grade, modified_skill (-1 for a no-roll grade), tier,
    probability: one row per skill, grade and tier.
    """
    import pandas as pd

    rules = resolve(rules)
    sec = section(rules)
    # skills x any grade's numerator must fit the int64 arithmetic of the table
    top = np.iinfo(np.int64).max // max(row["numerator"] for row in sec["grades"]["table"])
    skills = check_length("skills", skills)
    names = [row["en"] for row in sec["grades"]["table"]] if grades is None else \
        check_length("grades", grades)
    check_grid("tier_table", (len(skills), len(names), len(TIERS)), "skills x grades x tiers")
    skills = np.asarray([check_integer("skills", check_skill("skills", s), max=top)
                         for s in skills], dtype=np.int64)
    parsed = [find_grade(g, rules, "grades") for g in names]
    counts_table = _tier_counts(rules)
    cap = _skill_cap(rules)
    blocks = []
    for g in parsed:
        if g.roll:
            modified = g.apply(skills)
            counts = counts_table[np.minimum(modified, cap)]
        else:
            modified = np.full(skills.shape, -1)
            counts = np.zeros((skills.size, 4))
            counts[:, _no_roll_tier(rules)] = sec["die"]
        blocks.append(pd.DataFrame({
            "skill": np.repeat(skills, 4), "grade": g.name,
            "modified_skill": np.repeat(modified, 4),
            "tier": np.tile(TIERS, skills.size),
            "probability": np.asarray(counts, dtype=float).ravel() / sec["die"]}))
    return pd.concat(blocks, ignore_index=True)


def _tier_draws(skill: int, n: int, seed: RNGLike, grade: str | None, rules: RulesLike,
                name: str = "seed") -> tuple[int, np.random.Generator, int, np.ndarray | None, Rules]:
    """Validated ``(n, generator, die, tier row of the graded skill or None for no roll, rules)``."""
    rules = resolve(rules)
    n = check_integer("n", n, min=0)
    modified = graded_skill(skill, grade, rules)
    gen = as_generator(seed, name)
    row = None if modified is None else tier_lookup(rules)[min(modified, _skill_cap(rules)), 1:]
    return n, gen, section(rules)["die"], row, rules


def sample_tiers(skill: int, n: int, seed: RNGLike = None, *, grade: str | None = None,
                 rules: RulesLike = None) -> np.ndarray:
    """``n`` sampled tier codes (int8: 0 fumble, 1 failure, 2 success, 3 critical).

    One d100 per trial, turned into a tier by the skill's row of :func:`tier_lookup`.
    """
    n, gen, die, row, rules = _tier_draws(skill, n, seed, grade, rules)
    if row is None:
        return np.full(n, _no_roll_tier(rules), dtype=np.int8)
    return row[gen.integers(0, die, size=n, dtype=draw_dtype(die))]


def tier_sampler(n: int, rng: np.random.Generator, *, skill: int = 65, grade: str | None = None,
                 rules: RulesLike = None) -> dict[str, np.ndarray]:
    """Monte Carlo sampler (engine contract): ``{"tiers": counts of each tier}`` over ``n`` rolls.

    Draws the d100s, counts the faces, and folds the face counts through the skill's tier row.
    """
    n, gen, die, row, rules = _tier_draws(skill, n, rng, grade, rules, "rng")
    if row is None:
        counts = np.zeros(4, dtype=np.int64)
        counts[_no_roll_tier(rules)] = n
        return {"tiers": counts}
    faces = face_counts(die, n, gen)
    return {"tiers": np.bincount(row, weights=faces, minlength=4).astype(np.int64)}
