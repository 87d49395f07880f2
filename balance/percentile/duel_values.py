"""What a situation is worth in a duel (percentile rules, combat; surprise and
special effects): surprise, a charge,
a way of spending special effects, a defensive style, each against the same duel as set.

Every situation is its own Monte Carlo run from a spawned seed; the table gives P(first wins)
with its Wilson interval and the change against the baseline with a normal interval (the runs
are independent: the standard errors add in quadrature).

>>> import balance as bl
>>> t = bl.percentile.duel_situations(bl.percentile.combatant(70), bl.percentile.combatant(50),
...                                    trials=2000, seed=1)
>>> list(t["situation"][:3])
['as set', 'first surprises second', 'second surprises first']
"""
from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import numpy as np
import pandas as pd

from .. import montecarlo
from ..budgets import check_length
from ..errors import check_integer
from ..montecarlo.intervals import normal_interval
from ..rng import RNGLike, as_seed_sequence, seed_label
from ..rules import resolve
from ._common import RulesLike
from .duel_tables import _summary
from .duels import duel_sampler, duel_spec
from .fighters import Fighter

__all__ = ["SITUATIONS", "duel_situations"]

#: the default situations: name -> duel_spec keywords (the first row is the baseline)
SITUATIONS: dict[str, dict] = {
    "as set": {},
    "first surprises second": {"surprise": "second"},
    "second surprises first": {"surprise": "first"},
    "first charges": {"charge": "first"},
    "second charges": {"charge": "second"},
    "both charge": {"charge": "both"},
    "no special effects spent": {"policies": "none"},
    "only attackers spend (legacy)": {"policies": "legacy"},
    "first spends none": {"policies": ("none", "default")},
    "second spends none": {"policies": ("default", "none")},
}


def duel_situations(first: Fighter, second: Fighter,
                    situations: Mapping[str, Mapping] | None = None, *, trials: int = 20_000,
                    seed: RNGLike = None, max_rounds: int | None = None,
                    rules: RulesLike = None, **run_options) -> pd.DataFrame:
    """P(first wins) in each situation, and its change against the first situation.

    Parameters
    ----------
    first, second : Fighter
        The duel as set (:func:`combatant`).
    situations : mapping name -> keywords of :func:`duel_spec`, optional
        ``policies``, ``surprise``, ``charge`` (default :data:`SITUATIONS`); the first entry
        is the baseline. A defensive style is a pair of fighters: compare two calls.
    trials : int
        Duels per situation.

    Returns
    -------
    DataFrame, one row per situation: situation, first_wins, ci_low, ci_high (Wilson 95 %),
    second_wins, timeout, mean_rounds, change (first_wins minus the baseline's),
    change_low, change_high (95 %), trials, seed, spawn_key. ``attrs["assumed"]`` lists the
    assumed rules the figures rest on (special effects, surprise reading, sample weapons).

    Raises
    ------
    ValueError
        A bad fighter, situation keyword or trials count.

    Examples
    --------
    >>> import balance as bl
    >>> f = bl.percentile.combatant(60)
    >>> t = bl.percentile.duel_situations(f, f, {"even": {}, "ambush": {"surprise": "second"}},
    ...                                    trials=1000, seed=3)
    >>> float(t["change"].iloc[0])
    0.0
    """
    rules = resolve(rules)
    trials = check_integer("trials", trials, min=1)
    chosen = dict(SITUATIONS if situations is None else situations)
    names = check_length("situations", list(chosen), 100)
    if not names:
        raise ValueError("situations must name at least one situation")
    specs = []
    for name in names:
        kw = chosen[name]
        if not isinstance(kw, Mapping) or set(kw) - {"policies", "surprise", "charge"}:
            raise ValueError(f"situations[{name!r}] must be a mapping of duel_spec keywords "
                             f"(policies, surprise, charge), got {kw!r}")
        specs.append(duel_spec(first, second, max_rounds=max_rounds, rules=rules, **kw))
    children = as_seed_sequence(seed).spawn(len(specs))
    rows = []
    for name, spec, child in zip(names, specs, children):
        res = montecarlo.run(partial(duel_sampler, spec=spec), trials, seed=child, rules=rules,
                             **{"progress": False, **run_options})
        s = _summary(res, rules)
        rows.append({"situation": name, "first_wins": s.loc["first_wins", "estimate"],
                     "ci_low": s.loc["first_wins", "ci_low"],
                     "ci_high": s.loc["first_wins", "ci_high"],
                     "se": s.loc["first_wins", "se"],
                     "second_wins": s.loc["second_wins", "estimate"],
                     "timeout": s.loc["timeout", "estimate"],
                     "mean_rounds": s.loc["rounds", "estimate"], "trials": trials,
                     "seed": seed_label(seed), "spawn_key": child.spawn_key})
    frame = pd.DataFrame(rows)
    base = frame.iloc[0]
    change = frame["first_wins"] - base["first_wins"]
    se = np.sqrt(frame["se"] ** 2 + base["se"] ** 2)
    se.iloc[0] = 0.0
    low, high = normal_interval(change.to_numpy(), se.to_numpy())
    frame.insert(8, "change", change)
    frame.insert(9, "change_low", low)
    frame.insert(10, "change_high", high)
    frame = frame.drop(columns="se")
    frame.attrs.update(fingerprint=rules.fingerprint, seed=seed_label(seed),
                       assumed=["percentile.special_effects", "percentile.weapons"])
    return frame
