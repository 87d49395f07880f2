"""Metrics of the percentile rules (RULES.md §3): d100 tiers, opposed and differential rolls.

Exact, from :mod:`balance.percentile`.
"""
from __future__ import annotations

from .metrics import Metric, distribution

__all__ = ["metrics"]

SKILLS = (30, 65, 120)
CONTEST = (60, 40)


def _series(s):
    return distribution(s.to_numpy(), [str(x) for x in s.index])


def metrics() -> list[Metric]:
    """The percentile rules' metrics, in catalogue order."""
    from .. import percentile
    out = [Metric(f"percentile.tiers@{s}", f"d100 tiers (fumble..critical) with skill {s}",
                  "probability", "exact", "distribution",
                  lambda r, s=s: _series(percentile.tiers(s, rules=r)), section="percentile")
           for s in SKILLS]
    a, b = CONTEST
    out += [
        Metric(f"percentile.opposed@{a}v{b}", f"opposed roll, skill {a} against {b}",
               "probability", "exact", "distribution",
               lambda r: _series(percentile.opposed(a, b, rules=r)), section="percentile"),
        Metric(f"percentile.differential@{a}v{b}",
               f"special effects won in a differential roll, skill {a} against {b}",
               "probability", "exact", "distribution",
               lambda r: _series(percentile.differential(a, b, rules=r)),
               section="percentile"),
    ]
    return out
