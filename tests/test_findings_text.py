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
