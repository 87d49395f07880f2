"""Metrics of the percentile rules: d100 tiers, opposed and differential rolls;
Passions, casting while hurt, magic-point sources; and duels with surprise, a charge and the
special-effect policies.

Exact from :mod:`balance.percentile`, except the duels (Monte Carlo, a fifth of the trials).
"""
from __future__ import annotations

from functools import partial
from typing import Any

from ..rng import RNGLike
from ..rules import Rules
from .fight_metrics import WEAPON
from .metrics import Measurement, Metric, distribution, mc_proportion
from .rows import row

__all__ = ["metrics"]

SKILLS = (30, 65, 120)
CONTEST = (60, 40)
#: casting while hurt: skill, Willpower (percentile rules, casting while hurt)
CASTING = (60, 50)
#: the duel of the situations: Combat Style 70 against 50, the bundled defaults
DUEL = (70, 50)
DUEL_SITUATIONS: dict[str, dict[str, Any]] = {"surprise": {"surprise": "second"}, "surprised": {"surprise": "first"},
                   "charge": {"charge": "first"}, "no_effects": {"policies": "none"}}
_SCALE = 0.2


def _duel(rules: Rules, trials: int, seed: RNGLike, *, situation: str,
          workers: Any = 1) -> Measurement:
    """P(first wins) of the 70 vs 50 duel in one situation (percentile rules, combat; surprise and
    special effects). Both wield the
    weapon at the bundled broadsword's position, given as its (damage, size), so that renamed
    or translated weapons still compare (as :mod:`.fight_metrics`)."""
    from .. import percentile
    a, b = DUEL
    w = row(rules, "percentile.weapons.table", WEAPON,
            f"duel.first_wins@{a}v{b},{situation}", column="key")
    first, second = (percentile.combatant(s, weapon=(w["damage"], w["size"]), rules=rules)
                     for s in DUEL)
    sim = percentile.duel(first, second, trials=trials, seed=seed, rules=rules, progress=False,
                          workers=workers, **DUEL_SITUATIONS[situation])
    return mc_proportion(int(sim.result.totals["wins"][0]), sim.result)


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
        Metric("percentile.passion@70", "Passion roll at 70 % (tiers)", "probability", "exact",
               "distribution", lambda r: _series(percentile.passion(70, rules=r)),
               section="percentile.roll"),
    ]
    skill, will = CASTING
    for wound in ("minor", "serious"):
        out.append(Metric(
            f"percentile.casting@{skill},{wound},wp{will}",
            f"P(a successful cast) at {skill} % with a {wound} wound and Willpower {will} %",
            "probability", "exact", "scalar",
            lambda r, w=wound: Measurement(percentile.casting_chance(skill, wound=w,
                                                                     willpower=will, rules=r)),
            section="percentile.magic"))
    out.append(Metric(
        "percentile.mp_best@self4,large", "magic points of a period: the best of own 4 MP and "
        "a large sacrifice (2d6)", "probability", "exact", "distribution",
        lambda r: _series(percentile.best_source_distribution(
            {"self": 4, "sacrifice": "large"}, rules=r)["probability"]),
        section="percentile.magic.sacrifice"))
    da, db = DUEL          # (a, b stay the contest's: the lambdas above read them)
    for tag in DUEL_SITUATIONS:
        out.append(Metric(
            f"duel.first_wins@{da}v{db},{tag}",
            f"percentile duel {da} against {db}: P(first wins) with {tag.replace('_', ' ')}",
            "probability", "mc", "proportion", partial(_duel, situation=tag),
            section="percentile.special_effects, percentile.surprise", trials_scale=_SCALE))
    return out
