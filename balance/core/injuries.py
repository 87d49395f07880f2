"""Dying and critical injuries (core rules, RULES.md §1.2).

``total = 1d100 + (wounds + 1) x (seconds + negative_hp)``; ``total >= 176``: death on the roll;
otherwise the injury whose interval holds ``total``. At 175 seconds at negative HP the creature
dies without a roll. All numbers come from ``rules["injuries"]``; the last table row is
open-ended up to ``death_threshold - 1``.

>>> import balance as bl
>>> round(bl.injuries.death_probability(seconds=40, negative_hp=6, wounds=1), 12)
0.17
"""
from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from ..budgets import check_grid
from ..errors import check_integer, check_integer_array
from ..grids import elementwise
from ..names import find_row
from ..montecarlo.results import Simulation
from ..rng import RNGLike
from ..rules import Rules, resolve
from .treatment import treatment_chance  # bl.injuries.treatment_chance: the chance is a treatment rule

__all__ = [
    "roll_modifier", "death_probability", "injury_distribution", "injury_probabilities",
    "injury_surface", "death_on_roll", "injury_for_total", "find_injury", "injury_table",
    "severity", "dying_outcome", "injury_sampler", "simulate", "treatment_chance",
]

_MAX = 1_000_000


def _check(seconds, negative_hp, wounds):
    d = check_integer_array("seconds", seconds, min=0, max=_MAX)
    npv = check_integer_array("negative_hp", negative_hp, min=1, max=_MAX)
    n = check_integer_array("wounds", wounds, min=0, max=10_000)
    return d, npv, n


def roll_modifier_unchecked(d, npv, n, rules: Rules):
    """:func:`roll_modifier` without argument checks, for samplers' validated arrays."""
    loss = rules["injuries"]["hp_loss_per_second"]
    return (n + 1) * (d + npv + loss * d)


def roll_modifier(seconds, negative_hp, wounds=0, *, rules: Rules | None = None):
    """``k = (wounds + 1) x (seconds + negative_hp)``, added to the 1d100 (§1.2). Broadcasts.

    With a variant's ``hp_loss_per_second`` the negative HP grows while dying.
    """
    rules = resolve(rules)
    k = roll_modifier_unchecked(*_check(seconds, negative_hp, wounds), rules)
    return int(k) if np.ndim(k) == 0 else k


def injury_table(*, rules: Rules | None = None) -> pd.DataFrame:
    """The critical-injury table as a DataFrame: low, high, modifier, injury, injury_fr.

    ``high`` of the last row is ``death_threshold - 1`` (open-ended reading).
    """
    rules = resolve(rules)
    return rules.memo("injuries.table_frame", _table_frame).copy()


def _table_frame(rules: Rules) -> pd.DataFrame:
    inj = rules["injuries"]
    rows = inj["table"]
    threshold = inj["death_threshold"]
    frame = pd.DataFrame({
        "low": [r["low"] for r in rows],
        "high": [r.get("high") for r in rows],
        "modifier": [r["modifier"] for r in rows],
        "injury": [r["en"] for r in rows],
        "injury_fr": [r["fr"] for r in rows],
    })
    frame.loc[frame.index[-1], "high"] = threshold - 1
    frame["high"] = np.minimum(frame["high"].astype(np.int64), threshold - 1)
    return frame


def _bounds(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    def build(r: Rules):
        t = _table_frame(r)
        return t["low"].to_numpy(np.int64), t["high"].to_numpy(np.int64)
    return rules.memo("injuries.bounds", build)


def outcome_rows(totals, rules: Rules) -> np.ndarray:
    """Outcome of each roll total: its table row (``0..rows-1``) or ``rows`` (death on the roll).

    Looked up in one array over totals ``0..death_threshold`` built once per rules object
    (``rules.memo``); totals at or above the threshold all map to death. ``totals`` are
    validated by the caller (a sampler's hot path).
    """
    lut = rules.memo("injuries.outcome_lut", _outcome_lut)
    return lut[np.minimum(totals, lut.size - 1)]


def _outcome_lut(rules: Rules) -> np.ndarray:
    low, _ = _bounds(rules)
    threshold = rules["injuries"]["death_threshold"]
    totals = np.arange(threshold + 1)
    rows = np.searchsorted(low, totals, side="right") - 1
    lut = np.where(totals >= threshold, low.size, rows).astype(np.int16)
    lut.flags.writeable = False
    return lut


def injury_probabilities(seconds, negative_hp, wounds=0, *, rules: Rules | None = None) -> np.ndarray:
    """Closed-form probabilities of every table row and of death, broadcast over the inputs.

    Returns an array shaped ``broadcast(seconds, negative_hp, wounds).shape + (rows + 1,)``;
    the last entry is death (on the roll or automatic).
    """
    rules = resolve(rules)
    d, npv, n = _check(seconds, negative_hp, wounds)
    inj = rules["injuries"]
    die = inj["die"]
    shape = np.broadcast_shapes(np.shape(d), np.shape(npv), np.shape(n))
    check_grid("injury_probabilities", shape + (len(inj["table"]) + 1,),
               "seconds x negative_hp x wounds x injury rows")
    k = roll_modifier_unchecked(d, npv, n, rules)[..., None]
    low, high = _bounds(rules)
    # faces f in 1..die with low <= f + k <= high, counted in closed form
    rows = (np.clip(high - k, 0, die) - np.clip(low - 1 - k, 0, die)) / die
    out = np.concatenate([rows, death_on_roll(k, rules)], axis=-1)
    auto = np.broadcast_to((d >= inj["automatic_death_seconds"])[..., None], out.shape)
    out = np.where(auto, np.eye(1, out.shape[-1], out.shape[-1] - 1)[0], out)
    return out


def death_probability(seconds, negative_hp, wounds=0, *, rules: Rules | None = None):
    """P(death) when stabilised or healed after ``seconds`` at ``-negative_hp`` HP (§1.2).

    ``1`` if ``seconds >= 175``, else ``clip((100 - (176 - k) + 1) / 100, 0, 1)`` with
    ``k = (wounds + 1)(seconds + negative_hp)``. Broadcasts over numpy arrays.

    >>> death_probability(seconds=[5, 40, 175], negative_hp=6, wounds=1)
    array([0.  , 0.17, 1.  ])
    """
    rules = resolve(rules)
    d, npv, n = _check(seconds, negative_hp, wounds)
    p = elementwise(partial(_death, rules=rules), d, npv, n, what="death_probability")
    return float(p) if p.ndim == 0 else p


def _death(d, npv, n, *, rules: Rules) -> np.ndarray:
    """The death formula on validated arrays (one chunk of a grid)."""
    p = death_on_roll(roll_modifier_unchecked(d, npv, n, rules), rules)
    return np.where(d >= rules["injuries"]["automatic_death_seconds"], 1.0, p)


def death_on_roll(k, rules: Rules) -> np.ndarray:
    """P(``1d{die} + k >= death_threshold``) for roll modifiers ``k`` (§1.2), in closed form:
    one value per ``k``, whatever the size of the injury table."""
    inj = rules["injuries"]
    die = inj["die"]
    return (die - np.clip(inj["death_threshold"] - 1 - np.asarray(k), 0, die)) / die


def injury_distribution(seconds: int, negative_hp: int, wounds: int = 0, *,
                        rules: Rules | None = None) -> pd.DataFrame:
    """One roll's outcome distribution: a row per table row plus a final death row, in table
    order, columns injury, injury_fr, modifier, probability (sums to 1)."""
    rules = resolve(rules)
    probs = injury_probabilities(seconds, negative_hp, wounds, rules=rules)
    if probs.ndim != 1:
        raise ValueError("injury_distribution takes single values of seconds, negative_hp and "
                         "wounds; use injury_surface for arrays")
    return _with_death(injury_table(rules=rules), rules).assign(probability=probs)


def _with_death(table: pd.DataFrame, rules: Rules) -> pd.DataFrame:
    death = rules["injuries"]["death"]
    frame = table[["injury", "injury_fr", "modifier"]].copy()
    frame.loc[len(frame)] = [death["en"], death["fr"], pd.NA]
    frame["modifier"] = frame["modifier"].astype("Int64")  # death has no test modifier
    return frame.reset_index(drop=True)


def injury_surface(seconds, negative_hp, wounds=0, *, rules: Rules | None = None,
                   tidy: bool = True):
    """Outcome probabilities over a grid (outer product of the three inputs), in one call.

    With ``tidy=True`` a long DataFrame: wounds, seconds, negative_hp, injury, injury_fr,
    modifier, probability (the whole grid wounds 0..4 x seconds 0..175 x negative HP 1..50
    is ~1.3 million rows, computed in closed form). With ``tidy=False`` the array
    ``(wounds, seconds, negative_hp, rows + 1)``. A grid over ``budgets.MAX_GRID_CELLS``
    (2 x 10**7) cells is refused before any work.
    """
    rules = resolve(rules)
    d, npv, n = (np.atleast_1d(x) for x in _check(seconds, negative_hp, wounds))
    check_grid("injury_surface", (n.size, d.size, npv.size, len(rules["injuries"]["table"]) + 1),
               "wounds x seconds x negative_hp x injury rows")
    probs = injury_probabilities(d[None, :, None], npv[None, None, :], n[:, None, None],
                                 rules=rules)
    if not tidy:
        return probs
    names = _with_death(injury_table(rules=rules), rules)
    grid = pd.MultiIndex.from_product([n, d, npv, np.arange(len(names))],
                                      names=["wounds", "seconds", "negative_hp", "row"])
    frame = grid.to_frame(index=False)
    rows = frame.pop("row").to_numpy()
    for col in ("injury", "injury_fr", "modifier"):
        frame[col] = names[col].to_numpy()[rows]
    frame["probability"] = probs.reshape(-1)
    return frame


def find_injury(injury: str, *, rules: Rules | None = None) -> dict:
    """The table row of an injury named in English or French: low, high, modifier, en, fr."""
    rules = resolve(rules)
    _, row = find_row(rules["injuries"]["table"], injury, "injury")
    return dict(row)


def injury_for_total(total, *, rules: Rules | None = None):
    """The outcome of a roll total: injury name (English) or the death name (vectorised).

    >>> injury_for_total(119)
    'Amputated (Left Arm)'
    """
    rules = resolve(rules)
    t = check_integer_array("total", total, min=1, max=10 * _MAX)
    names = np.array([r["en"] for r in rules["injuries"]["table"]]
                     + [rules["injuries"]["death"]["en"]], dtype=object)
    out = names[outcome_rows(t, rules)]
    return out if np.ndim(out) else str(out)


def severity(*, rules: Rules | None = None) -> pd.Series:
    """Severity band (the row's test modifier) of each injury, by English name."""
    table = injury_table(rules=rules)
    return pd.Series(table["modifier"].to_numpy(), index=table["injury"], name="modifier")


def dying_outcome(seconds: int, negative_hp: int, wounds: int = 0, *, roll: int | None = None,
                  heal: int | None = None, rules: Rules | None = None) -> dict:
    """What ends a dying state (§1.2), for a given 1d100 ``roll`` (or ``None`` = not rolled yet).

    Returns ``outcome`` ("automatic death", "death", "injury" or "pending"), ``total``,
    ``injury`` and the HP afterwards: 0 when stabilised (``heal=None``), ``heal`` when healed
    for ``heal`` HP (not ``heal - negative_hp``).
    """
    rules = resolve(rules)
    inj = rules["injuries"]
    k = roll_modifier(seconds, negative_hp, wounds, rules=rules)
    if np.ndim(k):
        raise ValueError("dying_outcome takes single values; use injury_probabilities for arrays")
    if heal is not None:
        heal = check_integer("heal", heal, min=1, max=_MAX)
    if roll is not None:
        roll = check_integer("roll", roll, min=1, max=inj["die"])
    if seconds >= inj["automatic_death_seconds"]:
        return {"outcome": "automatic death", "total": None, "injury": None, "hp": None}
    if roll is None:
        return {"outcome": "pending", "total": None, "injury": None, "hp": None, "modifier": k}
    total = roll + k
    if total >= inj["death_threshold"]:
        return {"outcome": "death", "total": total, "injury": None, "hp": None}
    return {"outcome": "injury", "total": total, "injury": injury_for_total(total, rules=rules),
            "hp": 0 if heal is None else heal}


def injury_sampler(n: int, rng: np.random.Generator, *, seconds: int, negative_hp: int,
                   wounds: int = 0, rules: Rules | None = None) -> dict[str, np.ndarray]:
    """Monte Carlo kernel of one critical-injury roll: ``{"rows": counts}`` over the table rows
    and death (last entry). Draws the d100 faces, bincounts them, and maps faces to rows with
    a lookup table (so it costs what drawing and counting the dice costs)."""
    rules = resolve(rules)
    inj = rules["injuries"]
    rows = len(inj["table"]) + 1
    if seconds >= inj["automatic_death_seconds"]:
        counts = np.zeros(rows, dtype=np.int64)
        counts[-1] = n
        return {"rows": counts}
    die = inj["die"]
    k = int(roll_modifier(seconds, negative_hp, wounds, rules=rules))
    faces = rng.integers(1, die + 1, size=n, dtype=np.int16 if die < 2**15 else np.int64)
    face_counts = np.bincount(faces, minlength=die + 1)
    row_of_face = outcome_rows(np.arange(0, die + 1) + k, rules)  # index 0 unused (no face 0)
    return {"rows": np.bincount(row_of_face, weights=face_counts, minlength=rows).astype(np.int64)}


def simulate(seconds: int, negative_hp: int, wounds: int = 0, *, trials: int = 1_000_000,
             seed: RNGLike = None, rules: Rules | None = None, **run_options) -> Simulation:
    """Monte Carlo twin of :func:`injury_distribution`.

    ``.table``: injury, injury_fr, modifier, probability, ci_low, ci_high, se (+ death row).
    ``run_options`` go to :func:`balance.montecarlo.run` (``chunk_size``, ``workers``,
    ``progress``); the counts are identical for a seed whatever those are.
    """
    from .. import montecarlo

    rules = resolve(rules)
    d, npv, n = _check(seconds, negative_hp, wounds)
    if d.ndim or npv.ndim or n.ndim:
        raise ValueError("simulate takes single values of seconds, negative_hp and wounds")
    sampler = partial(injury_sampler, seconds=int(d), negative_hp=int(npv), wounds=int(n),
                      rules=rules)
    res = montecarlo.run(sampler, trials, seed=seed, rules=rules, label="critical injury",
                         **run_options)
    names = _with_death(injury_table(rules=rules), rules)
    props = montecarlo.proportion_table(res.totals["rows"], res.trials).drop(columns="trials")
    table = pd.concat([names, props.rename(columns={"estimate": "probability"})], axis=1)
    return Simulation(table=table, result=res)
