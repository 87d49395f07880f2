"""Benchmark kernel of the campaign sampler (issue 16): the default campaign of 10 fights.

Importing this module registers the kernel ``campaign`` with :mod:`balance.bench` (listed in
``bench.KERNEL_MODULES``): :func:`balance.core.campaign.campaign_sampler` on
``balance.campaign.plan()`` (10 fights, knockout chance 0.25, rescue after ``6+1d8`` seconds at
``-1d6`` HP, Cunning 12, 24 hours of full and light treatment between fights). A trial is one
character's campaign. The floor draws the dice the sampler draws, counted on one block by
:func:`balance.bench.counting.count_draws`; the plain-Python reference is
:func:`fair_python_campaigns`, written from the rules (core rules, dying and critical
injuries; treating injuries), not from the numpy code: ``random.random`` per die, the dice's
totals, the injury table and the chance that an injury outlasts an interval's treatment
precomputed, no numpy in the loop. Tests compare the two statistically.
"""
from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Callable
from functools import partial
from itertools import accumulate
from typing import TYPE_CHECKING, Any

from . import Kernel, register
from ..rules import Rules, resolve

if TYPE_CHECKING:
    from ..core.campaign import CampaignPlan
    from ..dice import Dice

__all__ = ["KERNEL", "fair_python_campaigns"]

#: largest number of equiprobable outcomes of a dice roll the fair loop tables
_TABLE_LIMIT = 1 << 16


def _plan() -> CampaignPlan:
    from ..core.campaign import plan
    return plan()


def _sampler() -> Callable:
    from ..core.campaign import campaign_sampler
    return partial(campaign_sampler, plan=_plan(), rules=resolve(None))


def _python(n: int, rnd: random.Random) -> dict[str, Any]:
    return fair_python_campaigns(n, rnd, _plan())


def _roller(d: Dice, rnd: random.Random) -> Callable[[], int]:
    """One total of ``d`` from one ``rnd.random()``: a table of its equiprobable outcomes
    (plain dice), else its exact distribution's cumulative weights."""
    dist = d.distribution()
    totals = [int(t) for t in dist.totals]
    probs = [float(p) for p in dist.probabilities]
    draw = rnd.random
    outcomes = 1
    for _, count, faces in d.plain_terms:
        outcomes *= faces ** count
    if not d.pools and outcomes <= _TABLE_LIMIT:
        table = [t for t, p in zip(totals, probs) for _ in range(round(p * outcomes))]
        return lambda: table[int(draw() * outcomes)]
    cum = list(accumulate(probs))
    last = len(totals) - 1
    return lambda: totals[min(bisect_right(cum, draw() * cum[-1]), last)]


def _keep_chances(p: CampaignPlan, rules: Rules) -> tuple[list[float], list[float]]:
    """Per table row: the chance that an injury outlasts the interval's attempts of the
    levels that remove injuries, and that its symptoms outlast those of the levels that remove
    symptoms only (core rules, treating injuries: full and light treatment, as
    ``removes_injury`` says; a d20 test, success iff the die is at most C')."""
    die = rules["d20"]["die"]
    rows = rules["injuries"]["table"]
    keep = {True: [1.0] * len(rows), False: [1.0] * len(rows)}
    for level in ("full", "light"):
        t = rules["treatment"][level]
        minutes = p.hours_between * 60
        tried = p.policy in ("both", level)
        attempts = (minutes - t["minutes"]) // t["retry_minutes"] + 1 \
            if tried and minutes >= t["minutes"] else 0
        success = [min(max(p.cunning + row["modifier"] + t["bonus"], 0), die) / die
                   for row in rows]
        removes = bool(t["removes_injury"])
        keep[removes] = [k * (1 - s) ** attempts for k, s in zip(keep[removes], success)]
    return keep[True], keep[False]


def fair_python_campaigns(n: int, rnd: random.Random, plan: CampaignPlan,
                          rules: Rules | None = None) -> dict[str, Any]:
    """``n`` characters' campaigns of ``plan`` in fair plain Python (core rules, dying and
    critical injuries; treating injuries).

    The benchmark's plain-Python reference for ``campaign``, written from the rules: in each
    fight a living character is knocked out with ``plan.knockout_chance``; the rescuer
    arrives after the arrival roll plus the Support action's seconds, and the character
    rolls the rules' ``[injuries] die`` + ``(n + 1)(d + npv + hp_loss_per_second * d)`` with
    ``n`` the injuries it carries: death at ``death_threshold`` or more, or at
    ``automatic_death_seconds`` without a roll (176 and 175 s in the bundled rules), else the
    injury of the table row that holds the total, symptomatic. Between fights each injury is
    removed or its symptoms soothed, as each treatment level's ``removes_injury`` says,
    unless it outlasts every attempt that ends within the interval, a chance per row
    precomputed.

    Parameters
    ----------
    n : int
        Number of characters.
    rnd : random.Random
        The stream.
    plan : CampaignPlan
        The scenario, from :func:`balance.core.campaign.plan`.
    rules : Rules, optional
        Validated rules (default: the bundled rules).

    Returns
    -------
    dict of str to list
        The counts of :func:`balance.core.campaign.campaign_sampler` as lists: ``deaths``
        (per fight), ``carried`` (per fight: living characters by injuries carried, then the
        dead), ``ko_by_wounds`` (knocked out, died; by injuries carried), ``symptomatic``
        (per fight: living characters by symptomatic injuries).

    Examples
    --------
    >>> import random
    >>> import balance as bl
    >>> out = fair_python_campaigns(100, random.Random(1), bl.campaign.plan(fights=3))
    >>> [sum(row) for row in out["carried"]]
    [100, 100, 100]
    """
    rules = resolve(rules)
    inj = rules["injuries"]
    table = inj["table"]
    F, start = plan.fights, plan.start_wounds
    slots = F + start
    threshold, auto, die = inj["death_threshold"], inj["automatic_death_seconds"], inj["die"]
    loss = inj["hp_loss_per_second"]
    row_of = [0] * threshold  # total -> table row (totals below the first row: never rolled)
    for r, row in enumerate(table):
        # the last row runs up to the death threshold, whatever its written high
        high = threshold - 1 if r == len(table) - 1 else min(row["high"], threshold - 1)
        for total in range(row["low"], high + 1):
            row_of[total] = r
    keep_full, keep_light = _keep_chances(plan, rules)
    full, light = any(k < 1 for k in keep_full), any(k < 1 for k in keep_light)
    arrival, negative_hp = _roller(plan.rescue.arrival, rnd), _roller(plan.rescue.negative_hp, rnd)
    charge, chance = plan.rescue.charge_seconds, plan.knockout_chance
    deaths = [0] * F
    carried = [[0] * (slots + 2) for _ in range(F)]
    ko_by_wounds = [[0] * (slots + 1), [0] * (slots + 1)]
    symptoms = [[0] * (slots + 1) for _ in range(F)]
    draw = rnd.random
    for _ in range(n):
        rows, sore = [0] * start, [True] * start  # each injury's row; its symptoms
        for f in range(F):
            if draw() < chance:
                w = len(rows)
                seconds = arrival() + charge
                total = 1 + int(draw() * die) + (w + 1) * (seconds + negative_hp()
                                                           + loss * seconds)
                ko_by_wounds[0][w] += 1
                if seconds >= auto or total >= threshold:
                    ko_by_wounds[1][w] += 1
                    deaths[f] += 1
                    for later in carried[f:]:
                        later[slots + 1] += 1
                    break
                rows.append(row_of[int(total)])
                sore.append(True)
            if rows and (full or light):
                kept, kept_sore = [], []
                for r, s in zip(rows, sore):
                    if full and draw() >= keep_full[r]:
                        continue
                    kept.append(r)
                    kept_sore.append(s and not (light and draw() >= keep_light[r]))
                rows, sore = kept, kept_sore
            carried[f][len(rows)] += 1
            symptoms[f][sum(sore)] += 1
    return {"deaths": deaths, "carried": carried, "ko_by_wounds": ko_by_wounds,
            "symptomatic": symptoms}


KERNEL = register(Kernel(
    "campaign", _sampler, _python,
    "core rules campaign: 10 fights, knockout 0.25, rescue 6+1d8 s at -1d6 HP, Cunning 12, "
    "24 h of full and light treatment between fights", unit="campaign", trials=1 << 22,
    python_trials=30_000, x_floor_target=2.0))  # issue 16: within 2x of drawing what it uses
