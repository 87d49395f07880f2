"""Hit locations (percentile rules, hit locations): the humanoid 1d20 table and the mounted 1d10+10 roll.

>>> import balance as bl
>>> float(bl.percentile.hit_locations().set_index("location")["probability"]["head"])
0.1
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import dice
from ..errors import check_integer_array
from ..rules import resolve
from ._common import RulesLike, section

__all__ = ["hit_locations", "location_of"]


def hit_locations(mounted: bool = False, rules: RulesLike = None) -> pd.DataFrame:
    """Exact probability of each hit location (``mounted``: attacker mounted above the target).

    Returns
    -------
    DataFrame location, en, fr, low, high, vital, probability (table order).
    """
    if not isinstance(mounted, (bool, np.bool_)):
        raise ValueError(f"mounted must be True or False, got {mounted!r}")
    sec = section(resolve(rules))["hit_locations"]
    dist = dice.distribution(sec["mounted_roll"] if mounted else sec["roll"])
    totals, probs = dist.totals, dist.probabilities
    rows = []
    for row in sec["table"]:
        high = row.get("high", int(totals[-1]))
        p = float(probs[(totals >= row["low"]) & (totals <= high)].sum())
        rows.append((row["key"], row["en"], row.get("fr", row["en"]), row["low"], high,
                     row["vital"], p))
    return pd.DataFrame(rows, columns=["location", "en", "fr", "low", "high", "vital",
                                       "probability"])


def location_of(roll: int | np.ndarray, rules: RulesLike = None) -> int | np.ndarray:
    """Hit-location index (table order) of each location roll (scalar or array)."""
    sec = section(resolve(rules))["hit_locations"]
    lows = np.array([row["low"] for row in sec["table"]])
    r = check_integer_array("roll", roll, min=int(lows[0]), max=sec["table"][-1].get("high"))
    idx = np.searchsorted(lows, r, side="right") - 1
    return idx.item() if idx.ndim == 0 else idx
