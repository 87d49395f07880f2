"""Monte Carlo metrics of fights: the GM guide's encounters (:mod:`balance.fights`) and the
percentile rules' duels (:func:`balance.percentile.duel`).

Fights are the costliest processes of the catalogue, so they run a fifth of the catalogue's
trials (``trials_scale``). Proportions record their counts, means their sum and sum of squares.
"""
from __future__ import annotations

from functools import partial
from typing import Any

from ..rng import RNGLike
from ..rules import Rules
from .guide_metrics import ENCOUNTERS, creature_names
from .metrics import Measurement, Metric, mc_counts, mc_mean, mc_proportion
from .rows import row

__all__ = ["metrics", "DUEL"]

#: the duel: Combat Style 70 against 50, broadsword, no shield or armour (the module's defaults)
DUEL = (70, 50)
#: the duellists' weapon: the row of ``percentile.weapons.table`` at the broadsword's position
WEAPON = "broadsword"
_SCALE = 0.2


def _fight(rules: Rules, trials: int, seed: RNGLike, *, names, what: str, metric: str,
           workers: Any = 1) -> Measurement:
    from ..guide import fights
    res = fights.simulate(creature_names(rules, names, metric), trials=trials, seed=seed,
                          workers=workers, rules=rules).result
    t = res.totals
    if what == "win":
        return mc_proportion(int(t["party_wins"]), res)
    return mc_mean(t["expected_deaths_sum"], t["expected_deaths_sumsq"], res)


def _duel(rules: Rules, trials: int, seed: RNGLike, *, what: str, metric: str,
          workers: Any = 1) -> Measurement:
    """Both duellists wield the weapon at the bundled broadsword's position, given as its
    (damage, size): a renamed or translated weapon (key, English and French) still compares."""
    from .. import percentile
    a, b = DUEL
    w = row(rules, "percentile.weapons.table", WEAPON, metric, column="key")
    weapon = (w["damage"], w["size"])
    sim = percentile.duel(percentile.combatant(a, weapon=weapon, rules=rules),
                          percentile.combatant(b, weapon=weapon, rules=rules), trials=trials,
                          seed=seed, rules=rules, progress=False, workers=workers)
    t = sim.result.totals
    if what == "outcome":
        return mc_counts(t["wins"], ("first wins", "second wins", "timeout"), sim.result)
    return mc_mean(t["rounds_sum"], t["rounds_sumsq"], sim.result)


def metrics() -> list[Metric]:
    """Fight and duel metrics, in catalogue order."""
    out: list[Metric] = []
    for tag, names in ENCOUNTERS.items():
        out.append(Metric(f"fights.party_wins@{tag}",
                          f"P(the default party wins) against {' + '.join(names)}",
                          "probability", "mc", "proportion",
                          partial(_fight, names=names, what="win",
                                  metric=f"fights.party_wins@{tag}"),
                          section="fights, party, bestiary", trials_scale=_SCALE))
    tag, names = next(iter(ENCOUNTERS.items()))
    a, b = DUEL
    out += [
        Metric(f"fights.expected_deaths@{tag}",
               f"expected PC deaths against {' + '.join(names)} when every dying PC is "
               "stabilised at the end", "PCs", "mc", "mean",
               partial(_fight, names=names, what="deaths",
                       metric=f"fights.expected_deaths@{tag}"), section="fights, injuries",
               trials_scale=_SCALE),
        Metric(f"duel.outcome@{a}v{b}", f"percentile duel, Combat Style {a} against {b}: "
               "who wins", "probability", "mc", "distribution",
               partial(_duel, what="outcome", metric=f"duel.outcome@{a}v{b}"),
               section="percentile", trials_scale=_SCALE),
        Metric(f"duel.rounds@{a}v{b}", "mean rounds of the same duel", "rounds", "mc", "mean",
               partial(_duel, what="rounds", metric=f"duel.rounds@{a}v{b}"),
               section="percentile", trials_scale=_SCALE),
    ]
    return out
