"""Dying and rescue, as a process (core rules, RULES.md §1.2-1.4).

A creature falls to ``-negative_hp`` HP (fixed, or a damage-overshoot dice expression). A
rescuer arrives after ``arrival`` seconds (fixed or dice), then charges a Support action of
``action_ap`` A.P. (at ``time.ap_per_second``, completing at the end of its last second) or
a heal of ``heal`` HP that takes ``action_ap`` seconds. The creature has spent
``arrival + charge`` seconds dying when the critical-injury roll is made; at
``automatic_death_seconds`` it dies without a roll, whatever the rescuer was doing.

>>> import balance as bl
>>> res = bl.rescue.simulate(arrival="6+1d8", negative_hp="1d6", wounds=[0, 1], trials=20_000, seed=1)
>>> sorted(res.table.columns)[:3]
['ci_high', 'ci_low', 'exact']
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from . import dice, injuries
from .errors import check_choice, check_integer, check_integer_array
from .results import Simulation
from .rules import Rules, resolve

__all__ = ["RescuePlan", "plan", "rescue_sampler", "simulate", "curve", "exact_outcomes"]


@dataclass(frozen=True)
class RescuePlan:
    """A validated rescue scenario. ``arrival`` and ``negative_hp`` are dice expressions
    (a fixed number is the expression ``"6"``); ``charge_seconds`` the action's duration."""

    arrival: dice.Dice
    negative_hp: dice.Dice
    wounds: tuple[int, ...]
    action: str
    action_ap: int
    heal: int | None
    charge_seconds: int


def plan(arrival="0", negative_hp="1", wounds=(0,), *, action: str = "support",
         action_ap: int = 1, heal: int | None = None, rules: Rules | None = None) -> RescuePlan:
    """Validate a rescue scenario (see module docstring). ``action`` is "support" or "heal"."""
    rules = resolve(rules)
    arr = _dice_arg("arrival", arrival, minimum=0)
    npv = _dice_arg("negative_hp", negative_hp, minimum=1)
    w = tuple(int(x) for x in np.atleast_1d(check_integer_array("wounds", wounds, min=0, max=50)))
    if not w:
        raise ValueError("wounds must name at least one wound count, e.g. [0, 1, 2, 3]")
    action = check_choice("action", action, ("support", "heal"))
    ap = check_integer("action_ap", action_ap, min=0, max=1000)
    if action == "heal":
        if heal is None:
            raise ValueError("heal must be given (HP restored, >= 1) when action='heal'")
        heal = check_integer("heal", heal, min=1, max=100_000)
    elif heal is not None:
        raise ValueError("heal is only for action='heal'; a Support action stabilises to 0 HP")
    if action == "support":
        charge = math.ceil(ap / rules["time"]["ap_per_second"])
    else:
        charge = ap  # a heal that takes k seconds
    return RescuePlan(arr, npv, w, action, ap, heal, charge)


def _dice_arg(name: str, value, minimum: int) -> dice.Dice:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        check_integer(name, value, min=minimum)
    try:
        parsed = dice.parse(value)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None
    if parsed.min < minimum:
        raise ValueError(f"{name} must never be below {minimum}; '{parsed}' can give {parsed.min}")
    return parsed


def rescue_sampler(n: int, rng: np.random.Generator, *, plan: RescuePlan, rules: Rules,
                   time_grid: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Monte Carlo kernel. Counts, per wound count, of every outcome (table rows, death on
    the roll, automatic death) and, per arrival second (clipped at the automatic-death
    time), of trials and deaths — the curve against rescue time.

    With ``time_grid`` the arrival is drawn uniformly from the grid instead of ``plan.arrival``
    (to trace a curve). The same draws serve every wound count (common random numbers).
    """
    inj = rules["injuries"]
    auto = inj["automatic_death_seconds"]
    rows = len(inj["table"])
    if time_grid is None:
        arrival = plan.arrival.sample(n, rng)
    else:
        arrival = time_grid[rng.integers(0, time_grid.size, size=n)]
    npv = plan.negative_hp.sample(n, rng)
    face = rng.integers(1, inj["die"] + 1, size=n)
    seconds = arrival + plan.charge_seconds
    automatic = seconds >= auto
    t_bin = np.minimum(arrival, auto)
    nw = len(plan.wounds)
    outcome = np.zeros((nw, rows + 2), dtype=np.int64)
    by_time = np.zeros((nw, auto + 1, 3), dtype=np.int64)  # trials, roll deaths, automatic
    by_time[:, :, 0] = np.bincount(t_bin, minlength=auto + 1)  # same draws for every wound count
    by_time[:, :, 2] = np.bincount(t_bin[automatic], minlength=auto + 1)
    for i, w in enumerate(plan.wounds):
        total = face + injuries.roll_modifier_unchecked(seconds, npv, w, rules)
        code = np.where(automatic, rows + 1, injuries.outcome_rows(total, rules))
        outcome[i] = np.bincount(code, minlength=rows + 2)
        by_time[i, :, 1] = np.bincount(t_bin[code == rows], minlength=auto + 1)
    return {"outcome": outcome, "by_time": by_time}


def exact_outcomes(p: RescuePlan, *, rules: Rules | None = None) -> np.ndarray:
    """Exact outcome probabilities ``(wounds, rows + 2)``: sums the closed form over the
    arrival and negative-HP distributions (one roll per rescue, so it is exact)."""
    rules = resolve(rules)
    arr = p.arrival.distribution()
    npv = p.negative_hp.distribution()
    seconds = arr.index.to_numpy()[:, None] + p.charge_seconds
    weights = arr.to_numpy()[:, None] * npv.to_numpy()[None, :]
    out = []
    auto = seconds >= rules["injuries"]["automatic_death_seconds"]
    for w in p.wounds:
        probs = injuries.injury_probabilities(seconds, npv.index.to_numpy()[None, :], w,
                                              rules=rules)
        death = probs[..., -1]
        split = np.concatenate([probs[..., :-1], np.where(auto, 0, death)[..., None],
                                np.where(auto, death, 0)[..., None]], axis=-1)
        out.append((split * weights[..., None]).sum(axis=(0, 1)))
    return np.array(out)


def _labels(rules: Rules) -> pd.DataFrame:
    table = injuries.injury_table(rules=rules)[["injury", "injury_fr", "modifier"]]
    death, auto = rules["injuries"]["death"], rules["injuries"]["automatic_death"]
    extra = pd.DataFrame({"injury": [f"{death['en']} (roll)", auto["en"]],
                          "injury_fr": [f"{death['fr']} (jet)", auto["fr"]],
                          "modifier": [pd.NA, pd.NA]})
    frame = pd.concat([table, extra], ignore_index=True)
    frame["modifier"] = frame["modifier"].astype("Int64")
    return frame


def simulate(arrival="0", negative_hp="1", wounds=(0, 1, 2, 3), *, action: str = "support",
             action_ap: int = 1, heal: int | None = None, trials: int = 1_000_000, seed=None,
             rules: Rules | None = None, **run_options) -> Simulation:
    """Simulate a rescue scenario.

    Returns a :class:`~balance.results.Simulation`:

    - ``.table``: per wound count, every outcome (each injury, death on the roll, automatic
      death) with probability, ci_low, ci_high, se and the ``exact`` value;
    - ``.extra["death"]``: per wound count, P(death) split into ``roll`` and ``automatic`` and
      their total, with intervals and the exact value;
    - ``.extra["by_time"]``: per wound count and arrival second, P(death) with its Wilson band
      (where the arrival distribution puts trials).
    """
    from . import montecarlo

    rules = resolve(rules)
    p = plan(arrival, negative_hp, wounds, action=action, action_ap=action_ap, heal=heal,
             rules=rules)
    sampler = partial(rescue_sampler, plan=p, rules=rules)
    res = montecarlo.run(sampler, trials, seed=seed, rules=rules, label="rescue", **run_options)
    return _summarise(res, p, rules)


def curve(times=range(0, 176, 5), negative_hp="1", wounds=(0, 1, 2, 3), *,
          action: str = "support", action_ap: int = 1, heal: int | None = None,
          trials: int = 1_000_000, seed=None, rules: Rules | None = None,
          **run_options) -> pd.DataFrame:
    """Death probability against rescue (arrival) time, with its 95 % band, for each wound
    count, in one call. Arrival times are drawn uniformly from ``times``; the ``exact``
    column is the closed form, for checking.

    Returns a tidy DataFrame: wounds, arrival, trials, deaths, probability, ci_low, ci_high,
    se, exact.
    """
    from . import montecarlo

    rules = resolve(rules)
    wall = rules["injuries"]["automatic_death_seconds"]
    grid = np.unique(check_integer_array("times", times, min=0, max=max(10_000, wall)))
    if grid.size == 0:
        raise ValueError("times must hold at least one arrival time in seconds")
    p = plan(0, negative_hp, wounds, action=action, action_ap=action_ap, heal=heal, rules=rules)
    sampler = partial(rescue_sampler, plan=p, rules=rules, time_grid=grid)
    res = montecarlo.run(sampler, trials, seed=seed, rules=rules, label="rescue curve",
                         **run_options)
    frame = _by_time(res, p, rules)
    return frame[frame["arrival"].isin(np.minimum(grid, rules["injuries"]["automatic_death_seconds"]))]


def _by_time(res, p: RescuePlan, rules: Rules) -> pd.DataFrame:
    from . import montecarlo

    by_time = res.totals["by_time"]
    auto = rules["injuries"]["automatic_death_seconds"]
    frames = []
    npv = p.negative_hp.distribution()
    for i, w in enumerate(p.wounds):
        trials_t = by_time[i, :, 0]
        deaths = by_time[i, :, 1] + by_time[i, :, 2]
        seen = np.flatnonzero(trials_t)
        table = montecarlo.proportion_table(deaths[seen], trials_t[seen],
                                            index=pd.Index(seen, name="arrival"))
        exact = (injuries.death_probability(seen[:, None] + p.charge_seconds,
                                            npv.index.to_numpy()[None, :], w, rules=rules)
                 * npv.to_numpy()[None, :]).sum(axis=1)
        table = table.rename(columns={"estimate": "probability"}).reset_index()
        table.insert(0, "wounds", w)
        table.insert(2, "deaths", deaths[seen])
        table["exact"] = exact
        frames.append(table)
    out = pd.concat(frames, ignore_index=True)
    out.attrs["automatic_death_seconds"] = auto
    return out


def _summarise(res, p: RescuePlan, rules: Rules) -> Simulation:
    from . import montecarlo

    labels = _labels(rules)
    exact = exact_outcomes(p, rules=rules)
    outcome = res.totals["outcome"]
    frames, deaths = [], []
    for i, w in enumerate(p.wounds):
        table = montecarlo.proportion_table(outcome[i], res.trials).reset_index(drop=True)
        table = pd.concat([labels, table[["estimate", "ci_low", "ci_high", "se"]]], axis=1)
        table = table.rename(columns={"estimate": "probability"})
        table.insert(0, "wounds", w)
        table["exact"] = exact[i]
        frames.append(table)
        roll, automatic = outcome[i, -2], outcome[i, -1]
        d = montecarlo.proportion_table(
            np.array([roll, automatic, roll + automatic]), res.trials,
            index=pd.Index(["roll", "automatic", "total"], name="death")).reset_index()
        d.insert(0, "wounds", w)
        d["exact"] = [exact[i, -2], exact[i, -1], exact[i, -2] + exact[i, -1]]
        deaths.append(d.rename(columns={"estimate": "probability"}))
    return Simulation(table=pd.concat(frames, ignore_index=True), result=res,
                      extra={"death": pd.concat(deaths, ignore_index=True),
                             "by_time": _by_time(res, p, rules)})
