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

from ..core import d20, injuries, negotiation
from ..budgets import check_grid, check_length
from ..errors import check_integer_array
from ..rules import Rules, plain, resolve

__all__ = ["death_surface", "d20_table", "negotiation_table", "severity_bands",
           "negotiation_rules_table", "opposed_table", "rule_changes", "rules_value_text",
           "rest_day", "rest_breakdown", "reaction_grid"]


#: seconds of the default death surface when the automatic death comes later than that
SURFACE_SECONDS = 1001


def death_surface(seconds=None, negative_hp: Sequence[int] = (1, 5, 10, 20),
                  wounds: Sequence[int] = (0, 1, 2, 3), *, rules: Rules | None = None,
                  until: int | None = None) -> pd.DataFrame:
    """The critical-injury outcome surface (core rules, dying and critical injuries) over seconds 0..automatic death.

    Thin wrapper of :func:`balance.injuries.injury_surface` (tidy: wounds, seconds, negative_hp,
    injury, injury_fr, modifier, probability; the death row has no modifier). By default every
    second up to the automatic death, or :data:`SURFACE_SECONDS` evenly spaced whole seconds
    (0 and the automatic death included) when it comes later, so the surface stays within
    ``budgets.MAX_GRID_CELLS``. ``until`` ends the default seconds elsewhere (a later second:
    death is certain from the automatic death on).
    """
    rules = resolve(rules)
    if seconds is None:
        last = rules["injuries"]["automatic_death_seconds"] if until is None else until
        seconds = (np.arange(last + 1) if last < SURFACE_SECONDS else
                   np.unique(np.linspace(0, last, SURFACE_SECONDS).round().astype(np.int64)))
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
    """Points of a d20 Test for each characteristic (core rules, Tests), tidy.

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
    """Exact outcome of each ask for several Psychology values (core rules, negotiation), tidy.

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
    """The two negotiation rules side by side (core rules, negotiation; GM guide, economy), buying at ``price``.

    Psychology (core rules): a d20 Test under Psychology, the best ask X; Charisma (GM guide):
    ``d20 + CHA >= difficulty``, success 75 %, natural 20 50 %. Put on a common axis, the
    chance that the underlying check succeeds.

    Returns
    -------
    DataFrame
        rule ("psychology"/"charisma"), value (the characteristic or modifier), check_chance,
        expected_change (expected price reduction, % of ``price``), best_ask (Psychology only).
    """
    from ..guide import economy

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
    """Exact opposed rolls over a grid of skills (percentile rules, skill roll), tidy: first, second,
    first_wins, second_wins, stalemate."""
    from .. import percentile

    rules = resolve(rules)
    values = check_integer_array("skills", check_length("skills", skills), min=0,
                                 max=10_000).reshape(-1)
    check_grid("opposed_table", (values.size, values.size), "skills x skills")
    rows = []
    for a in values:
        for b in values:
            out = percentile.opposed(int(a), int(b), rules=rules)
            rows.append((int(a), int(b), out["first_wins"], out["second_wins"],
                         out["stalemate"]))
    return pd.DataFrame(rows, columns=["first", "second", "first_wins", "second_wins",
                                       "stalemate"])



def _changes(base: Any, new: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """Every value that differs between two rules trees: (key, old, new), the key as
    ``--set`` takes it (:func:`balance.rules.tables.row_key`: ``injuries.table.3.high``, rows
    counted from 1). Tables are compared row by row (:func:`_table_changes`).
    """
    if isinstance(base, Mapping) and isinstance(new, Mapping):
        out = []
        for key in list(base) + [k for k in new if k not in base]:
            where = f"{path}.{key}" if path else str(key)
            out += _changes(base.get(key), new.get(key), where)
        return out
    if isinstance(base, (list, tuple)) and isinstance(new, (list, tuple)) \
            and any(isinstance(v, Mapping) for v in (*base, *new)):
        return _table_changes(base, new, path)
    return [] if plain(base) == plain(new) else [(path, plain(base), plain(new))]


def _table_changes(base: Any, new: Any, path: str) -> list[tuple[str, Any, Any]]:
    """The changes of one table, its rows matched by their English name where every row has
    one (:func:`balance.rules.tables.matched_rows`; by position otherwise): a row that kept
    its name, cell by cell under its new number; a removed row, the whole row against
    ``None`` under its old number; an added row, ``None`` against the row under its new
    number; a row out of its order, its old place against its new one (``row 2 (Goblin)``)."""
    from ..rules.tables import matched_rows, moved_rows, row_key

    def names(rows: Any) -> list:
        return [r.get("en") if isinstance(r, Mapping) else None for r in rows]

    matched = matched_rows(names(base), names(new))
    moved, old_of = moved_rows(matched), {j: i for i, j in matched.items()}
    found: list[tuple[tuple[int, int], list[tuple[str, Any, Any]]]] = []
    last = -1  # the new number of the last kept row so far: a removed row is listed after it
    for i, a in enumerate(base):
        if i in matched:
            last = matched[i]
        else:
            found.append(((last, 1), [(row_key(path, i), plain(a), None)]))
    for j, b in enumerate(new):
        i_old = old_of.get(j)
        if i_old is None:
            found.append(((j, 0), [(row_key(path, j), None, plain(b))]))
            continue
        i = i_old
        a, key = base[i], row_key(path, j)
        out = [(key, _place(a, i), _place(b, j))] if i in moved else []
        out += _changes(a, b, key) if isinstance(a, Mapping) and isinstance(b, Mapping) \
            else [] if plain(a) == plain(b) else [(key, plain(a), plain(b))]
        found.append(((j, 0), out))
    return [change for _, changes in sorted(found, key=lambda f: f[0]) for change in changes]


def _place(row: Any, index: int) -> str:
    """A row's place in its table as the validator names it: ``row 2 (Goblin)``."""
    name = row.get("en") if isinstance(row, Mapping) else None
    return f"row {index + 1}" + (f" ({name})" if isinstance(name, str) else "")


def rules_value_text(value: Any) -> str:
    """A rules value as text: a string as it is, anything else (numbers, tables) as JSON."""
    import json

    return value if isinstance(value, str) else json.dumps(plain(value), ensure_ascii=False)


def rule_changes(rules: Rules, base: Rules | None = None) -> pd.DataFrame:
    """What ``rules`` change against ``base`` (default: the bundled rules): one row per value,
    columns key (as ``--set`` takes it: ``injuries.table.3.modifier``, rows counted from 1;
    rows matched by their English name, :func:`_table_changes`: a removed or added row is one
    change, the whole row against ``None``), bundled, variant."""
    from ..rules import default_rules

    base = default_rules() if base is None else base
    rows = _changes(base.to_dict(), resolve(rules).to_dict())
    return pd.DataFrame(rows, columns=["key", "bundled", "variant"], dtype=object)


def rest_day(qualities: Sequence[str] | None = None, hours=None, *,
             rules: Rules | None = None) -> pd.DataFrame:
    """Regeneration of one uninterrupted rest of 0..24 hours at each quick score
    (core rules, rest): the 12-counted-hours cap makes every curve flat past 12 h.

    Returns
    -------
    DataFrame
        quality, quality_fr, score, hours, counted_hours, regeneration (tidy, one row per
        quality and length of rest).
    """
    from ..core import rest

    rules = resolve(rules)
    table = rules["rest"]
    qualities = list(table["quick_scores"]) if qualities is None else list(qualities)
    hours = np.arange(0, table["window_hours"] + 1) if hours is None else hours
    hours = check_integer_array("hours", hours, min=0, max=10_000).reshape(-1)
    rows = []
    for quality in qualities:
        score = rest.quick_score(quality, rules=rules)
        name = next(k for k, v in table["quick_scores"].items() if v == score)
        for h in hours:
            log = rest.rest_log([(int(h), score)], rules=rules)
            rows.append((name, table["quick_scores_fr"].get(name, name), score, int(h),
                         int(log["counted_hours"].iloc[0]), int(log["regeneration"].iloc[0])))
    return pd.DataFrame(rows, columns=["quality", "quality_fr", "score", "hours",
                                       "counted_hours", "regeneration"])


def rest_breakdown(examples: Mapping[str, Sequence[Mapping[str, Any]]], *,
                   rules: Rules | None = None) -> pd.DataFrame:
    """Score breakdown and regeneration of rests made of segments (core rules, rest).

    ``examples`` maps a name to its segments, each a dict with ``hours`` and the score's
    components (``thirst``, ``hunger``, ``sleep_hours``, ``comfort``, ...).

    Returns
    -------
    DataFrame
        example, segment, hours, thirst, hunger, sleep, comfort, modifiers, score,
        counted_hours, regeneration (one row per segment).
    """
    from ..core import rest

    rules = resolve(rules)
    frames = []
    for name, segments in examples.items():
        log = rest.rest_log([dict(s) for s in segments], rules=rules)
        parts = pd.DataFrame([rest.score_breakdown(**{k: v for k, v in s.items()
                                                       if k != "hours"}, rules=rules)
                              for s in segments]).reset_index(drop=True)
        frame = pd.concat([log[["segment", "hours"]], parts.drop(columns="score"),
                           log[["score", "counted_hours", "regeneration"]]], axis=1)
        frame.insert(0, "example", name)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def reaction_grid(cooldowns=range(0, 11), triggers=range(0, 60), *,
                  rules: Rules | None = None) -> pd.DataFrame:
    """Which triggers a creature answers with a Reaction, reacting whenever it can, for each
    cooldown (core rules, time and Reactions; :func:`balance.timeline.answered_triggers`).

    Returns
    -------
    DataFrame
        cooldown, second (each trigger's), answered (bool), ready_at (the first second the
        creature may react again after this trigger).
    """
    from ..core import timeline

    rules = resolve(rules)
    cds = check_integer_array("cooldowns", check_length("cooldowns", cooldowns), min=0,
                              max=10_000).reshape(-1)
    seconds = check_integer_array("triggers", check_length("triggers", triggers), min=0,
                                  max=10**9).reshape(-1)
    check_grid("reaction_grid", (cds.size, seconds.size), "cooldowns x triggers")
    frames = []
    for c in cds:
        answered = timeline.answered_triggers(seconds, cooldown=int(c), rules=rules)
        uses = np.sort(seconds[answered])
        last = np.searchsorted(uses, seconds, side="right") - 1  # the latest use at or before
        ready = seconds if uses.size == 0 else \
            np.where(last >= 0, uses[np.maximum(last, 0)] + int(c), seconds)
        frames.append(pd.DataFrame({"cooldown": int(c), "second": seconds,
                                    "answered": answered, "ready_at": ready}))
    return pd.concat(frames, ignore_index=True)
