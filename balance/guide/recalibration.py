"""Better adversity ratios, fitted to the fight simulation (GM guide, adversity ratio and
calibration; GM guide, adversity ratio and calibration, last point). Exposed as ``bl.encounters.recalibrate``.

The guide's calibration orders difficulty within a kind of encounter but not across kinds
(:func:`balance.fights.calibration_check`). :func:`recalibrate` simulates encounters of
*training* families, fits one adversity ratio per creature so that a single curve of
calibration predicts the party's win rate, and checks the result on *held-out* families that
the fit never saw.

The model: calibration = sum of the creatures' ratios - number of PCs (the guide's formula);
predicted party win rate = ``1 / (1 + exp((calibration - midpoint) / scale))``, with
``midpoint`` fixed (default 0: a Demanding encounter is a coin flip), which fixes the scale of
the ratios, so a ratio still reads "worth that many PCs". ``model="creature"``: one free
ratio per creature; ``model="ladder"``: creatures on the same rung of the guide's ladder share
one ratio (the ladder's rungs refitted). Ratios are rounded to fractions of denominator at
most 12 (what a variant file holds) and every figure after the fit uses the rounded ones.

What a ratio model cannot capture (and the residuals show): a fight's difficulty is not a sum
of the creatures' worths. Many weak creatures share out damage and soak focus fire (action
economy), area attacks grow with the party's size, and the party's level changes each
creature's worth; one number per creature averages over all of it.

>>> import balance as bl
>>> rec = bl.encounters.recalibrate(levels=(5,), trials=200, seed=1,
...                                 families=[("Wolf",), ("Goblin",), ("Ogre", "Wolf")],
...                                 held_out=[("Ogre", "Goblin")])
>>> sorted(rec.ratios["creature"])
['Goblin', 'Ogre', 'Wolf']
"""
from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .adversity import challenge
from .calibration import _reversals, calibration_check, compositions
from .creatures import creature
from ..errors import check_choice, check_integer, check_number, shown
from ..rng import RNGLike
from ..rules import Rules, resolve

__all__ = ["Recalibration", "recalibrate", "TRAINING_FAMILIES", "HELD_OUT_FAMILIES"]

#: families the ratios are fitted on: every bestiary creature alone, and three mixes
TRAINING_FAMILIES: tuple[tuple[str, ...], ...] = (
    ("Wolf",), ("Skeleton",), ("Baby Dragon",), ("Goblin",), ("Giant Rat",), ("Ogre",),
    ("Troll",), ("Dragon",), ("Ogre", "Wolf"), ("Dragon", "Baby Dragon"), ("Troll", "Goblin"),
)
#: families the fit never sees: new mixes of the same creatures
HELD_OUT_FAMILIES: tuple[tuple[str, ...], ...] = (
    ("Ogre", "Goblin"), ("Troll", "Wolf"), ("Skeleton", "Goblin"), ("Dragon", "Wolf"),
    ("Wolf", "Giant Rat"), ("Skeleton", "Baby Dragon"), ("Ogre", "Giant Rat"),
    ("Troll", "Baby Dragon"),
)
MODELS = ("creature", "ladder")
_DENOMINATOR = 12


@dataclass(frozen=True)
class Recalibration:
    """Result of :func:`recalibrate`.

    Attributes
    ----------
    ratios : DataFrame
        creature, guide_ratio, proposed_ratio (Fractions), proposed (float), group.
    check : DataFrame
        Per split (training, held-out) and level (and ``"all"``): encounters, RMSE of the
        predicted party win rate before (guide ratios, best two-parameter curve) and after,
        significant reversals (a higher-calibration encounter won significantly more often)
        before/after, and the widest range of win rates within one challenge before/after.
    table : DataFrame
        One row per encounter: split, level, family, encounter, names, guide_calibration,
        calibration (proposed), challenges, party_win_rate (+ ci), predicted_before/after.
    rules : Rules
        The input rules with ``encounters.creature_ratios`` set to the proposed ratios.
    model, midpoint, scale, scale_before, midpoint_before : the fitted curves.
    trials, seed : of the simulations.
    """

    ratios: pd.DataFrame
    check: pd.DataFrame
    table: pd.DataFrame
    rules: Rules
    model: str
    midpoint: float
    scale: float
    midpoint_before: float
    scale_before: float
    trials: int
    seed: Any

    def save(self, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
        """Write the variant file (``encounters.creature_ratios``) of the proposed ratios."""
        return self.rules.save(path, overwrite=overwrite)

    def held_out(self, level: Any = "all") -> pd.Series:
        """The held-out row of :attr:`check` at ``level`` (default: all levels)."""
        c = self.check
        return c[(c["split"] == "held-out") & (c["level"] == level)].iloc[0]


def _curve(cal: np.ndarray, midpoint: float, scale: float) -> np.ndarray:
    from scipy.special import expit
    return expit(-(cal - midpoint) / scale)


def _families(value: Any, name: str) -> list[tuple[str, ...]]:
    if not isinstance(value, Sequence) or isinstance(value, str) or not value:
        raise ValueError(f"{name} must be a non-empty list of families (tuples of 1 or 2 "
                         f"creature names), got {shown(value)}")
    out = []
    for fam in value:
        fam = (fam,) if isinstance(fam, str) else tuple(fam)
        if not 1 <= len(fam) <= 2 or not all(isinstance(n, str) for n in fam):
            raise ValueError(f"{name}: a family is 1 or 2 creature names (lead, filler), "
                             f"got {fam!r}")
        out.append(fam)
    return out


def recalibrate(levels: Sequence[int] = (3, 5, 8), families: Any = TRAINING_FAMILIES, *,
                held_out: Any = HELD_OUT_FAMILIES, trials: int = 2_000, seed: RNGLike = 0,
                model: str = "creature", midpoint: float = 0.0,
                calibrations: Sequence[int] = (-3, -2, -1, 0, 1, 2, 3),
                max_creatures: int = 14, workers: Any = 1,
                rules: Rules | None = None) -> Recalibration:
    """Fit adversity ratios so that calibration predicts the simulated party win rate.

    Parameters
    ----------
    levels : list of int
        Party levels simulated (the ratios are shared by all levels).
    families, held_out : lists of families
        Training and validation families: a lead creature (once, or repeated when alone) and
        a filler, as :func:`balance.fights.calibration_check` builds them; every creature of a
        held-out family must appear in a training family (``model="ladder"``: its rung).
    trials, seed, workers
        Fights per encounter; every encounter gets its own ``SeedSequence.spawn`` child.
    model : "creature" or "ladder"
        Free ratio per creature, or one per rung of the guide's ladder.
    midpoint : float
        The calibration at which the predicted win rate is 50 %.

    Returns
    -------
    Recalibration

    Raises
    ------
    ValueError
        Bad families (naming the parameter), a held-out family that is also a training
        family, a held-out creature the training never saw, bad trials or model.
    """
    rules = resolve(rules)
    model = check_choice("model", model, MODELS)
    midpoint = float(check_number("midpoint", midpoint))
    trials = check_integer("trials", trials, min=100)
    train, held = _families(families, "families"), _families(held_out, "held_out")
    level_list = [check_integer("levels", lv) for lv in levels]
    sheets: dict[str, Any] = {}
    for param, fams in (("families", train), ("held_out", held)):
        for n in sorted({n for fam in fams for n in fam} - set(sheets)):
            try:                                              # checks the names
                sheets[n] = creature(n, level_list[0], rules=rules)
            except ValueError as exc:
                raise ValueError(f"{param}: {exc}") from None
    names = sorted(sheets)
    seen = [fam for fam in held if fam in train]
    if seen:    # a check on what the fit saw would tell nothing
        raise ValueError(f"held_out: {' + '.join(seen[0])} is also a training family; a "
                         "held-out family must be one the fit does not see")
    group_of = {n: (n if model == "creature" else
                    str(sheets[n].adversity_ratio)) for n in names}
    trained = {group_of[n] for fam in train for n in fam}
    for fam in held:
        for n in fam:
            if group_of[n] not in trained:
                raise ValueError(f"held_out: {n} (family {' + '.join(fam)}) is in no training "
                                 f"family{'' if model == 'creature' else ' (nor its rung)'}; "
                                 "add a training family with it")
    check = calibration_check(level_list, calibrations, families=train + held, trials=trials,
                              seed=seed, max_creatures=max_creatures, workers=workers,
                              rules=rules)
    table = check.table.copy()
    pcs = len(rules["party"]["members"])
    lineups = [names_ for lv in level_list for fam in train + held
               for _, names_ in compositions(fam, pcs, calibrations, lv, max_creatures, rules)]
    table["names"] = lineups
    held_labels = {" + ".join(f) for f in held}
    table.insert(0, "split", ["held-out" if f in held_labels else "training"
                              for f in table["family"]])
    def worth(g: str) -> Fraction:  # a group: a creature's name, or a rung of the ladder
        return Fraction(sheets[g].adversity_ratio or 0) if g in sheets else Fraction(g)

    groups = sorted(trained, key=worth)
    counts = np.array([[sum(group_of[n] == g for n in row) for g in groups]
                       for row in table["names"]], dtype=float)
    win = table["party_win_rate"].to_numpy(float)
    fit_rows = (table["split"] == "training").to_numpy()
    exact_guide = [worth(g) for g in groups]
    # calibrations in exact fractions (GM guide), their floats for the fits and the table: a
    # float sum can fall just under a band's edge (4 x 1/12 + 7 x 2/3 - 4 is
    # 0.9999999999999991), so the challenges are read from the fractions
    exact_before = _exact_calibrations(counts, exact_guide, pcs)
    guide_cal = np.array([float(c) for c in exact_before])
    before_mid, before_scale = _fit_curve(guide_cal[fit_rows], win[fit_rows])
    ratios = _fit_ratios(counts[fit_rows], win[fit_rows],
                         np.array([float(r) for r in exact_guide]), pcs, midpoint)
    proposed = [_fraction(r) for r in ratios]
    exact_after = _exact_calibrations(counts, proposed, pcs)
    new_cal = np.array([float(c) for c in exact_after])
    scale = _fit_curve(new_cal[fit_rows], win[fit_rows], midpoint)[1]
    table["guide_calibration"] = guide_cal
    table["calibration"] = new_cal
    table["challenge_before"] = [challenge(c, rules=rules) for c in exact_before]
    table["challenge_after"] = [challenge(c, rules=rules) for c in exact_after]
    table["predicted_before"] = _curve(guide_cal, before_mid, before_scale)
    table["predicted_after"] = _curve(new_cal, midpoint, scale)
    ratio_rows = _ratio_table(names, group_of, groups, proposed, sheets)
    overrides = [{"creature": r["creature"], "ratio": f"{r['proposed_ratio'].numerator}/"
                  f"{r['proposed_ratio'].denominator}"} for _, r in ratio_rows.iterrows()]
    variant = rules.updated({"encounters": {"creature_ratios": overrides}},
                            source="<recalibrated>")
    cols = ["split", "level", "family", "encounter", "names", "creatures", "guide_calibration",
            "calibration", "challenge_before", "challenge_after", "party_win_rate",
            "win_ci_low", "win_ci_high", "predicted_before", "predicted_after", "trials",
            "spawn_key"]
    return Recalibration(ratios=ratio_rows, check=_check(table), table=table[cols],
                         rules=variant, model=model, midpoint=midpoint, scale=scale,
                         midpoint_before=before_mid, scale_before=before_scale,
                         trials=trials, seed=seed)


def _exact_calibrations(counts: np.ndarray, ratios: list[Fraction], pcs: int) -> list[Fraction]:
    """Each row's calibration in exact fractions, ``sum(count x ratio) - pcs`` (GM guide,
    adversity ratio and calibration): ``counts`` (encounters x groups) holds whole numbers.

    >>> import numpy as np
    >>> from fractions import Fraction
    >>> _exact_calibrations(np.array([[4.0, 7.0]]), [Fraction(1, 12), Fraction(2, 3)], 4)
    [Fraction(1, 1)]
    """
    return [sum((int(c) * r for c, r in zip(row, ratios)), Fraction(0)) - pcs for row in counts]


def _fit_curve(cal: np.ndarray, win: np.ndarray, midpoint: float | None = None):
    """Least-squares (midpoint, scale) of the logistic curve (midpoint fixed when given)."""
    from scipy.optimize import least_squares

    if midpoint is None:
        res = least_squares(lambda p: _curve(cal, p[0], math.exp(p[1])) - win, [0.0, 0.0])
        return float(res.x[0]), float(math.exp(res.x[1]))
    res = least_squares(lambda p: _curve(cal, midpoint, math.exp(p[0])) - win, [0.0])
    return midpoint, float(math.exp(res.x[0]))


def _fit_ratios(counts: np.ndarray, win: np.ndarray, guide: np.ndarray, pcs: int,
                midpoint: float) -> np.ndarray:
    """Least-squares ratios (positive, through their logarithms) and curve scale."""
    from scipy.optimize import least_squares

    k = counts.shape[1]

    def residuals(p: np.ndarray) -> np.ndarray:
        return _curve(counts @ np.exp(p[:k]) - pcs, midpoint, math.exp(p[k])) - win

    res = least_squares(residuals, np.r_[np.log(guide), 0.0], bounds=(
        np.r_[np.full(k, math.log(1 / 100)), math.log(1e-3)],
        np.r_[np.full(k, math.log(100)), math.log(1e3)]))
    return np.exp(res.x[:k])


def _fraction(x: float) -> Fraction:
    f = Fraction(float(x)).limit_denominator(_DENOMINATOR)
    return f if f > 0 else Fraction(1, _DENOMINATOR)


def _ratio_table(names, group_of, groups, proposed, sheets) -> pd.DataFrame:
    rows = []
    for n in names:
        g = group_of[n]
        if g not in groups:
            continue
        p = proposed[groups.index(g)]
        rows.append({"creature": n, "guide_ratio": sheets[n].adversity_ratio,
                     "proposed_ratio": p, "proposed": float(p), "group": g})
    return pd.DataFrame(rows)


def _spread(cal: np.ndarray, win: np.ndarray) -> float:
    bands = np.floor(cal + 1e-9)
    return float(max(np.ptp(win[bands == b]) for b in np.unique(bands)))


def _check(table: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for split in ("training", "held-out"):
        part = table[table["split"] == split]
        for level in [*sorted(part["level"].unique()), "all"]:
            g = part if level == "all" else part[part["level"] == level]
            if g.empty:
                continue
            win = g["party_win_rate"].to_numpy(float)
            row = {"split": split, "level": level, "encounters": len(g)}
            for when, cal_col, pred_col in (("before", "guide_calibration", "predicted_before"),
                                            ("after", "calibration", "predicted_after")):
                row[f"rmse_{when}"] = float(np.sqrt(np.mean((g[pred_col] - win) ** 2)))
                rev = sum(_reversals(h.assign(calibration=np.floor(h[cal_col] + 1e-9)))
                          for _, h in g.groupby("level"))
                row[f"reversals_{when}"] = int(rev)
                row[f"widest_spread_{when}"] = float(max(
                    [_spread(h[cal_col].to_numpy(float), h["party_win_rate"].to_numpy(float))
                     for _, h in g.groupby("level")])) if level == "all" else \
                    _spread(g[cal_col].to_numpy(float), win)
            rows.append(row)
    return pd.DataFrame(rows)
