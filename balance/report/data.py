"""Exact result tables for the plots, built from the public API (no sampling here).

Each function returns a tidy DataFrame a plot of :mod:`balance.plots` takes as it is:

>>> import balance as bl
>>> frame = bl.report.data.d20_table([10, 12])
>>> float(frame.loc[frame.characteristic == 12, "success"].iloc[0])
0.6
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import d20, injuries, negotiation
from ..errors import check_integer_array
from ..rules import Rules, resolve

__all__ = ["death_surface", "d20_table", "negotiation_table", "severity_bands",
           "negotiation_rules_table", "opposed_table", "rule_changes"]


def death_surface(seconds=None, negative_hp: Sequence[int] = (1, 5, 10, 20),
                  wounds: Sequence[int] = (0, 1, 2, 3), *, rules: Rules | None = None
                  ) -> pd.DataFrame:
    """The critical-injury outcome surface (RULES.md 1.2) over seconds 0..automatic death.

    Thin wrapper of :func:`balance.injuries.injury_surface` (tidy: wounds, seconds, negative_hp,
    injury, injury_fr, modifier, probability; the death row has no modifier).
    """
    rules = resolve(rules)
    if seconds is None:
        seconds = np.arange(rules["injuries"]["automatic_death_seconds"] + 1)
    return injuries.injury_surface(seconds, negative_hp, wounds, rules=rules)


def severity_bands(surface: pd.DataFrame) -> pd.DataFrame:
    """Sum a surface's probabilities by severity band (the row's test modifier; death apart).

    Returns wounds, seconds, negative_hp, band (the modifier as text, or ``"death"``),
    probability.
    """
    band = surface["modifier"].map(lambda m: "death" if pd.isna(m) else str(int(m)))
    keys = [c for c in ("wounds", "seconds", "negative_hp") if c in surface]
    frame = surface.assign(band=band).groupby(keys + ["band"], sort=False)["probability"].sum()
    return frame.reset_index()


def d20_table(characteristics=None, modifier: int = 0, *, rules: Rules | None = None
              ) -> pd.DataFrame:
    """Points of a d20 Test for each characteristic (RULES.md 1.1), tidy.

    Columns: characteristic, points (``C' - die``; ``>= 0`` S.P.), probability, success
    (the Test's success chance, repeated on each row of the characteristic).
    """
    rules = resolve(rules)
    die = rules["d20"]["die"]
    if characteristics is None:
        characteristics = np.arange(0, die + 2)
    chars = check_integer_array("characteristics", characteristics, min=-10_000,
                                max=10_000).reshape(-1)
    frames = []
    for c in chars:
        pts = d20.test_points(int(c), modifier, rules=rules)
        frames.append(pd.DataFrame({
            "characteristic": int(c), "points": pts.index.to_numpy(),
            "probability": pts.to_numpy(),
            "success": d20.success_chance(int(c), modifier, rules=rules)}))
    return pd.concat(frames, ignore_index=True)


def negotiation_table(psychology: Sequence[int] = (8, 12, 16), asks=None, *,
                      rules: Rules | None = None) -> pd.DataFrame:
    """Exact outcome of each ask for several Psychology values (RULES.md 1.5), tidy.

    Columns: psychology, ask, unchanged, partial, full, expected_change, best (True on the
    best ask of each Psychology). ``asks`` defaults to 1..40.
    """
    rules = resolve(rules)
    psy = check_integer_array("psychology", psychology, min=-10_000, max=10_000).reshape(-1)
    asks = np.arange(1, 41) if asks is None else asks
    frames = []
    for p in psy:
        table = negotiation.ask_table(int(p), asks, rules=rules).reset_index()
        table.insert(0, "psychology", int(p))
        best = negotiation.best_ask(int(p), rules=rules)
        table["best"] = table["ask"] == best
        if not table["best"].any():  # the best ask lies outside the asks shown
            table.loc[len(table)] = {"psychology": int(p), "ask": best, "best": True,
                                     **negotiation.ask_outcomes(int(p), best, rules=rules)}
        frames.append(table)
    out = pd.concat(frames, ignore_index=True)
    out["ask"] = out["ask"].astype(float)
    return out


def negotiation_rules_table(psychology=None, charisma=None, *, price: int = 200,
                            difficulty: int = 14, rules: Rules | None = None) -> pd.DataFrame:
    """The two negotiation rules side by side (RULES.md 1.5 and 2.6), buying at ``price``.

    Psychology (core rules): a d20 Test under Psychology, the best ask X; Charisma (GM guide):
    ``d20 + CHA >= difficulty``, success 75 %, natural 20 50 %. Put on a common axis, the
    chance that the underlying check succeeds.

    Returns
    -------
    DataFrame
        rule ("psychology"/"charisma"), value (the characteristic or modifier), check_chance,
        expected_change (expected price reduction, % of ``price``), best_ask (Psychology only).
    """
    from .. import economy

    rules = resolve(rules)
    die = rules["d20"]["die"]
    psy = np.arange(1, die + 1) if psychology is None else np.atleast_1d(psychology)
    cha = np.arange(rules["design"]["creature_stat_min"],
                    rules["design"]["creature_stat_max"] + 1) if charisma is None \
        else np.atleast_1d(charisma)
    rows = []
    for p in psy:
        best = negotiation.best_ask(int(p), rules=rules)
        change = negotiation.ask_outcomes(int(p), best, rules=rules)["expected_change"]
        rows.append(("psychology", int(p), float(d20.success_chance(int(p), rules=rules)),
                     float(change), float(best)))
    for c in cha:
        out = economy.charisma_negotiation(price, int(c), difficulty, rules=rules)
        rows.append(("charisma", int(c), float(out["success"] + out["critical_success"]),
                     100.0 * (price - out["expected_price"]) / price, np.nan))
    frame = pd.DataFrame(rows, columns=["rule", "value", "check_chance", "expected_change",
                                        "best_ask"])
    frame["check_chance"] = frame["check_chance"].round(12)  # 7/20 from either rule compares equal
    return frame


def opposed_table(skills=range(5, 101, 5), *, rules: Rules | None = None) -> pd.DataFrame:
    """Exact opposed rolls over a grid of skills (RULES.md 3.1), tidy: first, second,
    first_wins, second_wins, stalemate."""
    from .. import percentile

    rules = resolve(rules)
    values = check_integer_array("skills", list(skills), min=0, max=10_000).reshape(-1)
    rows = []
    for a in values:
        for b in values:
            out = percentile.opposed(int(a), int(b), rules=rules)
            rows.append((int(a), int(b), out["first_wins"], out["second_wins"],
                         out["stalemate"]))
    return pd.DataFrame(rows, columns=["first", "second", "first_wins", "second_wins",
                                       "stalemate"])


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


def _changes(base: Any, new: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """Every leaf that differs between two rules trees: (dotted path, old, new).

    Rows of a table are compared row by row (``injuries.table[3].high``) when both tables
    have the same length, else the whole table is one change.
    """
    if isinstance(base, Mapping) and isinstance(new, Mapping):
        out = []
        for key in list(base) + [k for k in new if k not in base]:
            where = f"{path}.{key}" if path else str(key)
            out += _changes(base.get(key), new.get(key), where)
        return out
    if isinstance(base, (list, tuple)) and isinstance(new, (list, tuple)) \
            and len(base) == len(new) and any(isinstance(v, Mapping) for v in base):
        out = []
        for i, (a, b) in enumerate(zip(base, new)):
            out += _changes(a, b, f"{path}[{i}]")
        return out
    return [] if _plain(base) == _plain(new) else [(path, _plain(base), _plain(new))]


def rule_changes(rules: Rules, base: Rules | None = None) -> pd.DataFrame:
    """What ``rules`` change against ``base`` (default: the bundled rules): one row per value,
    columns key (dotted path, ``table[i].column`` for table rows), bundled, variant."""
    from ..rules import default_rules

    base = default_rules() if base is None else base
    rows = _changes(base.to_dict(), resolve(rules).to_dict())
    return pd.DataFrame(rows, columns=["key", "bundled", "variant"])
