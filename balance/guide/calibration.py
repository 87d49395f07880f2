"""Does the guide's calibration predict how hard a fight is? (GM guide, adversity ratio and
calibration, last point.)

:func:`calibration_check` builds encounters from the bestiary that span a range of calibration
values at several party levels, simulates each with :func:`balance.fights.simulate`, and
tabulates calibration and challenge next to the simulated win and knock-out rates. Exposed as
``bl.fights.calibration_check``.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from .creatures import creature
from .adversity import advice, challenge
from .simulation import simulate
from ..errors import check_integer
from ..rng import RNGLike, as_seed_sequence
from ..rules import Rules, resolve

__all__ = ["CalibrationCheck", "calibration_check", "DEFAULT_FAMILIES", "compositions"]

#: encounter families: a lead creature (once, or repeated when alone) and a filler
DEFAULT_FAMILIES: tuple[tuple[str, ...], ...] = (
    ("Wolf",), ("Skeleton",), ("Baby Dragon",), ("Ogre", "Wolf"),
    ("Dragon", "Baby Dragon"), ("Troll", "Goblin"),
)


@dataclass(frozen=True)
class CalibrationCheck:
    """Result of :func:`calibration_check`.

    Attributes
    ----------
    table : DataFrame
        One row per encounter: level, family, encounter, creatures, calibration (Fraction),
        follows_advice (no :func:`balance.encounters.advice` line, e.g. at most PCs + 1
        creatures), challenge, party_win_rate (+ ci_low/ci_high), knockout_rate (+ ci), rounds,
        trials, seed.
    steps : DataFrame
        Every pair of consecutive calibrations within a family and level, with whether the win
        rate fell and the knock-out rate rose (``monotone``) and whether a reversal is
        significant (95 % intervals do not overlap).
    summary : DataFrame
        Per level: the win-rate range at each calibration across families, and counts of
        within-family and across-family reversals (also among encounters that follow the
        guide's advice only: ``across_family_reversals_advised``).
    monotonic : bool
        True when no significant reversal exists, within families or across them.
    """

    table: pd.DataFrame
    steps: pd.DataFrame
    summary: pd.DataFrame
    monotonic: bool


def compositions(family: Sequence[str], pcs: int, calibrations: Sequence[int], level: int,
                 max_creatures: int, rules: Rules) -> list[tuple[int, list[str]]]:
    """Creature lists of ``family`` whose calibration is each of ``calibrations`` (GM guide, adversity ratio and calibration).

    A family is one creature repeated, or a lead creature plus fillers of a second kind.

    Parameters
    ----------
    family : sequence of str
        One or two bestiary names: ``("Wolf",)`` or ``("Dragon", "Baby Dragon")``.
    pcs : int
        Number of PCs.
    calibrations : sequence of int
        The calibrations wanted.
    level : int
        Level of the creatures (their ratios can depend on it through their stats).
    max_creatures : int
        Longest list kept.
    rules : Rules
        Validated rules.

    Returns
    -------
    list of (int, list of str)
        ``(calibration, names)`` for each calibration the family reaches exactly.

    Raises
    ------
    ValueError
        An unknown creature name (with a did-you-mean) or a level out of range.

    Examples
    --------
    >>> import balance as bl
    >>> compositions(["Wolf"], 4, [-1, 0], 5, 14, bl.load_rules())
    [(-1, ['Wolf', 'Wolf', 'Wolf']), (0, ['Wolf', 'Wolf', 'Wolf', 'Wolf'])]
    """
    out = []
    ratios: list[Fraction] = []
    for name in family:
        ratio = creature(name, level, rules=rules).adversity_ratio
        assert ratio is not None  # a creature (not a PC) always has its adversity ratio
        ratios.append(ratio)
    for cal in calibrations:
        total = Fraction(pcs + cal)
        if len(family) == 1:
            count = total / ratios[0]
            names = [family[0]] * int(count) if count.denominator == 1 else None
        else:
            rest = (total - ratios[0]) / ratios[1]
            names = [family[0]] + [family[1]] * int(rest) \
                if rest >= 0 and rest.denominator == 1 else None
        if names and len(names) <= max_creatures:
            out.append((cal, names))
    return out


def _label(names: list[str]) -> str:
    parts, seen = [], []
    for n in names:
        if n not in seen:
            seen.append(n)
    for n in seen:
        k = names.count(n)
        parts.append(f"{k} x {n}" if k > 1 else n)
    return " + ".join(parts)


def calibration_check(levels: Sequence[int] = (1, 3, 5, 8),
                      calibrations: Sequence[int] = (-3, -2, -1, 0, 1, 2, 3), *,
                      families: Sequence[Sequence[str]] = DEFAULT_FAMILIES,
                      trials: int = 20_000, seed: RNGLike = 0, targeting: Any = None,
                      max_creatures: int = 14, workers: Any = 1,
                      rules: Rules | None = None) -> CalibrationCheck:
    """Simulate a grid of encounters and compare calibration with simulated difficulty (GM guide, adversity ratio and calibration).

    For each party level and family, the encounters whose calibration (sum of ratios - PCs,
    default party) is each value of ``calibrations`` are simulated with ``trials`` fights.
    Every encounter gets its own ``SeedSequence.spawn`` child of ``seed``.

    Parameters
    ----------
    levels : sequence of int, default (1, 3, 5, 8)
        Party levels.
    calibrations : sequence of int, default -3..3
        Calibrations to reach in each family.
    families : sequence of sequence of str, default DEFAULT_FAMILIES
        Families of encounters (see :func:`compositions`).
    trials : int, default 20,000
        Fights per encounter (>= 100).
    seed : int, SeedSequence, Generator or None, default 0
        Master seed.
    targeting : "weakest", "random" or (party, creatures), optional
        As in ``balance.guide.fights.simulate``.
    max_creatures : int, default 14
        Longest encounter (1..64).
    workers : int, "dask" or Client, default 1
        As in ``balance.montecarlo.run``.
    rules : Rules, optional
        Default: the bundled rules.

    Returns
    -------
    CalibrationCheck
        ``table`` (one row per encounter: calibration, challenge, win and knock-out rates with
        CIs, follows_advice), ``steps`` (consecutive calibrations within a family), ``summary``
        (per level) and ``monotonic``.

    Raises
    ------
    ValueError
        ``trials`` below 100, ``max_creatures`` out of range, calibrations no family reaches.

    Examples
    --------
    >>> import balance as bl
    >>> check = bl.fights.calibration_check(levels=(5,), calibrations=(0, 1), families=[("Wolf",)],
    ...                                     trials=200, seed=1)
    >>> check.table.encounter.tolist()
    ['4 x Wolf', '5 x Wolf']
    """

    rules = resolve(rules)
    trials = check_integer("trials", trials, min=100)
    max_creatures = check_integer("max_creatures", max_creatures, min=1, max=64)
    pcs = len(rules["party"]["members"])
    cells = [(lv, fam, cal, names) for lv in levels for fam in families
             for cal, names in compositions(fam, pcs, calibrations, lv, max_creatures, rules)]
    if not cells:
        raise ValueError("calibrations: no encounter of the families reaches these values")
    children = as_seed_sequence(seed).spawn(len(cells))
    rows = []
    for (lv, fam, cal, names), child in zip(cells, children):
        sim = simulate(names, level=lv, trials=trials, seed=child, targeting=targeting,
                       workers=workers, rules=rules)
        t = sim.table.set_index("metric")
        sheets = [creature(name, lv, rules=rules) for name in names]
        rows.append({
            "level": lv, "family": " + ".join(fam), "encounter": _label(names),
            "creatures": len(names), "calibration": Fraction(cal),
            "follows_advice": not advice(sheets, pcs, party_levels=[lv] * pcs, rules=rules),
            "challenge": challenge(cal, rules=rules),
            "party_win_rate": t.loc["party_win_rate", "estimate"],
            "win_ci_low": t.loc["party_win_rate", "ci_low"],
            "win_ci_high": t.loc["party_win_rate", "ci_high"],
            "knockout_rate": t.loc["knockout_rate", "estimate"],
            "ko_ci_low": t.loc["knockout_rate", "ci_low"],
            "ko_ci_high": t.loc["knockout_rate", "ci_high"],
            "expected_deaths": t.loc["expected_deaths_if_stabilised", "estimate"],
            "rounds": t.loc["rounds", "estimate"], "draw_rate": t.loc["draw_rate", "estimate"],
            "trials": trials, "seed": repr(seed), "spawn_key": child.spawn_key,
        })
    table = pd.DataFrame(rows)
    steps = _steps(table)
    summary = _summary(table, steps)
    monotonic = not bool(steps["significant_reversal"].any()) and \
        int(summary["across_family_reversals"].sum()) == 0
    return CalibrationCheck(table, steps, summary, monotonic)


def _steps(table: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (lv, fam), g in table.groupby(["level", "family"], sort=False):
        g = g.sort_values("calibration")
        for (_, lo), (_, hi) in zip(g.iterrows(), g.iloc[1:].iterrows()):
            win_falls = hi["party_win_rate"] <= lo["party_win_rate"]
            ko_rises = hi["knockout_rate"] >= lo["knockout_rate"]
            sig = (hi["win_ci_low"] > lo["win_ci_high"]) or (hi["ko_ci_high"] < lo["ko_ci_low"])
            rows.append({"level": lv, "family": fam, "from": lo["calibration"],
                         "to": hi["calibration"], "win_from": lo["party_win_rate"],
                         "win_to": hi["party_win_rate"], "ko_from": lo["knockout_rate"],
                         "ko_to": hi["knockout_rate"], "monotone": win_falls and ko_rises,
                         "significant_reversal": bool(sig)})
    return pd.DataFrame(rows, columns=["level", "family", "from", "to", "win_from", "win_to",
                                       "ko_from", "ko_to", "monotone", "significant_reversal"])


def _reversals(g: pd.DataFrame) -> int:
    """Pairs where the higher-calibration encounter is significantly easier (95 % CIs apart)."""
    cal = g["calibration"].to_numpy()
    lo, hi = g["win_ci_low"].to_numpy(), g["win_ci_high"].to_numpy()
    return int(np.sum((cal[:, None] < cal[None, :]) & (lo[None, :] > hi[:, None])))


def _summary(table: pd.DataFrame, steps: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for lv, g in table.groupby("level"):
        across = _reversals(g)
        advised = _reversals(g[g["follows_advice"]])
        spread = g.groupby("calibration")["party_win_rate"].agg(["min", "max"])
        st = steps[steps["level"] == lv]
        rows.append({
            "level": lv, "encounters": len(g),
            "within_family_steps": len(st),
            "within_family_monotone": int(st["monotone"].sum()),
            "within_family_reversals": int(st["significant_reversal"].sum()),
            "across_family_reversals": across,
            "across_family_reversals_advised": advised,
            "widest_win_range": float((spread["max"] - spread["min"]).max()),
            "win_range_by_calibration": "; ".join(
                f"{c}: {r['min']:.2f}-{r['max']:.2f}" for c, r in spread.iterrows()),
        })
    return pd.DataFrame(rows)
