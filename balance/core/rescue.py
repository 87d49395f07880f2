"""Dying and rescue, as a process (core rules, dying and critical injuries; time, Reactions and Complex Actions).

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

from .. import dice
from . import injuries
from ..errors import check_choice, check_integer, check_integer_array
from ..montecarlo.results import Simulation
from ..rng import RNGLike
from ..rules import Rules, resolve

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
    """Validate a rescue scenario (core rules, dying and critical injuries; time, Reactions and Complex Actions).

    Parameters
    ----------
    arrival : str or int, default "0"
        Seconds until the rescuer arrives: a whole number or a dice expression (``"5+1d9"``),
        never below 0.
    negative_hp : str or int, default "1"
        HP below zero, as a positive number or a dice expression (``"1d6"``), never below 1.
    wounds : int or sequence of int
        Wound counts to answer for (each 0..50), e.g. ``[0, 1, 2, 3]``.
    action : {"support", "heal"}, default "support"
        A Support action (stabilises at 0 HP) or a heal.
    action_ap : int, default 1
        A.P. of the Support action (charged at ``time.ap_per_second``), or seconds the heal takes.
    heal : int, optional
        HP restored by a heal (required for, and only for, ``action="heal"``).
    rules : Rules, optional
        Rules to read ``[injuries]`` and ``[time]`` from (default: the bundled rules).

    Returns
    -------
    RescuePlan
        The parsed dice, the wound counts and the seconds the action charges.

    Raises
    ------
    ValueError
        A bad dice expression, an arrival that can be below 0 or negative HP below 1, no wound
        count, an unknown action, a heal missing or given with a Support action, naming the
        argument.

    Examples
    --------
    >>> import balance as bl
    >>> p = bl.rescue.plan("5+1d9", "1d6", [0, 1])
    >>> p.wounds, p.charge_seconds, str(p.arrival)
    ((0, 1), 1, '1d9+5')
    """
    rules = resolve(rules)
    arr = _dice_arg("arrival", arrival, minimum=0)
    npv = _dice_arg("negative_hp", negative_hp, minimum=1)
    # a count given twice is answered once (at most 51 counts, whatever the list's length)
    w = tuple(dict.fromkeys(int(x) for x in np.atleast_1d(
        check_integer_array("wounds", wounds, min=0, max=50))))
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
    """Monte Carlo kernel of a rescue (core rules, dying and critical injuries; time, Reactions and Complex Actions).

    Counts, per wound count, of every outcome (table rows, death on the roll, automatic death)
    and, per arrival second (clipped at the automatic-death time), of trials and deaths: the curve
    against rescue time. The same draws serve every wound count (common random numbers).

    Parameters
    ----------
    n : int
        Number of rescues.
    rng : numpy.random.Generator
        The stream the engine hands this block.
    plan : RescuePlan
        The scenario, from :func:`plan`.
    rules : Rules
        Validated rules.
    time_grid : numpy.ndarray, optional
        Draw the arrival uniformly from these seconds instead of ``plan.arrival`` (to trace a
        curve).

    Returns
    -------
    dict of str to numpy.ndarray
        ``outcome`` ``(wounds, rows + 2)`` and ``by_time`` ``(wounds, automatic_death_seconds + 1,
        3)`` (trials, deaths on the roll, automatic deaths), int64 counts.

    Raises
    ------
    ValueError
        Only from numpy for a negative ``n``; the arguments are validated by :func:`plan`.

    Examples
    --------
    >>> import numpy as np
    >>> import balance as bl
    >>> out = bl.rescue.rescue_sampler(1_000, np.random.default_rng(1),
    ...                                plan=bl.rescue.plan("5+1d9", "1d6", [0, 1]),
    ...                                rules=bl.load_rules())
    >>> out["outcome"].shape, int(out["outcome"][0].sum())
    ((2, 31), 1000)
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
    """Exact outcome probabilities of a rescue, one roll per rescue (core rules, dying and critical injuries; time, Reactions and Complex Actions).

    The roll depends on the arrival and the negative HP only through
    ``s = (1 + hp_loss_per_second) x seconds + negative_hp`` (``k = (wounds + 1) s``), so the
    distribution of ``s`` is a 1-D convolution of the two distributions (never their product
    grid), cut at the death threshold; the roll ``1d{die} + k`` then lands in each row by
    cumulative sums. Arrivals that reach ``automatic_death_seconds`` die without a roll.

    Parameters
    ----------
    p : RescuePlan
        The scenario, from :func:`plan`.
    rules : Rules, optional
        Rules to read ``[injuries]`` and ``[time]`` from (default: the bundled rules).

    Returns
    -------
    numpy.ndarray
        ``(wounds, rows + 2)``: each table row, death on the roll, automatic death; rows sum to 1.

    Raises
    ------
    ValueError
        A distribution over the dice module's work budget.

    Examples
    --------
    >>> import balance as bl
    >>> probs = bl.rescue.exact_outcomes(bl.rescue.plan("5+1d9", "1d6", [0, 1]))
    >>> probs.shape, probs.sum(axis=1).round(12).tolist()
    ((2, 31), [1.0, 1.0])
    """
    rules = resolve(rules)
    inj = rules["injuries"]
    arr, npv = p.arrival.distribution(), p.negative_hp.distribution()
    seconds = arr.totals + p.charge_seconds
    auto = seconds >= inj["automatic_death_seconds"]
    weight = arr.probabilities
    rows = len(inj["table"])
    out = np.zeros((len(p.wounds), rows + 2))
    out[:, -1] = weight[auto].sum()
    if auto.all():
        return out
    scale = 1 + inj["hp_loss_per_second"]
    for i, w in enumerate(p.wounds):
        k_pmf = _modifier_pmf(seconds[~auto] * scale, weight[~auto], npv, w + 1,
                              inj["death_threshold"])
        out[i, :rows], out[i, rows] = _roll_outcomes(k_pmf, rules)
    return out


def _modifier_pmf(shift: np.ndarray, weight: np.ndarray, npv: dice.Distribution, factor: int,
                  threshold: int) -> np.ndarray:
    """Probabilities of the roll modifier ``k = factor x (shift + negative_hp)`` over
    ``k = 0 .. threshold``, every ``k >= threshold`` (certain death) lumped in the last."""
    cut = -(-threshold // factor)  # s >= cut gives k >= threshold
    a = np.bincount(np.minimum(shift, cut), weights=weight, minlength=cut + 1)[:cut]
    b = np.bincount(np.minimum(npv.totals, cut), weights=npv.probabilities,
                    minlength=cut + 1)[:cut]
    s_pmf = dice.convolve(a, b)[:cut]
    k_pmf = np.zeros(threshold + 1)
    k_pmf[np.arange(cut) * factor] = s_pmf
    k_pmf[threshold] = max(0.0, weight.sum() - s_pmf.sum())
    return k_pmf


def _death_by_arrival(times: np.ndarray, p: RescuePlan, w: int, rules: Rules) -> np.ndarray:
    """Exact P(death) for a rescuer arriving at each of ``times`` (seconds), over the
    negative-HP distribution: ``G(x) = sum_v P(v) death_on_roll((w + 1)(x + v))`` with
    ``x = (1 + hp_loss_per_second)(time + charge)``, for every ``x`` at once as one 1-D
    correlation (never a times x negative-HP grid); 1 from the automatic death on."""
    inj = rules["injuries"]
    seconds = np.asarray(times, np.int64) + p.charge_seconds
    out = np.ones(seconds.size)
    factor, threshold = w + 1, inj["death_threshold"]
    cut = -(-threshold // factor)  # s >= cut: certain death on the roll
    x = seconds * (1 + inj["hp_loss_per_second"])
    rolled = (seconds < inj["automatic_death_seconds"]) & (x < cut)
    if not rolled.any():
        return out
    npv = p.negative_hp.distribution()
    b = np.bincount(np.minimum(npv.totals, cut), weights=npv.probabilities,
                    minlength=cut + 1)  # b[cut]: every total of cut or more
    e = injuries.death_on_roll(factor * np.minimum(np.arange(2 * cut + 1), cut), rules)
    g = dice.convolve(e, b[::-1])  # g[x + cut] = sum_v b[v] e[x + v]
    out[rolled] = np.clip(g[x[rolled] + cut], 0.0, 1.0)
    return out


def _roll_outcomes(k_pmf: np.ndarray, rules: Rules) -> tuple[np.ndarray, float]:
    """``(P(each table row), P(death on the roll))`` of ``1d{die} + k`` for ``k`` distributed
    as ``k_pmf`` over ``0 .. death_threshold`` (core rules, critical injuries), by cumulative sums."""
    inj = rules["injuries"]
    die, threshold = inj["die"], inj["death_threshold"]
    cum = np.concatenate([[0.0], np.cumsum(k_pmf)])  # cum[j] = P(k < j)
    totals = np.arange(threshold)  # a total t < threshold: some face f in 1..die has k = t - f
    total_pmf = (cum[np.clip(totals, 0, None)] - cum[np.clip(totals - die, 0, None)]) / die
    at_most = np.concatenate([[0.0], np.cumsum(total_pmf)])  # at_most[j] = P(total < j)
    low, high = injuries._bounds(rules)
    rows = at_most[np.clip(high + 1, 0, threshold)] - at_most[np.clip(low, 0, threshold)]
    death = float(k_pmf @ injuries.death_on_roll(np.arange(threshold + 1), rules))
    return np.clip(rows, 0.0, None), death


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
             action_ap: int = 1, heal: int | None = None, trials: int = 1_000_000, seed: RNGLike = None,
             rules: Rules | None = None, **run_options) -> Simulation:
    """Simulate a rescue scenario (core rules, dying and critical injuries; time, Reactions and Complex Actions).

    Parameters
    ----------
    arrival : str or int, default "0"
        Seconds until the rescuer arrives: a whole number or a dice expression (``"5+1d9"``),
        never below 0.
    negative_hp : str or int, default "1"
        HP below zero, as a positive number or a dice expression (``"1d6"``), never below 1.
    wounds : int or sequence of int
        Wound counts to answer for (each 0..50), e.g. ``[0, 1, 2, 3]``.
    action : {"support", "heal"}, default "support"
        A Support action (stabilises at 0 HP) or a heal.
    action_ap : int, default 1
        A.P. of the Support action (charged at ``time.ap_per_second``), or seconds the heal takes.
    heal : int, optional
        HP restored by a heal (required for, and only for, ``action="heal"``).
    trials : int, default 1,000,000
        Number of rescues (within the trials budget).
    seed : int, SeedSequence, Generator or None
        Seed of the run (``None``: fresh entropy, recorded in the result).
    rules : Rules, optional
        Rules to read ``[injuries]`` and ``[time]`` from (default: the bundled rules).
    **run_options
        Passed to ``balance.montecarlo.run`` (``workers``, ``chunk_size``, ``progress``).

    Returns
    -------
    Simulation
        ``.table``: per wound count, every outcome (each injury, death on the roll, automatic
        death) with probability, ci_low, ci_high, se and the ``exact`` value;
        ``.extra["death"]``: per wound count, P(death) split into ``roll`` and ``automatic`` and
        their total, with intervals and the exact value; ``.extra["by_time"]``: per wound count
        and arrival second, P(death) with its Wilson band (where the arrival puts trials).

    Raises
    ------
    ValueError
        A bad dice expression, an arrival that can be below 0 or negative HP below 1, no wound
        count, an unknown action, a heal missing or given with a Support action, naming the
        argument.
        Also ``trials`` outside the trials budget.

    Examples
    --------
    >>> import balance as bl
    >>> res = bl.rescue.simulate(arrival="6+1d8", negative_hp="1d6", wounds=[0, 1], trials=20_000, seed=1)
    >>> sorted(res.table.columns)[:3]
    ['ci_high', 'ci_low', 'exact']
    >>> res.extra["death"].death.unique().tolist()
    ['roll', 'automatic', 'total']
    """
    from .. import montecarlo

    rules = resolve(rules)
    p = plan(arrival, negative_hp, wounds, action=action, action_ap=action_ap, heal=heal,
             rules=rules)
    sampler = partial(rescue_sampler, plan=p, rules=rules)
    res = montecarlo.run(sampler, trials, seed=seed, rules=rules, label="rescue", **run_options)
    return _summarise(res, p, rules)


def curve(times=None, negative_hp="1", wounds=(0, 1, 2, 3), *,
          action: str = "support", action_ap: int = 1, heal: int | None = None,
          trials: int = 1_000_000, seed: RNGLike = None, rules: Rules | None = None,
          **run_options) -> pd.DataFrame:
    """Death probability against rescue (arrival) time, with its 95 % band, for each wound count (core rules, dying and critical injuries; time, Reactions and Complex Actions).

    Arrival times are drawn uniformly from ``times``; the ``exact`` column is the closed form, for
    checking.

    Parameters
    ----------
    times : iterable of int, optional
        Arrival seconds (0..max(10,000, automatic death)); default every 5 s from 0 to the
        automatic death (``injuries.automatic_death_seconds``).
    negative_hp, wounds, action, action_ap, heal
        As in :func:`simulate`.
    trials : int, default 1,000,000
        Number of rescues (within the trials budget).
    seed : int, SeedSequence, Generator or None
        Seed of the run (``None``: fresh entropy, recorded in the result).
    rules : Rules, optional
        Rules to read ``[injuries]`` and ``[time]`` from (default: the bundled rules).
    **run_options
        Passed to ``balance.montecarlo.run``.

    Returns
    -------
    pandas.DataFrame
        wounds, arrival, deaths, probability, ci_low, ci_high, se, trials, exact.

    Raises
    ------
    ValueError
        A bad dice expression, an arrival that can be below 0 or negative HP below 1, no wound
        count, an unknown action, a heal missing or given with a Support action, naming the
        argument.
        Also no time in ``times``, or ``trials`` outside the trials budget.

    Examples
    --------
    >>> import balance as bl
    >>> c = bl.rescue.curve(times=[0, 60, 120], negative_hp="1d6", wounds=[1], trials=20_000, seed=1)
    >>> c.arrival.tolist(), c.exact.round(2).tolist()
    ([0, 60, 120], [0.0, 0.54, 1.0])
    """
    from .. import montecarlo

    rules = resolve(rules)
    wall = rules["injuries"]["automatic_death_seconds"]
    times = range(0, wall + 1, 5) if times is None else times
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
    from .. import montecarlo

    by_time = res.totals["by_time"]
    auto = rules["injuries"]["automatic_death_seconds"]
    frames = []
    for i, w in enumerate(p.wounds):
        trials_t = by_time[i, :, 0]
        deaths = by_time[i, :, 1] + by_time[i, :, 2]
        seen = np.flatnonzero(trials_t)
        table = montecarlo.proportion_table(deaths[seen], trials_t[seen],
                                            index=pd.Index(seen, name="arrival"))
        exact = _death_by_arrival(seen, p, w, rules)
        table = table.rename(columns={"estimate": "probability"}).reset_index()
        table.insert(0, "wounds", w)
        table.insert(2, "deaths", deaths[seen])
        table["exact"] = exact
        frames.append(table)
    out = pd.concat(frames, ignore_index=True)
    out.attrs["automatic_death_seconds"] = auto
    return out


def _summarise(res, p: RescuePlan, rules: Rules) -> Simulation:
    from .. import montecarlo

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
