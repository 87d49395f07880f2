"""A variant against its baseline, for the report and for ``balance diff --html`` (one
renderer): what the rules change, value by value keyed as ``--set`` takes them, and every
metric of the regression catalogue with its test (:func:`balance.regression.compare_snapshots`: Holm's correction).

Computing (:func:`compare_rules`) is apart from the display tables (:func:`change_rows_shown`,
:func:`metrics_shown`), which only format.

>>> import balance as bl
>>> rows = change_rows(bl.load_rules("death_threshold_180"), bl.load_rules())
>>> rows[["key", "old", "new"]].to_dict("records")
[{'key': 'injuries.death_threshold', 'old': 176, 'new': 180}]
"""
from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from typing import Any

import pandas as pd

from ..labels import agreed, decimal_mark, text, unit_name
from ..rules import Rules, default_rules

__all__ = ["LEFT_OUT", "ALPHA", "compared_metrics", "compare_rules", "change_rows",
           "change_rows_shown", "metrics_shown", "category_shown", "describe",
           "death_curves_table", "value_shown", "changed"]

#: metrics left out of the report's comparisons (about 80 % of their Monte Carlo time);
#: ``balance diff`` has them
LEFT_OUT = ("fights.*", "duel.*")
ALPHA = 0.05


def compared_metrics() -> list:
    """The catalogue's metrics a report compares (all but :data:`LEFT_OUT`)."""
    from ..regression import catalogue

    return [m for m in catalogue()
            if not any(fnmatch.fnmatchcase(m.name, p) for p in LEFT_OUT)]


def death_curves_table(snapshot) -> pd.DataFrame:
    """The death-probability curves a snapshot stores, as a tidy frame (seconds, negative_hp,
    wounds, probability) that :func:`balance.plots.death_curves` draws."""
    curves = snapshot.curves.get("death_probability")
    if not curves:
        return pd.DataFrame(columns=["seconds", "negative_hp", "wounds", "probability"])
    return pd.concat([pd.DataFrame({"seconds": curves["seconds"],
                                    "negative_hp": curves["negative_hp"], "wounds": int(w),
                                    "probability": p})
                      for w, p in curves["wounds"].items()], ignore_index=True)


def change_rows(rules: Rules, base: Rules | None = None) -> pd.DataFrame:
    """What ``rules`` change against ``base`` (default: the bundled rules), one row per value
    keyed as ``--set`` takes it (``injuries.table.29.high``, rows counted from 1): key, old,
    new (:func:`balance.report.data.rule_changes`; a row only one side has is its mapping
    against None)."""
    from .data import rule_changes

    return rule_changes(rules, base).set_axis(["key", "old", "new"], axis=1)


def value_shown(value: Any, lang: str = "en") -> str:
    """A rules value for a reader: a table row as ``low 151 · high 175 · modifier -15``
    (names in both languages as ``en / fr``), a list as its items, booleans as yes / no,
    numbers with the language's decimal mark; a missing row as an em dash."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return text("yes" if value else "no", lang)
    if isinstance(value, float):
        return decimal_mark(f"{value:g}", lang)
    if isinstance(value, Mapping):
        return " · ".join(f"{k} {value_shown(v, lang)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(value_shown(v, lang) for v in value)
    return str(value)


def change_rows_shown(rows: pd.DataFrame, lang: str = "en", *,
                      base_name: str | None = None) -> pd.DataFrame:
    """:func:`change_rows` for display: rule, old value (or row), new value (or row)."""
    return pd.DataFrame({
        text("col_rule", lang): rows["key"],
        base_name or text("col_bundled", lang): [value_shown(v, lang) for v in rows["old"]],
        text("col_variant", lang): [value_shown(v, lang) for v in rows["new"]]})


def compare_rules(rules: Rules, baseline: Any, *, trials: int, seed: int,
                  alpha: float = ALPHA) -> dict | None:
    """Compare ``rules`` with ``baseline`` (Rules or a regression Snapshot); None when they
    are the same rules.

    Against rules, both sides are measured here (the catalogue but :data:`LEFT_OUT`, the
    baseline from ``seed``, the variant from an independent seed, as ``balance diff``);
    against a snapshot, the variant is measured with the snapshot's metrics, trials and an
    independent seed. Returns ``frame`` (the comparison), ``trials`` (the variant's),
    ``curves`` (the death curves both snapshots store, as tidy frames), ``base_rules`` (None
    when the snapshot's rules are not known here), ``changes`` (:func:`change_rows`
    against them, or against the bundled rules) and ``unmatched``: the metrics not compared
    because one side cannot measure them (no row of the name they read: a row removed, or
    renamed while its table changed length; or values that rule them out:
    :class:`balance.regression.rows.Unmeasurable`), one dict each (metric, side ``"base"`` or
    ``"variant"``, table, and the row, or ``what`` is impossible); plain data, so that it
    crosses processes.
    """
    from ..regression.diff import compare_snapshots, independent_seed, shared
    from ..regression.snapshot import take

    gone: dict[str, dict] = {"base": {}, "variant": {}}
    if isinstance(baseline, Rules):
        if baseline.fingerprint == rules.fingerprint:
            return None
        names = [m.name for m in compared_metrics()]
        base = take(baseline, trials=trials, seed=seed, only=names, removed=gone["base"])
        base_rules: Rules | None = baseline
    else:
        base = baseline
        names = [m.name for m in base.metrics]
        base_rules = default_rules() if base.fingerprint == default_rules().fingerprint \
            else None
    variant = take(rules, trials=base.trials, seed=independent_seed(base.seed), only=names,
                   removed=gone["variant"])
    base, variant = shared(base, variant)   # the metrics not compared: listed apart
    frame = compare_snapshots(base, variant, alpha=alpha)
    unmatched = [{"metric": name, "side": side, "table": exc.table,
                  "row": getattr(exc, "row", None), "what": getattr(exc, "what", None)}
                 for side, errors in gone.items() for name, exc in errors.items()]
    return {"frame": frame, "trials": variant.trials, "base_rules": base_rules,
            "curves": (death_curves_table(base), death_curves_table(variant)),
            "changes": change_rows(rules, base_rules), "unmatched": unmatched}


def changed(frame: pd.DataFrame) -> pd.DataFrame:
    """The metrics that changed: Monte Carlo ones significant after Holm's correction, exact
    ones that differ (the ``significant`` column of the comparison); those that moved beyond
    their tolerance first, then exact ones, then by p-value and by the size of the change."""
    rows = frame[frame["significant"]]
    order = rows.assign(_moved=~rows["moved"], _mc=~rows["exact"],
                        _p=rows["p_adjusted"].fillna(0.0), _size=-rows["change"].abs())
    return order.sort_values(["_moved", "_mc", "_p", "_size", "metric"], kind="stable").drop(
        columns=["_moved", "_mc", "_p", "_size"])


def _descriptions() -> dict:
    import tomllib
    from functools import lru_cache
    from importlib import resources

    @lru_cache(maxsize=1)
    def load() -> dict:
        raw = (resources.files("balance.report") / "metrics.toml").read_text(encoding="utf-8")
        data = tomllib.loads(raw)
        data["compiled"] = [(re.compile(d["pattern"]), d) for d in data["description"]]
        return data

    return load()


def describe(description: str, lang: str = "en", rules: tuple[Rules, ...] = ()) -> str:
    """A regression metric's ``description`` in ``lang`` (``metrics.toml``: a French text per
    kind of metric; sizes, wounds and qualities translated, injury and creature names from the
    rules data; counts agreeing with their nouns, :func:`balance.labels.agreed`); the English
    description when no pattern matches."""
    if lang == "en":
        return agreed(description, lang)
    data = _descriptions()
    for pattern, entry in data["compiled"]:
        match = pattern.match(description)
        if match and lang in entry:
            fields = {k: _word(v, lang, rules, data["words"])
                      for k, v in match.groupdict().items()}
            return agreed(entry[lang].format(**fields), lang)
    return agreed(description, lang)


def _word(value: str, lang: str, rules: tuple[Rules, ...], words: dict) -> str:
    """A word of a description in ``lang``: from ``words``, else an injury or creature name
    of the rules (creatures joined by ``+`` one by one)."""
    if value in words:
        return words[value]
    if re.fullmatch(r"[-+]?\d+\.\d+", value):
        return decimal_mark(value, lang)
    shown = category_shown(value, lang, rules)
    if shown != value:
        return shown
    names = {}
    for r in rules or (default_rules(),):
        names.update({row["en"]: row.get(lang) or row["en"]
                      for row in r["bestiary"]["creatures"] if "en" in row})
    return " + ".join(names.get(part, part) for part in value.split(" + "))


def category_shown(category: str, lang: str = "en", rules: tuple[Rules, ...] = ()) -> str:
    """A distribution metric's category in ``lang``: an injury by the rules' own names (its
    ``en``/``fr`` columns, of any of ``rules``), death, tiers and outcomes by their labels,
    ``injury -5`` as the severity band; a category without a translation as it is."""
    if lang == "en" or not category:
        return category
    for r in rules or (default_rules(),):
        sec = r["injuries"]
        for row in (*sec["table"], sec["death"], sec["automatic_death"]):
            if row.get("en") == category:
                return row.get(lang) or category
    if category.startswith("injury "):
        return f"{text('injury', lang)} {category[len('injury '):]}"
    key = f"cat_{category}"
    try:
        return text(key, lang)
    except KeyError:
        return "/".join(category_shown(c, lang, rules) for c in category.split("/")) \
            if "/" in category else category


def _unmeasured(frame: pd.DataFrame) -> list[bool]:
    """Per row: a side could not measure the metric (its table row is gone)."""
    if "unmeasured" not in frame:
        return [False] * len(frame)
    return [bool(u) for u in frame["unmeasured"]]


def metrics_shown(frame: pd.DataFrame, lang: str = "en", *, rows: str = "all",
                  base_name: str | None = None, variant_name: str | None = None,
                  rules: tuple[Rules, ...] = ()) -> pd.DataFrame:
    """A comparison as display strings, one row per metric: metric, kind, baseline, variant,
    change, test (p after Holm, or exact), significant, moved beyond tolerance.

    ``rows``: ``"all"``, ``"changed"`` (significant only) or ``"report"`` (every Monte Carlo
    metric and the exact ones that changed). Categories in ``lang`` (:func:`category_shown`
    with the names of ``rules``).
    """
    from ..regression.checking import change_text, p_text, value_text

    if rows == "changed":
        frame = changed(frame)
    elif rows == "report":
        frame = frame[~frame["exact"] | frame["significant"]]
    yes, no = text("yes", lang), text("no", lang)

    def mark(shown: str) -> str:
        return decimal_mark(shown, lang)

    return pd.DataFrame({
        text("col_metric_plain", lang): [
            m + (f" [{category_shown(c, lang, rules)}]" if c else "")
            for m, c in zip(frame["metric"], frame["category"])],
        text("col_kind", lang): frame["exact"].map({True: text("kind_exact", lang),
                                                    False: text("kind_mc", lang)}),
        base_name or text("col_base", lang): [mark(value_text(v, u))
                                              for v, u in zip(frame["base"], frame["unit"])],
        variant_name or text("col_variant_side", lang): [
            mark(value_text(v, u)) for v, u in zip(frame["variant"], frame["unit"])],
        text("col_change", lang): [mark(change_text(v, u, unit_name(u, lang)))
                                   for v, u in zip(frame["change"], frame["unit"])],
        text("col_test", lang): [
            text("not_measured", lang) if gone else text("exact", lang) if e else mark(p_text(p))
            for e, p, gone in zip(frame["exact"], frame["p_adjusted"], _unmeasured(frame))],
        text("col_significant", lang): frame["significant"].map({True: yes, False: no}),
        text("col_moved", lang): frame["moved"].map({True: yes, False: no}),
    }).reset_index(drop=True)
