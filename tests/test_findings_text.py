"""The key findings' words (review of issue 15): counts agree with their nouns in English and
French ("1 value", "2 values", "0 wounds"; "1 valeur", "0 blessure", "2 blessures"), and the
sentence introducing the changed metrics does not end on a colon followed by sibling items.
Facts are built by hand: no report is computed (fast)."""
from __future__ import annotations

import pytest

from balance.labels import text
from balance.report import findings
from balance.report.findings import Fact


def sentence(fact: Fact, lang: str) -> str:
    section = findings.findings_section([fact], [_Section(fact.section)], lang)
    (item,) = section.findings
    return item.text


class _Section:
    def __init__(self, key: str):
        self.key, self.title = key, key


def rules_changed(count: int) -> Fact:
    rows = [(f"injuries.key{i}", i, i + 1) for i in range(min(count, 3))]
    return Fact("rules_changed", "changes", {"count": count, "rows": rows})


@pytest.mark.parametrize("count,en,fr", [
    (1, "change 1 value:", "changent 1 valeur :"),
    (2, "change 2 values:", "changent 2 valeurs :"),
    (4, "and 1 more.", "et 1 autre."),
    (5, "and 2 more.", "et 2 autres."),
])
def test_rules_changed_counts_agree(count, en, fr):
    assert en in sentence(rules_changed(count), "en")
    assert fr in sentence(rules_changed(count), "fr")
    for lang in ("en", "fr"):
        assert "(s)" not in sentence(rules_changed(count), lang)


@pytest.mark.parametrize("wounds,en,fr", [(0, "0 wounds", "0 blessure"),
                                         (1, "1 wound", "1 blessure"),
                                         (3, "3 wounds", "3 blessures")])
def test_a_metric_description_counts_its_wounds(wounds, en, fr):
    description = (f"P(death) when stabilised after 40 s at -6 HP with {wounds} wound(s)")
    fact = Fact("metric_changed", "changes", {
        "metric": "death.p", "category": "", "description": description, "unit": "probability",
        "base": 0.17, "variant": 0.1, "change": -0.07, "exact": True, "p": None})
    shown = {lang: sentence(fact, lang) for lang in ("en", "fr")}
    assert f"with {en}:" in shown["en"] or f"with {en} " in shown["en"], shown["en"]
    assert fr in shown["fr"] and "(s)" not in shown["fr"] and "(s)" not in shown["en"]
    if wounds == 1:
        assert "1 wounds" not in shown["en"] and "1 blessures" not in shown["fr"]


@pytest.mark.parametrize("count,listed", [(1, 1), (4, 4), (15, findings.MAX_CHANGES)])
def test_the_changed_metrics_sentence_introduces_the_items_that_follow(count, listed):
    fact = Fact("metrics_changed", "changes", {"count": count, "total": 52, "exact": 10,
                                               "alpha": 0.05, "listed": listed})
    for lang in ("en", "fr"):
        shown = sentence(fact, lang)
        assert not shown.rstrip().endswith(":"), shown
        assert shown.endswith("."), shown
        assert "among them" not in shown and "parmi elles" not in shown
    en = sentence(fact, "en")
    assert en.startswith(f"{count} of 52 metrics {'differs' if count == 1 else 'differ'} ")
    if listed < count:
        assert f"the first {listed} " in en


def test_the_report_header_needs_no_plural_guess():
    for lang in ("en", "fr"):
        for workers in (1, 2):
            shown = text("mc_settings", lang, trials="2,000", seed=1, workers=workers)
            assert "(es)" not in shown and "(s)" not in shown


def test_the_catalogue_descriptions_count_their_wounds():
    # the regression catalogue's descriptions (balance diff, balance check, the report's
    # comparison) agree with the counts they carry, in English and in French
    import re

    from balance.regression import catalogue
    from balance.report.compare import describe

    said = {m.name: m.description for m in catalogue()}
    for name, description in said.items():
        for lang in ("en", "fr"):
            assert not re.search(r"\w\((s|es|x)\)", describe(description, lang)), (name, lang)
    assert said["death.p@40s,6hp,1w"] == "P(death) when stabilised after 40 s at -6 HP with 1 wound"
    ends = {"death.p@30s,5hp,0w": ("with 0 wounds", "avec 0 blessure"),
            "death.p@60s,10hp,1w": ("with 1 wound", "avec 1 blessure"),
            "death.p@30s,5hp,2w": ("with 2 wounds", "avec 2 blessures"),
            "injuries.outcomes@60s,5hp,0w": ("-5 HP, 0 wounds", "-5 PV, 0 blessure"),
            "injuries.outcomes@30s,10hp,2w": ("-10 HP, 2 wounds", "-10 PV, 2 blessures"),
            "mc.rescue_death@2d20s,1d10hp,2w": ("with 2 wounds", "avec 2 blessures")}
    for name, (en, fr) in ends.items():
        assert said[name].endswith(en) and describe(said[name], "fr").endswith(fr), name
    assert "-1d6 HP with 1 wound, stabilised" in said["rescue.death@10+2d20s,1d6hp,1w"]
    assert "-1d6 PV avec 2 blessures, stabilisé" in describe(
        said["rescue.death@10+2d20s,1d6hp,2w"], "fr")
    assert ", 1 wound (Monte Carlo" in said["mc.death@60s,10hp,1w"]
    # a snapshot written before (descriptions "with 1 wound(s)") is still described in French
    assert describe("P(death) when stabilised after 40 s at -6 HP with 1 wound(s)", "fr") == (
        "P(mort) à la stabilisation après 40 s à -6 PV avec 1 blessure")
