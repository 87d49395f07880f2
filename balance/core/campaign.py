"""Campaign wound burden: many fights, knockouts, rescues and treatment in between
(core rules, dying and critical injuries; treating injuries).

Each simulated character goes through ``fights`` fights. In each it is knocked out with
probability ``knockout_chance``; a knocked-out character falls to ``-negative_hp`` HP, is
rescued as in :mod:`balance.rescue` and rolls on the critical-injury table with its current
count of unhealed injuries. Death is final. Between fights, ``hours_between`` hours of
treatment under a policy: full treatment (removes the injury) and light treatment (removes
symptoms only; the injury still counts), each injury getting the attempts that end within the
interval as :func:`balance.treatment.attempts_within` counts them (one starts every
``retry_minutes``).
The Cunning test of an attempt takes the injury's row modifier and the level's bonus.

>>> import balance as bl
>>> res = bl.campaign.simulate(fights=5, knockout_chance=0.3, trials=20_000, seed=1)
>>> list(res.table.columns)[:3]
['fight', 'deaths', 'probability']
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from . import d20, injuries
from ..errors import check_choice, check_integer, check_number
from .rescue import RescuePlan, plan as rescue_plan
from ..montecarlo.results import Simulation
from ..rng import RNGLike
from ..rules import Rules, resolve
from .treatment import attempts_within
from ..dice.sampling import draw_dtype

__all__ = ["CampaignPlan", "plan", "campaign_sampler", "simulate", "POLICIES"]

POLICIES = ("both", "full", "light", "none")
#: injury keys are 32-bit while ``(characters + 1) << key bits`` stays below this (else 64-bit)
KEY32_LIMIT = 2**31


@dataclass(frozen=True)
class CampaignPlan:
    fights: int
    knockout_chance: float
    rescue: RescuePlan
    cunning: int
    hours_between: int
    policy: str
    start_wounds: int


def plan(fights: int = 10, knockout_chance: float = 0.25, *, negative_hp="1d6",
         arrival="6+1d8", action_ap: int = 1, cunning: int = 12, hours_between: int = 24,
         policy: str = "both", start_wounds: int = 0,
         rules: Rules | None = None) -> CampaignPlan:
    """Validate a campaign scenario (core rules, dying and critical injuries; treating injuries).

    Parameters
    ----------
    fights : int, default 10
        Fights in the campaign (1..500).
    knockout_chance : float, default 0.25
        Chance that a living character is knocked out in a fight (0..1).
    negative_hp : str or int, default "1d6"
        HP below zero when knocked out, a number or dice expression.
    arrival : str or int, default "6+1d8"
        Seconds until the rescuer arrives, a number or dice expression.
    action_ap : int, default 1
        A.P. of the rescuer's Support action.
    cunning : int, default 12
        The healer's Cunning between fights (-100..100).
    hours_between : int, default 24
        Hours of treatment between fights (0..8,760).
    policy : {"both", "full", "light", "none"}, default "both"
        Which treatment attempts are made: full ones (remove the injury), light ones (remove
        symptoms only; each level as its ``[treatment.*] removes_injury`` says), both or none.
    start_wounds : int, default 0
        Unhealed injuries carried into the first fight (0..50).
    rules : Rules, optional
        Rules to read ``[injuries]``, ``[treatment]`` and ``[time]`` from (default: the bundled rules).

    Returns
    -------
    CampaignPlan
        The validated scenario, with its rescue plan.

    Raises
    ------
    ValueError
        An argument outside its range (naming it), an unknown policy, or a bad dice expression.

    Examples
    --------
    >>> import balance as bl
    >>> p = bl.campaign.plan(fights=5, knockout_chance=0.3)
    >>> p.fights, p.policy, p.rescue.charge_seconds
    (5, 'both', 1)
    """
    rules = resolve(rules)
    return CampaignPlan(
        fights=check_integer("fights", fights, min=1, max=500),
        knockout_chance=check_number("knockout_chance", knockout_chance, min=0, max=1),
        rescue=rescue_plan(arrival, negative_hp, (0,), action="support", action_ap=action_ap,
                           rules=rules),
        cunning=check_integer("cunning", cunning, min=-100, max=100),
        hours_between=check_integer("hours_between", hours_between, min=0, max=24 * 365),
        policy=check_choice("policy", policy, POLICIES),
        start_wounds=check_integer("start_wounds", start_wounds, min=0, max=50),
    )


def _survival(p: CampaignPlan, rules: Rules) -> tuple[np.ndarray, bool, np.ndarray, bool]:
    """Per table row, the chance that an injury outlasts the interval's attempts of the levels
    that remove it (``[treatment.*] removes_injury``; full treatment in the core rules), and
    that its symptoms outlast those of the levels that remove symptoms only (light treatment);
    each with whether any such attempt is made. The levels the policy uses get the attempts
    that end within the interval."""
    mods = injuries.injury_table(rules=rules)["modifier"].to_numpy()
    minutes = p.hours_between * 60
    keep = {True: np.ones(mods.size), False: np.ones(mods.size)}
    tried = {True: False, False: False}
    for level in ("full", "light"):
        row = rules["treatment"][level]
        tries = int(attempts_within(minutes, level, rules=rules)) \
            if p.policy in ("both", level) else 0
        chance = np.atleast_1d(d20.success_chance(p.cunning + mods + row["bonus"], rules=rules))
        removes = bool(row["removes_injury"])
        keep[removes] = keep[removes] * (1 - chance) ** tries
        tried[removes] = tried[removes] or tries > 0
    return keep[True], tried[True], keep[False], tried[False]


def campaign_sampler(n: int, rng: np.random.Generator, *, plan: CampaignPlan,
                     rules: Rules) -> dict[str, np.ndarray]:
    """Monte Carlo kernel of a campaign, vectorised over characters, looping over fights only (core rules, dying and critical injuries; treating injuries).

    Accumulates: deaths per fight; the histogram of unhealed injuries carried out of each
    fight's treatment interval (last bin = dead); knockouts and deaths by injuries carried
    (how much deadlier a knockout becomes); symptomatic injuries carried.

    Only what can change is drawn: the knockout test for living characters, the rescue and
    the injury roll for the knocked out, and the treatment attempts for the injuries living
    characters carry (a dead character's injuries leave with it).

    Parameters
    ----------
    n : int
        Number of characters.
    rng : numpy.random.Generator
        The stream the engine hands this block.
    plan : CampaignPlan
        The scenario, from :func:`plan`.
    rules : Rules
        Validated rules.

    Returns
    -------
    dict of str to numpy.ndarray
        ``deaths`` (per fight), ``carried`` (fights x wounds 0..slots, then dead),
        ``ko_by_wounds`` (knocked out, died; by wounds carried), ``symptomatic`` (fights x
        symptomatic injuries), int64 counts.

    Raises
    ------
    ValueError
        Only from numpy for a negative ``n``, and for a plan of more than 1,000 fights or
        1,023 injury slots, which :func:`plan` does not make (it validates the scenario).

    Examples
    --------
    >>> import numpy as np
    >>> import balance as bl
    >>> out = bl.campaign.campaign_sampler(1_000, np.random.default_rng(1),
    ...                                    plan=bl.campaign.plan(fights=5), rules=bl.load_rules())
    >>> out["carried"].shape, int(out["carried"][0].sum())
    ((5, 7), 1000)
    """
    from . import _campaign_loop as loop

    inj = rules["injuries"]
    rows = len(inj["table"])
    F = plan.fights
    slots = F + plan.start_wounds
    if F > 1000 or slots > 1023:  # what soothe_and_count's scratch holds (plan() allows less)
        raise ValueError(f"a campaign of at most 1,000 fights and 1,023 injuries, got {F} "
                         f"fights and {slots} injury slots")
    keep_injury, removing, keep_symptoms, soothing = _survival(plan, rules)
    # The injuries living characters carry, one integer each, in the order they were taken
    # (the order in which the treatment draws go to them): character, table row, symptomatic
    # bit. The dice are drawn here with numpy; the bookkeeping between two draws is one
    # compiled pass (:mod:`._campaign_loop`) that follows the knocked out and the injuries
    # carried, not a table of every character's slots.
    row_bits = rows.bit_length()
    owner_shift = row_bits + 1                          # character = held >> owner_shift
    low = (1 << owner_shift) - 1                        # row and symptom bits
    # the chance that an injury of each row survives the interval's attempts, looked up by
    # the low bits, (row << 1) | symptomatic
    injury_kept, symptom_kept = (
        np.repeat(np.pad(keep, (0, (1 << row_bits) - rows), constant_values=1), 2)
        for keep in (keep_injury, keep_symptoms))
    # int32 keys when they fit: half the bytes to move
    key: type[np.signedinteger] = np.int32 if (n + 1) << owner_shift < KEY32_LIMIT else np.int64
    # room for what a character can carry on average, grown when a fight needs more
    held = np.empty(max(n * (plan.start_wounds + 1), 16), dtype=key)
    m = n * plan.start_wounds
    held[:m] = np.repeat((np.arange(n, dtype=np.int64) << owner_shift) | 1, plan.start_wounds)
    living = np.arange(n, dtype=key)
    count = np.full(n, plan.start_wounds, dtype=np.int16)  # injuries carried, by character
    scratch = np.zeros(n, dtype=np.int32)                 # of soothe_and_count
    deaths = np.zeros(F, dtype=np.int64)
    carried = np.zeros((F, slots + 2), dtype=np.int64)     # 0..slots wounds, last: dead
    ko_by_wounds = np.zeros((2, slots + 1), dtype=np.int64)  # knocked out / died, by wounds
    symptoms = np.zeros((F, slots + 1), dtype=np.int64)
    auto = inj["automatic_death_seconds"]
    # roll totals to outcomes, the last entry (every total from the death threshold up) death
    lut = injuries.outcome_rows(np.arange(inj["death_threshold"] + 1), rules)
    charge = plan.rescue.charge_seconds
    face_type = draw_dtype(inj["die"])
    nothing = np.empty(0)
    for f in range(F):
        ko, who, wounds = loop.knockouts(rng.random(living.size), plan.knockout_chance,
                                         living, count)
        # the rescue's dice as indices into their tables of totals (read in the compiled pass)
        arrive, arrival = plan.rescue.arrival.sample_indices(ko.size, rng)
        hurt, negative_hp = plan.rescue.negative_hp.sample_indices(ko.size, rng)
        face = rng.integers(1, inj["die"], size=ko.size, dtype=face_type, endpoint=True)
        code, dead = loop.injury_rolls(face, arrive, arrival + charge, hurt, negative_hp, wounds,
                                       inj["hp_loss_per_second"], auto, lut, ko, ko_by_wounds)
        deaths[f] = dead.size
        if dead.size:
            living = np.delete(living, dead)
        # the dead leave with their injuries; the others' new injuries go in at the end
        if held.size < m + ko.size:  # room for one new injury each knocked-out character
            grown = np.empty(2 * (m + ko.size), dtype=key)
            grown[:m] = held[:m]
            held = grown
        m = loop.after_fight(held, m, who, code, rows, count, owner_shift)
        # treatment interval after the fight: one draw per injury a living character carries
        if removing:
            kept, sore_count = loop.treated(held[:m], count, rng.random(m), injury_kept, low,
                                            owner_shift)
            m = kept.size
        else:
            sore_count = int(np.count_nonzero(held[:m] & 1))
        u = rng.random(sore_count) if soothing else nothing
        carried[f, :slots + 1], symptoms[f] = loop.soothe_and_count(
            held[:m], u, symptom_kept, soothing, owner_shift, scratch, f, living.size, slots)
        carried[f, slots + 1] = n - living.size
    return {"deaths": deaths, "carried": carried, "ko_by_wounds": ko_by_wounds,
            "symptomatic": symptoms}


def simulate(fights: int = 10, knockout_chance: float = 0.25, *, negative_hp="1d6",
             arrival="6+1d8", action_ap: int = 1, cunning: int = 12, hours_between: int = 24,
             policy: str = "both", start_wounds: int = 0, trials: int = 1_000_000, seed: RNGLike = None,
             rules: Rules | None = None, **run_options) -> Simulation:
    """Simulate a campaign's wound burden (core rules, dying and critical injuries; treating injuries).

    Parameters
    ----------
    fights : int, default 10
        Fights in the campaign (1..500).
    knockout_chance : float, default 0.25
        Chance that a living character is knocked out in a fight (0..1).
    negative_hp : str or int, default "1d6"
        HP below zero when knocked out, a number or dice expression.
    arrival : str or int, default "6+1d8"
        Seconds until the rescuer arrives, a number or dice expression.
    action_ap : int, default 1
        A.P. of the rescuer's Support action.
    cunning : int, default 12
        The healer's Cunning between fights (-100..100).
    hours_between : int, default 24
        Hours of treatment between fights (0..8,760).
    policy : {"both", "full", "light", "none"}, default "both"
        Which treatment attempts are made: full ones (remove the injury), light ones (remove
        symptoms only; each level as its ``[treatment.*] removes_injury`` says), both or none.
    start_wounds : int, default 0
        Unhealed injuries carried into the first fight (0..50).
    trials : int, default 1,000,000
        Characters simulated (within the trials budget).
    seed : int, SeedSequence, Generator or None
        Seed of the run (``None``: fresh entropy, recorded in the result).
    rules : Rules, optional
        Rules to read ``[injuries]``, ``[treatment]`` and ``[time]`` from (default: the bundled rules).
    **run_options
        Passed to ``balance.montecarlo.run`` (``workers``, ``chunk_size``, ``progress``).

    Returns
    -------
    Simulation
        ``.table``: cumulative death probability after fights 1..N, with its Wilson band
        (fight, deaths, probability, ci_low, ci_high, se, trials); ``.extra["wounds"]``: per
        fight, the distribution of unhealed injuries carried into the next fight (``wounds`` =
        number, or ``"dead"``), with intervals; ``.extra["knockout_risk"]``: P(death | knocked
        out carrying n injuries), with intervals; ``.extra["mean_wounds"]``: mean unhealed
        injuries among survivors after each fight.

    Raises
    ------
    ValueError
        An argument outside its range (naming it), an unknown policy, or a bad dice expression.
        Also ``trials`` outside the trials budget.

    Examples
    --------
    >>> import balance as bl
    >>> res = bl.campaign.simulate(fights=5, knockout_chance=0.3, trials=20_000, seed=1)
    >>> list(res.table.columns)[:3]
    ['fight', 'deaths', 'probability']
    >>> bool(res.table.probability.is_monotonic_increasing)
    True
    """
    from .. import montecarlo

    rules = resolve(rules)
    p = plan(fights, knockout_chance, negative_hp=negative_hp, arrival=arrival,
             action_ap=action_ap, cunning=cunning, hours_between=hours_between, policy=policy,
             start_wounds=start_wounds, rules=rules)
    res = montecarlo.run(partial(campaign_sampler, plan=p, rules=rules), trials, seed=seed,
                         rules=rules, label="campaign", **run_options)
    tot = res.totals
    fight = pd.Index(np.arange(1, p.fights + 1), name="fight")
    cumulative = np.cumsum(tot["deaths"])
    table = montecarlo.proportion_table(cumulative, res.trials, index=fight).reset_index()
    table.insert(1, "deaths", cumulative)
    table = table.rename(columns={"estimate": "probability"})
    slots = tot["carried"].shape[1] - 2
    labels = [str(i) for i in range(slots + 1)] + ["dead"]
    wounds = montecarlo.proportion_table(
        tot["carried"], res.trials,
        index=pd.MultiIndex.from_product([fight, labels], names=["fight", "wounds"]))
    wounds = wounds.rename(columns={"estimate": "probability"}).reset_index()
    ko, ko_died = tot["ko_by_wounds"]
    seen = np.flatnonzero(ko)
    risk = montecarlo.proportion_table(ko_died[seen], ko[seen],
                                       index=pd.Index(seen, name="wounds_carried"))
    risk = risk.rename(columns={"estimate": "probability"}).reset_index()
    alive_counts = tot["carried"][:, :-1]
    mean = (alive_counts * np.arange(slots + 1)).sum(axis=1) / np.maximum(alive_counts.sum(axis=1), 1)
    mean_wounds = pd.DataFrame({"fight": fight, "mean_wounds": mean,
                                "survivors": alive_counts.sum(axis=1)})
    return Simulation(table=table, result=res,
                      extra={"wounds": wounds, "knockout_risk": risk, "mean_wounds": mean_wounds})
