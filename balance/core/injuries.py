"""Dying and critical injuries (core rules, dying and critical injuries).

``total = 1d100 + (wounds + 1) x (seconds + negative_hp)``; ``total >= 176``: death on the roll;
otherwise the injury whose interval holds ``total``. At 175 seconds at negative HP the creature
dies without a roll. All numbers come from ``rules["injuries"]``; the last table row is
open-ended up to ``death_threshold - 1``.

>>> import balance as bl
>>> round(bl.injuries.death_probability(seconds=40, negative_hp=6, wounds=1), 12)
0.17
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from functools import partial

import numpy as np
from numpy.typing import ArrayLike

from ..budgets import check_grid
from ..dice.sampling import face_counts
from ..errors import check_integer, check_integer_array
from ..grids import elementwise
from ..names import find_row
from ..montecarlo.results import Simulation
from ..rng import RNGLike
from ..rules import Rules, resolve
from .treatment import treatment_chance  # bl.injuries.treatment_chance: the chance is a treatment rule

if TYPE_CHECKING:  # pandas is imported where a frame is built (a fast start)
    import pandas as pd

__all__ = [
    "roll_modifier", "death_probability", "injury_distribution", "injury_probabilities",
    "injury_surface", "death_on_roll", "injury_for_total", "find_injury", "injury_table",
    "severity", "dying_outcome", "injury_sampler", "simulate", "treatment_chance",
]

_MAX = 1_000_000


def _check(seconds: ArrayLike, negative_hp: ArrayLike,
           wounds: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    d = check_integer_array("seconds", seconds, min=0, max=_MAX)
    npv = check_integer_array("negative_hp", negative_hp, min=1, max=_MAX)
    n = check_integer_array("wounds", wounds, min=0, max=10_000)
    return d, npv, n


def roll_modifier_unchecked(d: np.ndarray | int, npv: np.ndarray | int, n: np.ndarray | int,
                            rules: Rules) -> np.ndarray | int:
    """:func:`roll_modifier` without argument checks, for samplers' validated arrays."""
    return modifier(d, npv, n, rules["injuries"]["hp_loss_per_second"])


def modifier(d, npv, n, loss):
    """``(n + 1) x (d + npv + loss x d)``: the roll modifier of :func:`roll_modifier` with the
    rules' ``hp_loss_per_second`` as ``loss``, plain arithmetic on numbers or arrays (the one
    formula: compiled loops call it too).

    Examples
    --------
    >>> import balance as bl
    >>> bl.injuries.modifier(40, 6, 1, 0)   # 40 s at -6 HP with one injury: 2 x 46
    92
    """
    return (n + 1) * (d + npv + loss * d)


def roll_modifier(seconds, negative_hp, wounds=0, *, rules: Rules | None = None):
    """The roll modifier ``k = (wounds + 1) x (seconds + negative_hp)`` (core rules, dying and critical injuries).

    ``k`` is added to the 1d100 of the critical-injury roll. With a variant's
    ``hp_loss_per_second`` the negative HP grows while dying. Broadcasts over arrays.

    Parameters
    ----------
    seconds : int or array_like of int
        Seconds spent at negative HP before the roll (0..1,000,000).
    negative_hp : int or array_like of int
        HP below zero, as a positive number (1..1,000,000): 6 means -6 HP.
    wounds : int or array_like of int, default 0
        Unhealed critical injuries already carried (0..10,000).
    rules : Rules, optional
        Rules to read ``[injuries]`` from (default: the bundled rules).

    Returns
    -------
    int or numpy.ndarray
        ``k``: an int for scalar input, else an integer array of the broadcast shape.

    Raises
    ------
    ValueError
        Seconds, negative HP or wounds that are not whole numbers in their range (negative HP
        given as 0 or below, negative seconds...), naming the argument.

    Examples
    --------
    >>> import balance as bl
    >>> bl.injuries.roll_modifier(seconds=40, negative_hp=6, wounds=1)
    92
    >>> bl.injuries.roll_modifier([0, 10], 1).tolist()
    [1, 11]
    """
    rules = resolve(rules)
    k = roll_modifier_unchecked(*_check(seconds, negative_hp, wounds), rules)
    return int(k) if np.ndim(k) == 0 else k


def injury_table(*, rules: Rules | None = None) -> pd.DataFrame:
    """The critical-injury table as a DataFrame (core rules, dying and critical injuries).

    Parameters
    ----------
    rules : Rules, optional
        Rules to read ``[injuries]`` from (default: the bundled rules).

    Returns
    -------
    pandas.DataFrame
        One row per injury in table order: low, high, modifier (the treatment test modifier),
        injury (English), injury_fr (French). The last row runs up to ``death_threshold - 1``.

    Raises
    ------
    RulesError
        ``rules`` given as a file or variant name that cannot be loaded (``ValueError`` for
        anything that is neither rules, a path nor ``None``).

    Examples
    --------
    >>> import balance as bl
    >>> table = bl.injuries.injury_table()
    >>> [int(table.low[0]), int(table.high[0]), table.injury[0]]
    [1, 10, 'Dazed']
    >>> len(table)
    29
    """
    rules = resolve(rules)
    return rules.memo("injuries.table_frame", _table_frame).copy()


def _table_frame(rules: Rules) -> pd.DataFrame:
    import pandas as pd

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
    """Closed-form probabilities of every table row and of death (core rules, dying and critical injuries).

    Broadcasts over the inputs; each entry counts the faces of the d100 that land in a row, so
    the cost does not depend on the die.

    Parameters
    ----------
    seconds : int or array_like of int
        Seconds spent at negative HP before the roll (0..1,000,000).
    negative_hp : int or array_like of int
        HP below zero, as a positive number (1..1,000,000): 6 means -6 HP.
    wounds : int or array_like of int, default 0
        Unhealed critical injuries already carried (0..10,000).
    rules : Rules, optional
        Rules to read ``[injuries]`` from (default: the bundled rules).

    Returns
    -------
    numpy.ndarray
        Shaped ``broadcast(seconds, negative_hp, wounds).shape + (rows + 1,)``; the last entry is
        death (on the roll, or automatic at ``automatic_death_seconds``). Each row sums to 1.

    Raises
    ------
    ValueError
        Seconds, negative HP or wounds that are not whole numbers in their range (negative HP
        given as 0 or below, negative seconds...), naming the argument.
        Also a grid over the grid budget (``budgets.MAX_GRID_CELLS``).

    Examples
    --------
    >>> import balance as bl
    >>> p = bl.injuries.injury_probabilities(40, 6, 1)
    >>> p.shape, round(float(p[-1]), 12)
    ((30,), 0.17)
    >>> bl.injuries.injury_probabilities([5, 40], 6, 1).shape
    (2, 30)
    """
    rules = resolve(rules)
    d, npv, n = _check(seconds, negative_hp, wounds)
    inj = rules["injuries"]
    die = inj["die"]
    shape = np.broadcast_shapes(np.shape(d), np.shape(npv), np.shape(n))
    check_grid("injury_probabilities", shape + (len(inj["table"]) + 1,),
               "seconds x negative_hp x wounds x injury rows")
    k = np.asarray(roll_modifier_unchecked(d, npv, n, rules))[..., None]
    low, high = _bounds(rules)
    # faces f in 1..die with low <= f + k <= high, counted in closed form
    rows = (np.clip(high - k, 0, die) - np.clip(low - 1 - k, 0, die)) / die
    out = np.concatenate([rows, death_on_roll(k, rules)], axis=-1)
    auto = np.broadcast_to((d >= inj["automatic_death_seconds"])[..., None], out.shape)
    out = np.where(auto, np.eye(1, out.shape[-1], out.shape[-1] - 1)[0], out)
    return out


def death_probability(seconds, negative_hp, wounds=0, *, rules: Rules | None = None):
    """P(death) when stabilised or healed after ``seconds`` at ``-negative_hp`` HP (core rules, dying and critical injuries).

    ``1`` if ``seconds >= 175`` (automatic death), else ``clip((100 - (176 - k) + 1) / 100, 0, 1)``
    with ``k = (wounds + 1)(seconds + negative_hp)``; the numbers are ``[injuries]`` data.
    Broadcasts over numpy arrays, a cache-sized chunk at a time.

    Parameters
    ----------
    seconds : int or array_like of int
        Seconds spent at negative HP before the roll (0..1,000,000).
    negative_hp : int or array_like of int
        HP below zero, as a positive number (1..1,000,000): 6 means -6 HP.
    wounds : int or array_like of int, default 0
        Unhealed critical injuries already carried (0..10,000).
    rules : Rules, optional
        Rules to read ``[injuries]`` from (default: the bundled rules).

    Returns
    -------
    float or numpy.ndarray
        A float for scalar input, else an array of the broadcast shape.

    Raises
    ------
    ValueError
        Seconds, negative HP or wounds that are not whole numbers in their range (negative HP
        given as 0 or below, negative seconds...), naming the argument.

    Examples
    --------
    >>> import balance as bl
    >>> round(bl.injuries.death_probability(seconds=40, negative_hp=6, wounds=1), 12)
    0.17
    >>> death_probability(seconds=[5, 40, 175], negative_hp=6, wounds=1)
    array([0.  , 0.17, 1.  ])
    >>> bl.injuries.death_probability(40, 6, 1, rules=bl.load_rules("death_threshold_180"))
    0.13
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
    """P(``1d{die} + k >= death_threshold``) for roll modifiers ``k`` (core rules, dying and critical injuries).

    In closed form: one value per ``k``, whatever the size of the injury table. The automatic
    death at 175 s is not applied here (see :func:`death_probability`).

    Parameters
    ----------
    k : int or array_like of int
        Roll modifiers, as :func:`roll_modifier` gives them.
    rules : Rules
        Validated rules (``balance.load_rules()`` for the bundled ones).

    Returns
    -------
    numpy.ndarray
        P(death on the roll), of the shape of ``k``.

    Raises
    ------
    TypeError
        ``rules`` that is not a rules mapping (no argument checks: this is a kernel).

    Examples
    --------
    >>> import balance as bl
    >>> bl.injuries.death_on_roll([92, 100], bl.load_rules()).tolist()
    [0.17, 0.25]
    """
    inj = rules["injuries"]
    die = inj["die"]
    return (die - np.clip(inj["death_threshold"] - 1 - np.asarray(k), 0, die)) / die


def injury_distribution(seconds: int, negative_hp: int, wounds: int = 0, *,
                        rules: Rules | None = None) -> pd.DataFrame:
    """One roll's outcome distribution (core rules, dying and critical injuries).

    Parameters
    ----------
    seconds : int
        Seconds spent at negative HP before the roll (0..1,000,000).
    negative_hp : int
        HP below zero, as a positive number (1..1,000,000).
    wounds : int, default 0
        Unhealed critical injuries already carried.
    rules : Rules, optional
        Rules to read ``[injuries]`` from (default: the bundled rules).

    Returns
    -------
    pandas.DataFrame
        A row per table row plus a final death row, in table order; columns injury, injury_fr,
        modifier (``<NA>`` for death), probability (sums to 1).

    Raises
    ------
    ValueError
        Seconds, negative HP or wounds that are not whole numbers in their range (negative HP
        given as 0 or below, negative seconds...), naming the argument.
        Also arrays instead of single values (use :func:`injury_surface`).

    Examples
    --------
    >>> import balance as bl
    >>> dist = bl.injuries.injury_distribution(seconds=5, negative_hp=3, wounds=0)
    >>> dist.injury[0], float(dist.probability[0])
    ('Dazed', 0.02)
    >>> round(float(dist.probability.sum()), 12)
    1.0
    """
    rules = resolve(rules)
    probs = injury_probabilities(seconds, negative_hp, wounds, rules=rules)
    if probs.ndim != 1:
        raise ValueError("injury_distribution takes single values of seconds, negative_hp and "
                         "wounds; use injury_surface for arrays")
    return _with_death(injury_table(rules=rules), rules).assign(probability=probs)


def _with_death(table: pd.DataFrame, rules: Rules) -> pd.DataFrame:
    import pandas as pd

    death = rules["injuries"]["death"]
    frame = table[["injury", "injury_fr", "modifier"]].copy()
    frame.loc[len(frame)] = [death["en"], death["fr"], pd.NA]
    frame["modifier"] = frame["modifier"].astype("Int64")  # death has no test modifier
    return frame.reset_index(drop=True)


def injury_surface(seconds, negative_hp, wounds=0, *, rules: Rules | None = None,
                   tidy: bool = True):
    """Outcome probabilities over a grid, the outer product of the three inputs (core rules, dying and critical injuries).

    The whole grid wounds 0..4 x seconds 0..175 x negative HP 1..50 is ~1.3 million tidy rows,
    computed in closed form.

    Parameters
    ----------
    seconds : int or array_like of int
        Seconds spent at negative HP before the roll (0..1,000,000).
    negative_hp : int or array_like of int
        HP below zero, as a positive number (1..1,000,000): 6 means -6 HP.
    wounds : int or array_like of int, default 0
        Unhealed critical injuries already carried (0..10,000).
    rules : Rules, optional
        Rules to read ``[injuries]`` from (default: the bundled rules).
    tidy : bool, default True
        ``True``: a long DataFrame; ``False``: the array of probabilities.

    Returns
    -------
    pandas.DataFrame or numpy.ndarray
        ``tidy=True``: columns wounds, seconds, negative_hp, injury, injury_fr, modifier,
        probability. ``tidy=False``: an array ``(wounds, seconds, negative_hp, rows + 1)``.

    Raises
    ------
    ValueError
        Seconds, negative HP or wounds that are not whole numbers in their range (negative HP
        given as 0 or below, negative seconds...), naming the argument.
        Also a grid over ``budgets.MAX_GRID_CELLS`` (2 x 10**7 cells), refused before any work.

    Examples
    --------
    >>> import balance as bl
    >>> surface = bl.injuries.injury_surface([0, 10], [1, 2], [0, 1])
    >>> surface.shape
    (240, 7)
    >>> bl.injuries.injury_surface([0, 10], [1, 2], [0, 1], tidy=False).shape
    (2, 2, 2, 30)
    """
    import pandas as pd

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
    """The table row of an injury named in English or French (core rules, dying and critical injuries).

    Names are matched without regard to case or accents.

    Parameters
    ----------
    injury : str
        The injury's name, e.g. ``"Weak"`` or ``"Faible"``.
    rules : Rules, optional
        Rules to read ``[injuries]`` from (default: the bundled rules).

    Returns
    -------
    dict
        The row: low, high, modifier, en, fr.

    Raises
    ------
    ValueError
        An unknown name, with a did-you-mean and examples of accepted names.

    Examples
    --------
    >>> import balance as bl
    >>> bl.injuries.find_injury("Faible")
    {'low': 51, 'high': 60, 'modifier': -5, 'en': 'Weak', 'fr': 'Faible'}
    """
    rules = resolve(rules)
    _, row = find_row(rules["injuries"]["table"], injury, "injury")
    return dict(row)


def injury_for_total(total, *, rules: Rules | None = None):
    """The outcome of a roll total: the injury's English name, or the death name (core rules, dying and critical injuries).

    Parameters
    ----------
    total : int or array_like of int
        Roll totals (1..10,000,000), die plus roll modifier.
    rules : Rules, optional
        Rules to read ``[injuries]`` from (default: the bundled rules).

    Returns
    -------
    str or numpy.ndarray
        A name for a scalar total, else an object array of names.

    Raises
    ------
    ValueError
        A total that is not a whole number in 1..10,000,000.

    Examples
    --------
    >>> import balance as bl
    >>> injury_for_total(119)
    'Amputated (Left Arm)'
    >>> bl.injuries.injury_for_total([1, 180]).tolist()
    ['Dazed', 'Death']
    """
    rules = resolve(rules)
    t = check_integer_array("total", total, min=1, max=10 * _MAX)
    names = np.array([r["en"] for r in rules["injuries"]["table"]]
                     + [rules["injuries"]["death"]["en"]], dtype=object)
    out = names[outcome_rows(t, rules)]
    return out if np.ndim(out) else str(out)


def severity(*, rules: Rules | None = None) -> pd.Series:
    """Severity band of each injury: the row's treatment test modifier (core rules, dying and critical injuries).

    Parameters
    ----------
    rules : Rules, optional
        Rules to read ``[injuries]`` from (default: the bundled rules).

    Returns
    -------
    pandas.Series
        ``modifier`` (0, -5, -10, -15 in the bundled table), indexed by English injury name.

    Raises
    ------
    RulesError
        ``rules`` given as a file or variant name that cannot be loaded (``ValueError`` for
        anything that is neither rules, a path nor ``None``).

    Examples
    --------
    >>> import balance as bl
    >>> int(bl.injuries.severity()["The end is near"])
    -15
    """
    import pandas as pd

    table = injury_table(rules=rules)
    return pd.Series(table["modifier"].to_numpy(), index=table["injury"], name="modifier")


def dying_outcome(seconds: int, negative_hp: int, wounds: int = 0, *, roll: int | None = None,
                  heal: int | None = None, rules: Rules | None = None) -> dict:
    """What ends a dying state, for a given 1d100 ``roll`` (core rules, dying and critical injuries).

    Parameters
    ----------
    seconds : int
        Seconds spent at negative HP.
    negative_hp : int
        HP below zero, as a positive number.
    wounds : int, default 0
        Unhealed critical injuries already carried.
    roll : int, optional
        The face of the d100 (1..die); ``None``: not rolled yet.
    heal : int, optional
        HP healed (>= 1); ``None``: stabilised at 0 HP.
    rules : Rules, optional
        Rules to read ``[injuries]`` from (default: the bundled rules).

    Returns
    -------
    dict
        ``outcome`` ("automatic death", "death", "injury" or "pending"), ``total``, ``injury``
        and ``hp`` afterwards: 0 when stabilised, ``heal`` when healed (not ``heal - negative_hp``);
        "pending" also gives the roll ``modifier``.

    Raises
    ------
    ValueError
        Seconds, negative HP or wounds that are not whole numbers in their range (negative HP
        given as 0 or below, negative seconds...), naming the argument.
        Also a roll outside 1..die, a heal below 1, or arrays instead of single values.

    Examples
    --------
    >>> import balance as bl
    >>> bl.injuries.dying_outcome(40, 6, 1, roll=58, heal=10)
    {'outcome': 'injury', 'total': 150, 'injury': 'Bleeding', 'hp': 10}
    >>> bl.injuries.dying_outcome(40, 6, 1, roll=90)["outcome"]
    'death'
    >>> bl.injuries.dying_outcome(175, 6, 1)["outcome"]
    'automatic death'
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
    """Monte Carlo kernel of one critical-injury roll (core rules, dying and critical injuries).

    Counts the d100 faces (:func:`balance.dice.face_counts`: two dice a draw) and maps faces to
    rows with a lookup table, so it costs what drawing and counting the dice costs.

    Parameters
    ----------
    n : int
        Number of rolls.
    rng : numpy.random.Generator
        The stream the engine hands this block.
    seconds, negative_hp, wounds : int
        As in :func:`injury_distribution` (keywords).
    rules : Rules, optional
        Rules to read ``[injuries]`` from (default: the bundled rules).

    Returns
    -------
    dict of str to numpy.ndarray
        ``{"rows": counts}``: the count of each table row, death last (int64, sums to ``n``).

    Raises
    ------
    ValueError
        Seconds, negative HP or wounds that are not whole numbers in their range (negative HP
        given as 0 or below, negative seconds...), naming the argument.

    Examples
    --------
    >>> import numpy as np
    >>> import balance as bl
    >>> counts = bl.injuries.injury_sampler(1_000, np.random.default_rng(1), seconds=40,
    ...                                     negative_hp=6, wounds=1)["rows"]
    >>> len(counts), int(counts.sum())
    (30, 1000)
    """
    rules = resolve(rules)
    inj = rules["injuries"]
    rows = len(inj["table"]) + 1
    if seconds >= inj["automatic_death_seconds"]:
        counts = np.zeros(rows, dtype=np.int64)
        counts[-1] = n
        return {"rows": counts}
    die = inj["die"]
    k = int(roll_modifier(seconds, negative_hp, wounds, rules=rules))
    counts = face_counts(die, n, rng)
    row_of_face = outcome_rows(np.arange(1, die + 1) + k, rules)
    return {"rows": np.bincount(row_of_face, weights=counts, minlength=rows).astype(np.int64)}


def simulate(seconds: int, negative_hp: int, wounds: int = 0, *, trials: int = 1_000_000,
             seed: RNGLike = None, rules: Rules | None = None, **run_options) -> Simulation:
    """Monte Carlo twin of :func:`injury_distribution` (core rules, dying and critical injuries).

    The counts are identical for a seed whatever ``chunk_size`` and ``workers`` are.

    Parameters
    ----------
    seconds, negative_hp, wounds : int
        As in :func:`injury_distribution`.
    trials : int, default 1,000,000
        Number of rolls (within the trials budget).
    seed : int, SeedSequence, Generator or None
        Seed of the run (``None``: fresh entropy, recorded in the result).
    rules : Rules, optional
        Rules to read ``[injuries]`` from (default: the bundled rules).
    **run_options
        Passed to ``balance.montecarlo.run`` (``chunk_size``, ``workers``, ``progress``).

    Returns
    -------
    Simulation
        ``.table``: injury, injury_fr, modifier, probability, ci_low, ci_high, se (Wilson 95 %),
        with the death row last; ``.result``: the engine's result.

    Raises
    ------
    ValueError
        Seconds, negative HP or wounds that are not whole numbers in their range (negative HP
        given as 0 or below, negative seconds...), naming the argument.
        Also ``trials`` outside the trials budget.

    Examples
    --------
    >>> import balance as bl
    >>> sim = bl.injuries.simulate(40, 6, 1, trials=100_000, seed=1)
    >>> list(sim.table.columns)
    ['injury', 'injury_fr', 'modifier', 'probability', 'ci_low', 'ci_high', 'se']
    >>> row = sim.table.iloc[-1]
    >>> str(row.injury), bool(abs(row.probability - 0.17) < 5 * row.se)  # exact: 0.17
    ('Death', True)
    """
    import pandas as pd

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
