"""Monte Carlo metrics of processes: dying and rescue, campaign wound burden (core rules,
dying and critical injuries; treating injuries; time and Reactions).

Built on :func:`balance.rescue.simulate` and :func:`balance.campaign.simulate`; each records
its counts (successes or the count vector) so that two snapshots can be tested against each
other later.
"""
from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from ..labels import agreed
from ..rng import RNGLike
from ..rules import Rules
from .metrics import Measurement, Metric, mc_counts, mc_proportion

__all__ = ["metrics", "RESCUE", "CAMPAIGN"]

#: rescue scenario: the healer arrives after 10+2d20 s (a busy fight), the PC fell to -1d6 HP
RESCUE: dict[str, Any] = {"arrival": "10+2d20", "negative_hp": "1d6", "action_ap": 1}
RESCUE_WOUNDS = (1, 2)
#: campaign scenario: 10 hard fights (knocked out with probability 1/2 in each, rescued as
#: above), treated daily (light and full treatment, Cunning 12)
CAMPAIGN: dict[str, Any] = {"fights": 10, "knockout_chance": 0.5, "arrival": "10+2d20", "negative_hp": "1d6",
            "cunning": 12, "policy": "both"}


def _rescue(rules: Rules, trials: int, seed: RNGLike, *, wounds: int,
            workers: Any = 1) -> Measurement:
    from ..core import rescue
    sim = rescue.simulate(wounds=(wounds,), trials=trials, seed=seed, rules=rules,
                          progress=False, workers=workers, **RESCUE)
    outcome = sim.result.totals["outcome"][0]
    return mc_proportion(int(outcome[-2] + outcome[-1]), sim.result)


def _campaign(rules: Rules, trials: int, seed: RNGLike, *, what: str,
              workers: Any = 1) -> Measurement:
    from ..core import campaign
    sim = campaign.simulate(trials=trials, seed=seed, rules=rules, progress=False,
                            workers=workers, **CAMPAIGN)
    tot = sim.result.totals
    if what == "death":
        return mc_proportion(int(tot["deaths"].sum()), sim.result)
    last = np.asarray(tot["carried"][-1])
    # survivors carrying 0, 1, 2, 3+ unhealed injuries, and the dead
    labels = ("0", "1", "2", "3+", "dead")
    vector = [last[0], last[1], last[2], last[3:-1].sum(), last[-1]]
    return mc_counts(vector, labels, sim.result)


def metrics() -> list[Metric]:
    """The process metrics, in catalogue order."""
    tag = f"{RESCUE['arrival']}s,{RESCUE['negative_hp']}hp"
    out = [Metric(f"rescue.death@{tag},{w}w",
                  agreed(f"P(death) of a PC at -{RESCUE['negative_hp']} HP with {w} wound(s), "
                         f"stabilised by a healer arriving after {RESCUE['arrival']} s", "en"),
                  "probability", "mc", "proportion", partial(_rescue, wounds=w),
                  section="injuries, time")
           for w in RESCUE_WOUNDS]
    c = CAMPAIGN
    out += [
        Metric(f"campaign.death@{c['fights']}fights",
               f"P(a PC dies within {c['fights']} fights), knocked out with probability "
               f"{c['knockout_chance']:g} per fight, treated daily (Cunning {c['cunning']})",
               "probability", "mc", "proportion", partial(_campaign, what="death"),
               section="injuries, treatment", trials_scale=0.25),
        Metric(f"campaign.wounds@{c['fights']}fights",
               f"unhealed injuries carried after fight {c['fights']} (survivors), or dead",
               "probability", "mc", "distribution", partial(_campaign, what="wounds"),
               section="injuries, treatment", trials_scale=0.25),
    ]
    return out
