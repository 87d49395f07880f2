"""Passions, magic skills and casting while hurt (percentile rules, passions;
magic: casting while hurt): exact answers.

One roll decides each of these, so every answer is an exact distribution over the d100 faces
(the tiers of the percentile rules, skill roll), never a simulation.

>>> import balance as bl
>>> bl.percentile.magic_skill_base("folk_magic", {"POW": 12, "CHA": 9})
21
>>> round(float(bl.percentile.casting_chance(60, wound="minor", willpower=50)), 4)
0.5
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..errors import check_choice, check_integer
from ..names import find_row
from ..rules import resolve
from ._common import SUCCESS, TIERS, RulesLike, ceil_div, check_skill, section
from .combat import harder_grade
from .rolls import tiers

__all__ = ["passion", "magic_skill_base", "casting_tiers", "casting_chance", "intensity",
           "willpower_check"]


def passion(passion_pct: int, grade: str | None = None, rules: RulesLike = None) -> pd.Series:
    """Exact tiers of a Passion roll: 1d100 against the Passion % (percentile rules, Passions).

    Parameters
    ----------
    passion_pct : int
        The Passion % (>= 0).
    grade : str, optional
        A difficulty grade when a rule names one (default: the grades' default, Standard).

    Returns
    -------
    Series indexed by tier (fumble, failure, success, critical), summing to 1.

    Raises
    ------
    ValueError
        A negative or non-integer Passion, an unknown grade.

    Examples
    --------
    >>> import balance as bl
    >>> float(bl.percentile.passion(70)["critical"])
    0.07
    """
    return tiers(check_skill("passion_pct", passion_pct), grade, resolve(rules))


def _skill_row(skill: str, rules: RulesLike) -> Mapping:
    rows = section(rules)["magic"]["skills"]["table"]
    _, row = find_row(rows, skill, "skill", keys=("key", "en", "fr"))
    return row


def magic_skill_base(skill: str, characteristics: Mapping[str, int],
                     rules: RulesLike = None) -> int:
    """Base % of a magic skill (percentile rules, magic disciplines): Folk Magic = POW + CHA;
    Binding, Trance, Meditation, Mysticism, Devotion, Exhort, Invocation, Shaping = POW x 2
    (assumed: the digest leaves them to culture).

    Parameters
    ----------
    skill : str
        A key, English or French name of ``[percentile.magic.skills]``.
    characteristics : mapping
        At least the characteristics the skill reads (``POW``, ``CHA``).

    Returns
    -------
    int: sum of the inputs x numerator / denominator, rounded up.

    Raises
    ------
    ValueError
        An unknown skill, a missing or negative characteristic.

    Examples
    --------
    >>> import balance as bl
    >>> bl.percentile.magic_skill_base("Invocation", {"POW": 13})
    26
    """
    rules = resolve(rules)
    row = _skill_row(skill, rules)
    if not isinstance(characteristics, Mapping):
        raise ValueError(f"characteristics must be a mapping such as {{'POW': 12}}, "
                         f"got {characteristics!r}")
    chars = {str(k).upper(): v for k, v in characteristics.items()}
    total = 0
    for name in row["inputs"]:
        if name not in chars:
            raise ValueError(f"characteristics: {row['en']} needs {name} "
                             f"(inputs: {', '.join(row['inputs'])})")
        total += check_integer(f"characteristics[{name!r}]", chars[name], min=0)
    return ceil_div(total * row["numerator"], row["denominator"])


def willpower_check(willpower: int, rules: RulesLike = None) -> float:
    """Probability that a Willpower check passes: a success or critical on 1d100 against
    Willpower % (percentile rules, casting while hurt; ``[percentile.magic.casting]``).

    Parameters
    ----------
    willpower : int
        Willpower % (POW x 2 for a human).

    Returns
    -------
    float: P(the tier is at least ``willpower_passes_from``).

    Raises
    ------
    ValueError
        A negative or non-integer Willpower.

    Examples
    --------
    >>> import balance as bl
    >>> bl.percentile.willpower_check(50)
    0.5
    """
    rules = resolve(rules)
    t = tiers(check_skill("willpower", willpower), None, rules)
    first = TIERS.index(section(rules)["magic"]["casting"]["willpower_passes_from"])
    return float(t.iloc[first:].sum())


def casting_tiers(skill: int, grade: str | None = None, *, wound: str | None = None,
                  willpower: int | None = None, dominated: bool = False,
                  rules: RulesLike = None) -> pd.Series:
    """Exact tiers of a casting roll for a skill, a grade and a wound state (percentile rules,
    casting while hurt), the Willpower check included.

    A minor wound: Willpower check, failed -> one grade harder; a serious wound: passed -> one
    grade harder, failed -> two; a major wound or mental domination: the casting fails (tier
    failure with probability 1). Grades move along ``[percentile.grades]`` and stop at its
    ends (Hopeless: no roll, a failure).

    Parameters
    ----------
    skill : int
        The magic skill %, before the grade.
    grade : str, optional
        The casting's grade before the wound (default Standard).
    wound : {"minor", "serious", "major"}, optional
        The worst wound (rows of ``[percentile.magic] wounds``); None: unhurt.
    willpower : int, optional
        Willpower % (needed for a wound that calls for the check).
    dominated : bool
        Under mental domination.

    Returns
    -------
    Series indexed by tier, summing to 1: sum over the Willpower check's two results of their
    probability x the tiers of the casting roll at the grade that result gives.

    Raises
    ------
    ValueError
        An unknown wound or grade, a missing Willpower.

    Examples
    --------
    >>> import balance as bl
    >>> float(bl.percentile.casting_tiers(60, wound="major")["failure"])
    1.0
    """
    rules = resolve(rules)
    magic = section(rules)["magic"]
    skill = check_skill("skill", skill)
    if not isinstance(dominated, (bool, np.bool_)):
        raise ValueError(f"dominated must be True or False, got {dominated!r}")
    fail = pd.Series(0.0, index=pd.Index(TIERS, name="tier"), name="probability")
    fail["failure"] = 1.0
    if dominated and magic["casting"]["dominated_fails"]:
        return fail
    if wound is None:
        return tiers(skill, grade, rules)
    keys = [row["key"] for row in magic["wounds"]]
    row = magic["wounds"][keys.index(check_choice("wound", wound, keys))]
    if row["fails"]:
        return fail
    if willpower is None:
        raise ValueError(f"willpower is needed for a {row['en']} (the Willpower check), "
                         "got None")
    p_pass = willpower_check(willpower, rules)
    out = p_pass * tiers(skill, harder_grade(grade, row["passed"], rules), rules)
    out += (1 - p_pass) * tiers(skill, harder_grade(grade, row["failed"], rules), rules)
    return out.rename("probability")


def casting_chance(skill: int, grade: str | None = None, *, wound: str | None = None,
                   willpower: int | None = None, dominated: bool = False,
                   rules: RulesLike = None) -> float:
    """Probability of a successful cast (success or critical) for a skill, a grade and a wound
    state (percentile rules, casting while hurt): :func:`casting_tiers` summed over the
    successful tiers.

    Parameters
    ----------
    skill, grade, wound, willpower, dominated
        As :func:`casting_tiers`.

    Returns
    -------
    float: P(success or critical).

    Raises
    ------
    ValueError
        As :func:`casting_tiers`.

    Examples
    --------
    >>> import balance as bl
    >>> round(bl.percentile.casting_chance(60, wound="serious", willpower=40), 4)
    0.34
    """
    t = casting_tiers(skill, grade, wound=wound, willpower=willpower, dominated=dominated,
                      rules=rules)
    return float(t.iloc[SUCCESS:].sum())


def intensity(skill: int, discipline: str = "sorcery", rules: RulesLike = None) -> int:
    """Intensity of an effect (percentile rules, Intensity and Magnitude): Sorcery =
    ceil(Invocation / 10) (rounding assumed up). The casting roll's grade does not enter:
    pass the unmodified skill.

    Parameters
    ----------
    skill : int
        The discipline's ``intensity_skill`` % (Sorcery: Invocation), before any grade.
    discipline : str
        A key or name of ``[percentile.magic.disciplines]``.

    Returns
    -------
    int: ``ceil(skill / intensity_divisor)``.

    Raises
    ------
    ValueError
        A discipline for which the digest gives no Intensity rule (divisor 0 in
        ``[percentile.magic.disciplines]``).

    Examples
    --------
    >>> import balance as bl
    >>> bl.percentile.intensity(65)
    7
    """
    rules = resolve(rules)
    rows = section(rules)["magic"]["disciplines"]["table"]
    _, row = find_row(rows, discipline, "discipline", keys=("key", "en", "fr"))
    if row["intensity_divisor"] == 0:
        raise ValueError(f"discipline: the percentile rules give no Intensity rule for "
                         f"{row['en']}; accepted: "
                         f"{', '.join(r['key'] for r in rows if r['intensity_divisor'])}")
    return ceil_div(check_skill("skill", skill), row["intensity_divisor"])
