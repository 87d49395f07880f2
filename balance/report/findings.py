"""The report's key findings: a short list of conclusions drawn from the report's own numbers
(nothing is computed twice: each fact reads a computed topic's results), each with its interval
and the section it comes from. With a variant, what changed comes first: the rules values it
sets, then the metrics that differ significantly (Holm's correction, as ``balance diff``).

:func:`facts` reads a :class:`~balance.report.bundle.Bundle` into language-free facts (numbers,
intervals); :func:`findings_section` writes them in the report's language.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..labels import agreed, count, decimal, text
from .model import Finding, Section

__all__ = ["Fact", "facts", "findings_section", "KEY", "TYPICAL_SECONDS", "TYPICAL_HP",
           "DUEL_BASE", "DUEL_GAPS", "NEGOTIATION_PSYCHOLOGY", "MAX_CHANGES"]

KEY = "findings"
#: the death finding: stabilised after this many seconds at this negative HP (the death table's)
TYPICAL_SECONDS = 30
TYPICAL_HP = 5
#: the duel finding: fighters of this skill against one DUEL_GAPS points better
DUEL_BASE = 50
DUEL_GAPS = (10, 20, 40)
#: the negotiation finding: the best ask at this Psychology
NEGOTIATION_PSYCHOLOGY = 12
#: at most this many changed metrics and rules values listed among the findings
MAX_CHANGES = 6


@dataclass(frozen=True)
class Fact:
    """One conclusion as numbers: ``key`` (its kind), ``section`` (the topic it reads),
    ``values`` (what the sentence shows: probabilities with ``*_low``/``*_high`` 95 % bounds
    for Monte Carlo ones)."""

    key: str
    section: str
    values: dict[str, Any] = field(default_factory=dict)


def facts(bundle) -> list[Fact]:
    """Every key finding the bundle's computed topics support, what changed first."""
    out: list[Fact] = []
    r = bundle.results
    for topic, reader in (("changes", _changes), ("death", _death), ("rescue", _rescue),
                          ("injuries", _injuries), ("campaign", _campaign),
                          ("negotiation", _negotiation), ("encounters", _calibration),
                          ("duels", _duels)):
        if r.get(topic) is not None:
            out += reader(r[topic], bundle.rules)
    return out


def _changes(res: dict, rules) -> list[Fact]:
    out = []
    rows = res["changes"]
    if len(rows):
        out.append(Fact("rules_changed", "changes", {
            "count": len(rows), "rows": [(k, o, n) for k, o, n in
                                         rows[["key", "old", "new"]].head(3).itertuples(
                                             index=False)]}))
    comparison = res.get("comparison")
    if comparison is not None:
        from .compare import changed

        frame = comparison["frame"]
        moved = changed(frame)
        out.append(Fact("metrics_changed", "changes", {
            "count": len(moved), "total": len(frame),
            "exact": int(frame["exact"].sum()), "alpha": frame.attrs.get("alpha", 0.05),
            "listed": min(len(moved), MAX_CHANGES)}))
        for row in moved.head(MAX_CHANGES).itertuples(index=False):
            out.append(Fact("metric_changed", "changes", {
                "metric": row.metric, "category": row.category, "description": row.description,
                "unit": row.unit, "base": row.base, "variant": row.variant,
                "change": row.change, "exact": bool(row.exact), "p": row.p_adjusted}))
        gone = comparison.get("unmatched", ())
        if gone:   # the section's notes say why, one metric each
            sides = {u["side"] for u in gone}
            out.append(Fact("metrics_unmeasured", "changes", {
                "metrics": list(dict.fromkeys(u["metric"] for u in gone)),
                "where": sides.pop() if len(sides) == 1 else "either"}))
    return out


def _death(res: dict, rules) -> list[Fact]:
    grid = res["grid"]
    wall = rules["injuries"]["automatic_death_seconds"]
    seconds = TYPICAL_SECONDS if TYPICAL_SECONDS < wall else int(grid["seconds"].max())
    at = grid[(grid["seconds"] == seconds) & (grid["negative_hp"] == TYPICAL_HP)]
    p = at.set_index("wounds")["probability"]
    if 0 not in p.index or 3 not in p.index:
        return []
    return [Fact("death", "death", {"seconds": seconds, "negative_hp": TYPICAL_HP,
                                    "p0": float(p[0]), "p3": float(p[3]), "wall": wall})]


def _rescue(res: dict, rules) -> list[Fact]:
    from .topics.rescue import SCENARIO

    death = res["scenario"].extra["death"]
    total = death[death["death"] == "total"].set_index("wounds")
    values = {"arrival": SCENARIO["arrival"], "negative_hp": SCENARIO["negative_hp"]}
    for w in (0, 3):
        if w not in total.index:
            return []
        row = total.loc[w]
        values.update({f"p{w}": float(row["probability"]), f"p{w}_low": float(row["ci_low"]),
                       f"p{w}_high": float(row["ci_high"]), f"exact{w}": float(row["exact"])})
    return [Fact("rescue", "rescue", values)]


def _injuries(res: dict, rules) -> list[Fact]:
    table = res["table"]
    mods = table["modifier"].to_numpy()
    steps = [(int(table["low"].iloc[i]), int(mods[i - 1]), int(mods[i]))
             for i in range(1, len(mods)) if mods[i] != mods[i - 1]]
    return [Fact("injuries", "injuries", {"steps": steps,
                                          "threshold": int(rules["injuries"]["death_threshold"])})]


def _campaign(res: dict, rules) -> list[Fact]:
    from .topics.campaign import SCENARIO

    last = res["campaign"].table.iloc[-1]
    return [Fact("campaign", "campaign", {
        "fights": int(last["fight"]), "knockout": SCENARIO["knockout_chance"],
        "p": float(last["probability"]), "p_low": float(last["ci_low"]),
        "p_high": float(last["ci_high"])})]


def _negotiation(res: dict, rules) -> list[Fact]:
    best = res["best"].set_index("psychology")
    if NEGOTIATION_PSYCHOLOGY not in best.index:
        return []
    row = best.loc[NEGOTIATION_PSYCHOLOGY]
    first, last = best.index.min(), best.index.max()
    return [Fact("negotiation", "negotiation", {
        "psychology": NEGOTIATION_PSYCHOLOGY, "ask": float(row["ask"]),
        "change": float(row["expected_change"]), "first": int(first), "last": int(last),
        "ask_first": float(best.loc[first, "ask"]), "ask_last": float(best.loc[last, "ask"])})]


def _calibration(res: dict, rules) -> list[Fact]:
    check = res["check"]
    table, steps, summary = check.table, check.steps, check.summary
    spread = table.groupby("calibration")["party_win_rate"].agg(["min", "max"])
    widest = (spread["max"] - spread["min"]).idxmax()
    at = table[table["calibration"] == widest]
    low, high = at.loc[at["party_win_rate"].idxmin()], at.loc[at["party_win_rate"].idxmax()]
    names = _encounter_names(table, rules)
    return [Fact("calibration", "encounters", {
        "steps": len(steps), "monotone": int(steps["monotone"].sum()) if len(steps) else 0,
        "within_reversals": int(steps["significant_reversal"].sum()) if len(steps) else 0,
        "across_reversals": int(summary["across_family_reversals"].sum()),
        "calibration": str(widest),
        "low": float(low["party_win_rate"]), "low_low": float(low["win_ci_low"]),
        "low_high": float(low["win_ci_high"]), "low_encounter": names[low.name],
        "high": float(high["party_win_rate"]), "high_low": float(high["win_ci_low"]),
        "high_high": float(high["win_ci_high"]), "high_encounter": names[high.name]})]


def _encounter_names(table, rules) -> dict:
    """Each encounter's name in every language (creature names from the rules' bestiary)."""
    from ..labels import LANGS
    from .topics import Context
    from .topics.encounters import _translated

    shown = {lang: _translated(table, Context(rules=rules, settings=None, lang=lang))["encounter"]
             for lang in LANGS}
    return {i: {lang: str(shown[lang][i]) for lang in LANGS} for i in table.index}


def _duels(res: dict, rules) -> list[Fact]:
    table = res["duels"]
    rows = []
    for gap in DUEL_GAPS:
        hit = table[(table["first_skill"] == DUEL_BASE + gap) &
                    (table["second_skill"] == DUEL_BASE)]
        if len(hit):
            r = hit.iloc[0]
            rows.append((gap, float(r["first_wins"]), float(r["ci_low"]), float(r["ci_high"])))
    return [Fact("duels", "duels", {"base": DUEL_BASE, "gaps": rows,
                                    "trials": int(table["trials"].iloc[0])})] if rows else []


# --- writing -------------------------------------------------------------------------------
def _p(p: float, lang: str, digits: int = 1) -> str:
    return f"{decimal(100 * p, digits, lang)} %"


def _ci(p: float, low: float, high: float, lang: str, digits: int = 1) -> str:
    return f"{_p(p, lang, digits)} ({_p(low, lang, digits)} – {_p(high, lang, digits)})"


def _sentence(fact: Fact, lang: str) -> str:
    v = fact.values
    t = lambda key, **f: text(key, lang, **f)  # noqa: E731
    if fact.key == "rules_changed":
        from .compare import value_shown
        shown = "; ".join(f"{k}: {value_shown(o, lang)} → {value_shown(n, lang)}"
                          for k, o, n in v["rows"])
        more = t("finding_more", count=v["count"] - len(v["rows"])) \
            if v["count"] > len(v["rows"]) else ""
        return t("finding_rules_changed", count=v["count"], shown=shown, more=more)
    if fact.key == "metrics_changed":
        if not v["count"]:
            return t("finding_metrics_unchanged", total=v["total"], alpha=v["alpha"])
        listed = v.get("listed", min(v["count"], MAX_CHANGES))
        follow = t("finding_listed_all" if listed >= v["count"] else "finding_listed_first",
                   listed=listed)
        key = "finding_metrics_changed_one" if v["count"] == 1 else "finding_metrics_changed"
        return t(key, count=v["count"], total=v["total"], alpha=v["alpha"], follow=follow)
    if fact.key == "metrics_unmeasured":
        names = v["metrics"]
        return t("finding_unmeasured_one" if len(names) == 1 else "finding_unmeasured",
                 count=len(names), metrics=", ".join(names),
                 where=t(f"finding_unmeasured_{v['where']}"))
    if fact.key == "metric_changed":
        from ..regression.checking import change_text, p_text, value_text
        from ..labels import decimal_mark, unit_name
        from .compare import category_shown, describe

        what = describe(v["description"], lang)
        what = what[:1].upper() + what[1:]  # a description goes inside a sentence; this one starts it
        if v["category"]:
            what += f" [{category_shown(v['category'], lang)}]"
        test = t("exact") if v["exact"] else f"p = {decimal_mark(p_text(v['p']), lang)}"
        return t("finding_metric_changed", what=what,
                 base=decimal_mark(value_text(v["base"], v["unit"]), lang),
                 variant=decimal_mark(value_text(v["variant"], v["unit"]), lang),
                 change=decimal_mark(change_text(v["change"], v["unit"],
                                                 unit_name(v["unit"], lang)), lang), test=test)
    if fact.key == "death":
        return t("finding_death", seconds=v["seconds"], hp=v["negative_hp"],
                 p0=_p(v["p0"], lang), p3=_p(v["p3"], lang), wall=v["wall"])
    if fact.key == "rescue":
        return t("finding_rescue", arrival=v["arrival"], hp=v["negative_hp"],
                 p0=_ci(v["p0"], v["p0_low"], v["p0_high"], lang, 2),
                 p3=_ci(v["p3"], v["p3_low"], v["p3_high"], lang))
    if fact.key == "injuries":
        steps = [t("finding_step", low=low, before=a, after=b) for low, a, b in v["steps"]]
        if not steps:
            return t("finding_injuries_flat", threshold=v["threshold"])
        return t("finding_injuries", steps=", ".join(steps), threshold=v["threshold"])
    if fact.key == "campaign":
        return t("finding_campaign", fights=v["fights"], knockout=_p(v["knockout"], lang, 0),
                 p=_ci(v["p"], v["p_low"], v["p_high"], lang))
    if fact.key == "negotiation":
        return t("finding_negotiation", psychology=v["psychology"],
                 ask=decimal(v["ask"], None, lang), change=decimal(v["change"], 2, lang),
                 first=v["first"], last=v["last"], ask_first=decimal(v["ask_first"], None, lang),
                 ask_last=decimal(v["ask_last"], None, lang))
    if fact.key == "calibration":
        within = t("finding_within_holds" if v["within_reversals"] == 0 else
                   "finding_within_fails", monotone=v["monotone"], steps=v["steps"],
                   reversals=v["within_reversals"])
        across = t("finding_across_fails" if v["across_reversals"] else
                   "finding_across_holds", calibration=v["calibration"],
                   low=_ci(v["low"], v["low_low"], v["low_high"], lang),
                   low_encounter=v["low_encounter"][lang],
                   high=_ci(v["high"], v["high_low"], v["high_high"], lang),
                   high_encounter=v["high_encounter"][lang], reversals=v["across_reversals"])
        return f"{within} {across}"
    if fact.key == "duels":
        gaps = [t("finding_duel_gap", skill=v["base"] + g, p=_ci(p, lo, hi, lang))
                for g, p, lo, hi in v["gaps"]]
        return t("finding_duels", base=v["base"], gaps=", ".join(gaps),
                 trials=count(v["trials"], lang))
    raise KeyError(f"no sentence for the finding '{fact.key}'")


def findings_section(found: list[Fact], sections: list[Section], lang: str) -> Section:
    """The key-findings section: one linked line per fact (to the section it comes from)."""
    titles = {s.key: s.title for s in sections}
    items = tuple(Finding(text=agreed(_sentence(f, lang), lang), target=f.section,
                          link=titles.get(f.section, f.section)) for f in found
                  if f.section in titles)
    changed = any(f.section == "changes" for f in found)
    return Section(key=KEY, title=text("sec_findings", lang),
                   text=text("sec_findings_text_variant" if changed else "sec_findings_text",
                             lang),
                   findings=items)

