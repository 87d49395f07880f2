"""The report's section texts state the rules they ran on: a variant's numbers, never the bundled
ones written into a label (each text checked in English and French, under a variant)."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

import balance as bl
from balance.report.topics import d20, negotiation, negotiation_rules, rescue, treatment
from balance.report.topics._base import Context

SETTINGS = SimpleNamespace(trials=200, seed=1, workers=1)
CASES = {
    "d20": (d20, {"d20": {"die": 30}}, {"en": ["1d30"], "fr": ["1d30"]}, ["1d20"]),
    "treatment": (treatment, {"treatment": {"light": {"bonus": 5, "retry_minutes": 30},
                                            "full": {"retry_minutes": 720}}},
                  {"en": ["light treatment +5, attempts 30 min apart",
                          "full treatment +0, attempts 12 h apart"],
                   "fr": ["soin léger +5, tentatives espacées de 30 min",
                          "soin complet +0, tentatives espacées de 12 h"]},
                  ["+2", "per hour", "par heure"]),
    "negotiation": (negotiation, {"negotiation": {"partial_divisor": 5, "full_divisor": 3}},
                    {"en": ["S.P. < X/5 unchanged", "S.P. >= X/3 by X %"],
                     "fr": ["P.R. < X/5 inchangé", "P.R. >= X/3 de X %"]}, ["X/4", "X/2"]),
    "negotiation_rules": (negotiation_rules, {"economy": {"currency": "gp", "negotiation": {
        "buy_success_percent": 80, "buy_critical_percent": 40}}},
        {"en": ["success 80 %, natural 20 40 %", "price 200 gp"],
         "fr": ["réussite 80 %, 20 naturel 40 %", "prix 200 gp"]},
        ["75 %", "50 %", "NX"]),
}


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("name", list(CASES))
def test_section_text_states_the_variant(name, lang):
    topic, change, wanted, bundled = CASES[name]
    rules = bl.load_rules().updated(change)
    section = topic.render(topic.compute(rules, SETTINGS), Context(rules, SETTINGS, lang))
    for words in wanted[lang]:
        assert words in section.text, (words, section.text)
    for words in bundled:
        assert words not in section.text, (words, section.text)


def test_rescue_table_states_the_variant_automatic_death():
    rules = bl.load_rules().updated({"injuries": {"automatic_death_seconds": 100}})
    section = rescue.render(rescue.compute(rules, SETTINGS), Context(rules, SETTINGS, "en"))
    cells = " ".join(" ".join(map(str, t.frame.to_numpy().ravel())) for t in section.tables)
    assert "automatic (100 s)" in cells and "175" not in cells


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_appendix_states_the_variant(lang):
    from balance.report.topics import assumptions
    from balance.report.readings import readings
    rules = bl.load_rules().updated({"rest": {"max_hours_per_day": 8, "window_hours": 48},
                                     "fights": {"max_rounds": 40}})
    section = assumptions.render(assumptions.compute(rules, SETTINGS),
                                 Context(rules, SETTINGS, lang))
    shown, notes = (t.frame for t in section.tables)
    text = " ".join(shown.iloc[:, 1])
    assert ("8 counted hours in any 48 h" if lang == "en" else "8 heures comptées sur 48 h") in text
    # a value the variant sets is no longer an assumption: no note written for the bundled one
    keys = set(notes.iloc[:, 0])
    assert "fights.max_rounds" not in keys and "fights.seconds_per_round" in keys
    # a shipped note shown for another value says which value it was written for
    from balance.report.readings import assumed_note
    prefix = {"en": "Written for the bundled value (100): ",
              "fr": "Écrit pour la valeur d'origine (100) : "}[lang]
    assert assumed_note("fights.max_rounds", "", lang, None, 100).startswith(prefix)
    assert not assumed_note("fights.max_rounds", "", lang).startswith(prefix)
    # every field of every reading is filled, for the bundled rules and the variant
    for r in (None, rules):
        assert not any("{" in row["text"] for row in readings(lang, r))


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_readings_give_the_rates_divisors_and_currency_in_effect(lang):
    from balance.report.readings import readings
    rules = bl.load_rules().updated({"time": {"ap_per_second": 2},
                                     "negotiation": {"partial_divisor": 5},
                                     "economy": {"currency": "gp"}})
    text = {r["section"]: "" for r in readings(lang, rules)}
    for r in readings(lang, rules):
        text[r["section"]] += r["text"]
    assert ("2 A.P. per second" if lang == "en" else "2 P.A. par seconde") in text["1.4"]
    assert "X/5" in text["1.5"] and "X/4" not in text["1.5"] and "gp" in text["1.5"]
    assert "NX" not in text["1.5"]
    # the grade factors are the bundled table's, whichever table is in effect
    assert ("bundled" if lang == "en" else "fournies") in text["3.1"]
