"""Duel results a designer reads (percentile rules, combat): one duel, a skill-gap grid, weapon matchups.

Each runs :func:`balance.percentile.duels.duel_sampler` through :func:`balance.montecarlo.run`
(seeded blocks: results depend on the seed only) and reports Wilson 95 % intervals.

>>> import balance as bl
>>> sim = bl.percentile.duel(bl.percentile.combatant(70), bl.percentile.combatant(50),
...                          trials=2000, seed=1)
>>> list(sim.table.index[:3])
['first_wins', 'second_wins', 'timeout']
"""
from __future__ import annotations

from collections.abc import Iterable
from functools import partial

import numpy as np
import pandas as pd

from .. import montecarlo
from ..errors import check_integer
from ..montecarlo.intervals import mean_se
from ..montecarlo.results import Simulation
from ..rng import RNGLike, as_seed_sequence, seed_label
from ..rules import resolve
from ._common import RulesLike, section
from .duels import duel_sampler, duel_spec
from .exchange import OUTCOMES
from .fighters import Fighter, combatant

__all__ = ["duel", "duel_table", "weapon_matchups"]


def _mean_row(hist: np.ndarray, values: np.ndarray, scale: float) -> tuple:
    n = hist.sum()
    if n == 0:
        return (np.nan,) * 4 + (0,)
    mean, se = mean_se((hist * values).sum(), (hist * values * values).sum(), n)
    z = montecarlo.z_value(0.95)
    return mean * scale, (mean - z * se) * scale, (mean + z * se) * scale, se * scale, int(n)


def _summary(res, rules) -> pd.DataFrame:
    t = res.totals
    n = res.trials
    kinds = t["kinds"].sum(axis=0)[1:]
    labels = ["first_wins", "second_wins", "timeout", *OUTCOMES[1:], "serious_wound"]
    counts = np.concatenate([t["wins"], kinds, [n - t["first_serious"][0]]])
    table = montecarlo.proportion_table(counts, n, index=pd.Index(labels, name="metric"))
    seconds = section(rules)["combat"]["round_seconds"]
    r = np.arange(t["rounds"].size)
    means = pd.DataFrame(
        [_mean_row(t["rounds"], r, 1.0), _mean_row(t["rounds"], r, seconds),
         _mean_row(t["first_serious"][1:], r[1:], seconds)],
        columns=["estimate", "ci_low", "ci_high", "se", "trials"],
        index=pd.Index(["rounds", "seconds", "first_serious_seconds"], name="metric"))
    return pd.concat([table, means])


def duel(first: Fighter, second: Fighter, *, trials: int = 100_000, seed: RNGLike = None,
         max_rounds: int | None = None, policies=None, surprise: str | None = None,
         charge: str | None = None, rules: RulesLike = None, **run_options) -> Simulation:
    """Simulate ``trials`` duels between two combatants (:func:`combatant`).

    ``policies``, ``surprise`` and ``charge`` go to :func:`duel_spec` (how each side spends
    its special effects; a surprised side; the side(s) opening with a charge).

    Returns
    -------
    Simulation
        ``.table`` indexed by metric: first_wins, second_wins, timeout, death,
        unconsciousness, incapacitation (how the loser went out), serious_wound (at least one
        in the duel) as proportions; rounds, seconds (duration) and first_serious_seconds
        (time to the first serious wound, among duels with one; counted at the end of its
        round) as means; each with estimate, ci_low, ci_high (95 %), se, trials.
        ``.extra["outcomes"]``: winner x how the loser went out; ``.extra["rounds"]``: the
        distribution of the ending round.
    """
    rules = resolve(rules)
    spec = duel_spec(first, second, max_rounds=max_rounds, policies=policies,
                     surprise=surprise, charge=charge, rules=rules)
    trials = check_integer("trials", trials, min=1)
    res = montecarlo.run(partial(duel_sampler, spec=spec), trials, seed=seed, rules=rules,
                         label="percentile duel", **run_options)
    outcomes = res.proportion(
        res.totals["kinds"][:, 1:],
        index=pd.MultiIndex.from_product([["first", "second"], list(OUTCOMES[1:])],
                                         names=["winner", "loser_outcome"]))
    rounds = res.distribution("rounds", name="round")
    return Simulation(table=_summary(res, rules), result=res,
                      extra={"outcomes": outcomes, "rounds": rounds})


def _grid(pairs: list[tuple[dict, Fighter, Fighter]], trials: int, seed: RNGLike,
          max_rounds, rules, run_options) -> pd.DataFrame:
    """One row per pair: the pair's labels, win/timeout proportions, mean rounds, seed."""
    trials = check_integer("trials", trials, min=1)
    root = as_seed_sequence(seed)
    children = root.spawn(len(pairs))
    rows = []
    for (labels, f1, f2), child in zip(pairs, children):
        spec = duel_spec(f1, f2, max_rounds=max_rounds, rules=rules)
        res = montecarlo.run(partial(duel_sampler, spec=spec), trials, seed=child,
                             rules=rules, **{"progress": False, **run_options})
        summary = _summary(res, rules)
        row = dict(labels)
        for metric in ("first_wins", "second_wins", "timeout"):
            row[metric] = summary.loc[metric, "estimate"]
        row["ci_low"] = summary.loc["first_wins", "ci_low"]
        row["ci_high"] = summary.loc["first_wins", "ci_high"]
        row["mean_rounds"] = summary.loc["rounds", "estimate"]
        row["trials"] = trials
        row["seed"] = seed_label(seed)
        row["spawn_key"] = child.spawn_key
        rows.append(row)
    frame = pd.DataFrame(rows)
    frame.attrs.update(fingerprint=resolve(rules).fingerprint, seed=seed_label(seed))
    return frame


def duel_table(skills: Iterable[int] = range(40, 101, 10), *, trials: int = 20_000,
               seed: RNGLike = None, max_rounds: int | None = None, rules: RulesLike = None,
               run_options: dict | None = None, **fighter) -> pd.DataFrame:
    """Duels between every pair of Combat Style skills (first x second), otherwise identical.

    ``**fighter`` goes to :func:`combatant` for both sides (weapon, shield, armour...). Each
    cell uses its own spawned seed (``spawn_key``). Columns: first_skill, second_skill,
    first_wins, second_wins, timeout, ci_low, ci_high (of first_wins), mean_rounds, trials,
    seed, spawn_key.
    """
    rules = resolve(rules)
    skills = list(skills)
    fighters = {s: combatant(s, rules=rules, **fighter) for s in skills}
    pairs = [({"first_skill": s1, "second_skill": s2}, fighters[s1], fighters[s2])
             for s1 in skills for s2 in skills]
    return _grid(pairs, trials, seed, max_rounds, rules, run_options or {})


def weapon_matchups(weapons: Iterable[str] | None = None, *, skill: int = 60,
                    trials: int = 20_000, seed: RNGLike = None, max_rounds: int | None = None,
                    rules: RulesLike = None, run_options: dict | None = None,
                    **fighter) -> pd.DataFrame:
    """Duels between every pair of weapons (default: all of ``[percentile.weapons]``, assumed
    figures), both sides at Combat Style ``skill``; ``**fighter`` goes to :func:`combatant`.

    Columns: first_weapon, second_weapon, then as :func:`duel_table`.
    """
    rules = resolve(rules)
    names = [row["key"] for row in section(rules)["weapons"]["table"]] if weapons is None \
        else list(weapons)
    fighters = {w: combatant(skill, weapon=w, rules=rules, **fighter) for w in names}
    pairs = [({"first_weapon": w1, "second_weapon": w2}, fighters[w1], fighters[w2])
             for w1 in names for w2 in names]
    return _grid(pairs, trials, seed, max_rounds, rules, run_options or {})
