"""Design limits of the GM guide: ancestries, classes and creatures (GM guide, design limits).

A check never raises for a broken *limit*: it returns a :class:`DesignReport` listing every
problem with the limit and by how much it is broken, so a designer sees them all at once
(``report.raise_if_invalid()`` turns them into one ``ValueError``). Malformed input (a stat
that does not exist, a value that is not an integer) raises at once.

>>> import balance as bl
>>> r = bl.design.check_ancestry(STR=2, DEX=2, CON=-1, adaptability=1)
>>> r.ok, r.total, r.free_points
(True, 3, 0)
>>> bl.design.check_class(STR=4, DEX=-1).problems
('STR = +4 is above the maximum +3 by 1',)
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from ..errors import check_integer, did_you_mean
from ..rules import Rules, resolve

__all__ = ["DesignReport", "check_ancestry", "check_class", "check_creature", "stat_meaning",
           "stat_values"]


@dataclass(frozen=True)
class DesignReport:
    """Outcome of a design check.

    Attributes
    ----------
    what : str
        ``"ancestry"``, ``"class"`` or ``"creature"``.
    values : Mapping[str, int]
        The six stats (missing ones count as 0).
    total : int
        Their sum.
    free_points : int
        Free stat points (ancestry/class: ``modifier_sum_max - total`` when positive).
    problems : tuple of str
        One line per broken limit, saying by how much; empty when the design is valid.
    """

    what: str
    values: Mapping[str, int]
    total: int
    free_points: int
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems

    def raise_if_invalid(self) -> None:
        """Raise one ``ValueError`` listing every problem (nothing when valid)."""
        if self.problems:
            raise ValueError(f"invalid {self.what}: " + "; ".join(self.problems))


def stat_values(stats: Mapping[str, object] | None, extra: Mapping[str, object],
                rules: Rules, *, what: str = "stats") -> dict[str, int]:
    """The six stats from a mapping and/or keywords, as integers, missing ones 0 (GM guide, design limits).

    Stat names are matched without regard to case.

    Parameters
    ----------
    stats : mapping of str to int, optional
        Stats by name.
    extra : mapping of str to int
        More stats (keywords of the calling check); they win over ``stats``.
    rules : Rules
        Validated rules (the stat names are ``design.stats``).
    what : str, default "stats"
        What the stats belong to, for the error message.

    Returns
    -------
    dict of str to int
        The six stats in the rules' order.

    Raises
    ------
    ValueError
        An unknown stat name (with a did-you-mean) or a value that is not an integer.

    Examples
    --------
    >>> import balance as bl
    >>> bl.design.stat_values({"str": 2}, {"DEX": 1}, bl.load_rules())
    {'STR': 2, 'DEX': 1, 'CON': 0, 'INT': 0, 'WIS': 0, 'CHA': 0}
    """
    names = list(rules["design"]["stats"])
    given = dict(stats or {})
    given.update(extra)
    values = dict.fromkeys(names, 0)
    for key, value in given.items():
        match = next((n for n in names if n.lower() == str(key).lower()), None)
        if match is None:
            raise ValueError(f"unknown stat {key!r} in {what}{did_you_mean(str(key), names)}; "
                             f"accepted: {', '.join(names)}")
        values[match] = check_integer(match, value)
    return values


def _range_problems(values: Mapping[str, int], lo: int, hi: int) -> list[str]:
    out = []
    for name, v in values.items():
        if v < lo:
            out.append(f"{name} = {v:+d} is below the minimum {lo:+d} by {lo - v}")
        elif v > hi:
            out.append(f"{name} = {v:+d} is above the maximum {hi:+d} by {v - hi}")
    return out


def _modifiers(what: str, stats, extra, rules, adaptability: int | None) -> DesignReport:
    rules = resolve(rules)
    d = rules["design"]
    values = stat_values(stats, extra, rules, what=what)
    problems = _range_problems(values, d["modifier_min"], d["modifier_max"])
    total = sum(values.values())
    cap = d["modifier_sum_max"]
    if total > cap:
        problems.append(f"sum of modifiers {total:+d} is above the maximum {cap:+d} "
                        f"by {total - cap}")
    if adaptability is not None:
        a = check_integer("adaptability", adaptability)
        lo, hi = d["adaptability_min"], d["adaptability_max"]
        if a < lo:
            problems.append(f"adaptability {a} is below the minimum {lo} by {lo - a}")
        elif a > hi:
            problems.append(f"adaptability {a} is above the maximum {hi} by {a - hi}")
    return DesignReport(what, MappingProxyType(values), total, max(cap - total, 0), tuple(problems))


def check_ancestry(stats: Mapping[str, int] | None = None, *, adaptability: int = 0,
                   rules: Rules | None = None, **modifiers: int) -> DesignReport:
    """Check an ancestry's stat modifiers and adaptability points (GM guide, design limits).

    Each modifier in [-2, +3], their sum <= +3 (the shortfall becomes free stat points),
    adaptability in 0..3 (``[design]`` data).

    Parameters
    ----------
    stats : mapping of str to int, optional
        Modifiers by stat name; keywords (``STR=2``) work too. Missing stats are 0.
    adaptability : int, default 0
        Adaptability points.
    rules : Rules, optional
        Rules to read ``[design]`` from (default: the bundled rules).
    **modifiers : int
        Modifiers by stat name.

    Returns
    -------
    DesignReport
        ``ok``, ``total``, ``free_points`` and ``problems``: one line per broken limit, saying
        by how much.

    Raises
    ------
    ValueError
        An unknown stat name (with a did-you-mean and the accepted names) or a value that is not
        an integer. A broken *limit* is not an error: it is listed in ``problems``.

    Examples
    --------
    >>> import balance as bl
    >>> r = bl.design.check_ancestry(STR=4, DEX=2, adaptability=5)
    >>> r.ok
    False
    >>> r.problems[1]
    'sum of modifiers +6 is above the maximum +3 by 3'
    """
    return _modifiers("ancestry", stats, modifiers, rules,
                      check_integer("adaptability", adaptability))


def check_class(stats: Mapping[str, int] | None = None, *, rules: Rules | None = None,
                **modifiers: int) -> DesignReport:
    """Check a class's stat modifiers: an ancestry's limits, without adaptability (GM guide, design limits).

    Parameters
    ----------
    stats : mapping of str to int, optional
        Modifiers by stat name; missing stats are 0.
    rules : Rules, optional
        Rules to read ``[design]`` from (default: the bundled rules).
    **modifiers : int
        Modifiers by stat name (``STR=2``).

    Returns
    -------
    DesignReport
        ``ok``, ``total``, ``free_points`` and ``problems``.

    Raises
    ------
    ValueError
        An unknown stat name (with a did-you-mean and the accepted names) or a value that is not
        an integer. A broken *limit* is not an error: it is listed in ``problems``.

    Examples
    --------
    >>> import balance as bl
    >>> bl.design.check_class(STR=2, CON=-1).free_points        # sum +1, below +3
    2
    """
    return _modifiers("class", stats, modifiers, rules, None)


def check_creature(stats: Mapping[str, int] | None = None, *,
                   abilities: int | Sequence[str] = 0, rules: Rules | None = None,
                   **values: int) -> DesignReport:
    """Check a creature's stats (each in [-4, +6]) and ability count (at most 4) (GM guide, design limits).

    Parameters
    ----------
    stats : mapping of str to int, optional
        Stats by name; missing stats are 0.
    abilities : int, str or sequence of str, default 0
        A count, a list of names, or one name.
    rules : Rules, optional
        Rules to read ``[design]`` from (default: the bundled rules).
    **values : int
        Stats by name (``STR=7``).

    Returns
    -------
    DesignReport
        ``ok``, ``total`` and ``problems`` (``free_points`` is 0 for a creature).

    Raises
    ------
    ValueError
        An unknown stat name (with a did-you-mean and the accepted names) or a value that is not
        an integer. A broken *limit* is not an error: it is listed in ``problems``.
        Also a negative ability count.

    Examples
    --------
    >>> import balance as bl
    >>> bl.design.check_creature(STR=7, abilities=["a", "b", "c", "d", "e"]).problems
    ('STR = +7 is above the maximum +6 by 1', '5 abilities is above the maximum 4 by 1')
    """
    rules = resolve(rules)
    d = rules["design"]
    vals = stat_values(stats, values, rules, what="creature stats")
    problems = _range_problems(vals, d["creature_stat_min"], d["creature_stat_max"])
    if isinstance(abilities, str):  # one ability named
        count = 1
    elif isinstance(abilities, Sequence):
        count = len(abilities)
    else:
        count = check_integer("abilities", abilities, min=0)
    if count > d["max_abilities"]:
        problems.append(f"{count} abilities is above the maximum {d['max_abilities']} by "
                        f"{count - d['max_abilities']}")
    return DesignReport("creature", MappingProxyType(vals), sum(vals.values()), 0, tuple(problems))


def stat_meaning(value: int, *, lang: str = "en", rules: Rules | None = None) -> str:
    """What a creature stat value means (GM guide, design limits).

    Parameters
    ----------
    value : int
        A creature stat (-4..+6 in the bundled rules).
    lang : str, default "en"
        ``"en"`` or ``"fr"``.
    rules : Rules, optional
        Rules to read ``[design]`` from (default: the bundled rules).

    Returns
    -------
    str
        The meaning, e.g. ``"exceptional"``.

    Raises
    ------
    ValueError
        A value that is not an integer within the creature stat range.

    Examples
    --------
    >>> import balance as bl
    >>> bl.design.stat_meaning(5), bl.design.stat_meaning(5, lang="fr")
    ('exceptional', 'exceptionnel')
    """
    rules = resolve(rules)
    d = rules["design"]
    v = check_integer("value", value, min=d["creature_stat_min"], max=d["creature_stat_max"])
    for row in d["stat_meanings"]:
        if row["low"] <= v and ("high" not in row or v <= row["high"]):
            return row.get(lang) or row["en"]
    raise ValueError(f"value {v} has no meaning in design.stat_meanings")
