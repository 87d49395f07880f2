"""Section: what surprise, charges and special effects do in a percentile duel (percentile rules,
combat; surprise and special effects): P(70 % wins) against a 50 % fighter in each situation, with
its interval and
its change against the duel as set. Cheap enough for the default report: a few thousand duels
per situation, intervals shown.

The section's words live here, in both languages, until they move to ``labels.toml`` (owned by
the report's maintainer).
"""
from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pandas as pd

from ... import percentile
from ...labels import count, decimal
from ...regression.rows import row
from ...rules import Rules
from ..model import Table
from ._base import Context, fmt_estimate, make_section

KEY = "special_effects"
REQUIRES = ("balance.percentile", "balance.montecarlo")
RULES_SECTIONS = ("percentile.special_effects", "percentile.surprise", "percentile.combat",
                  "percentile.weapons")
SKILLS = (70, 50)

WORDS = {
    "title": {"en": "What surprise and special effects do",
              "fr": "Ce que font la surprise et les effets spéciaux"},
    "text": {"en": ("A {a} % fighter against a {b} % one (average humans, broadswords): the "
                    "probability that the {a} % side wins in each situation, and how far it moves "
                    "from the duel as set (both sides spend their special effects by the default "
                    "policy). {n} duels per situation; the special effects are Mythras core's, "
                    "simplified for the duel (assumed)."),
             "fr": ("Un combattant à {a} % contre un à {b} % (humains moyens, épées larges) : la "
                    "probabilité que le côté à {a} % gagne dans chaque situation, et son écart au "
                    "duel tel quel (les deux côtés dépensent leurs effets spéciaux selon la "
                    "politique par défaut). {n} duels par situation ; les effets spéciaux sont "
                    "ceux de Mythras, simplifiés pour le duel (hypothèse).")},
    "caption": {"en": "P(first wins) with 95 % intervals; change against the first row",
                "fr": "P(le premier gagne) avec intervalles à 95 % ; écart à la première ligne"},
    "situation": {"en": "situation", "fr": "situation"},
    "wins": {"en": "first wins", "fr": "le premier gagne"},
    "change": {"en": "change (95 %)", "fr": "écart (95 %)"},
    "without": {"en": "without {name}", "fr": "sans {name}"},
}

NAMES_FR = {
    "as set": "tel quel", "first surprises second": "le premier surprend le second",
    "second surprises first": "le second surprend le premier",
    "first charges": "le premier charge", "second charges": "le second charge",
    "both charge": "les deux chargent", "no special effects spent": "aucun effet spécial dépensé",
    "only attackers spend (legacy)": "seuls les attaquants dépensent (ancien)",
    "first spends none": "le premier ne dépense rien",
    "second spends none": "le second ne dépense rien",
}


def _w(key: str, lang: str, **fields) -> str:
    entry = WORDS[key]
    return (entry.get(lang) or entry["en"]).format(**fields)


def duel_trials(settings) -> int:
    """Duels per situation: a fiftieth of the report's trials, 2,000 to 20,000."""
    return min(20_000, max(2_000, settings.trials // 50))


def situations(rules: Rules) -> dict:
    """The default situations, then the default policy without each effect it lists."""
    out = dict(percentile.SITUATIONS)
    pol = rules["percentile"]["special_effects"]["policies"]["default"]
    for key in dict.fromkeys([*pol["attacker"], *pol["defender"]]):
        out[f"without:{key}"] = {"policies": {
            "attacker": [k for k in pol["attacker"] if k != key],
            "defender": [k for k in pol["defender"] if k != key]}}
    return out


def compute(rules: Rules, settings) -> dict:
    # the weapon at the bundled broadsword's position (a renamed table still works)
    w = row(rules, "percentile.weapons.table", "broadsword", KEY, column="key")
    a, b = (percentile.combatant(s, weapon=(w["damage"], w["size"]), rules=rules)
            for s in SKILLS)
    table = percentile.duel_situations(a, b, situations(rules), trials=duel_trials(settings),
                                       seed=settings.seed, rules=rules,
                                       workers=settings.workers)
    return {"situations": table}


def _points(x: float, lang: str) -> str:
    """A change of probability in percentage points, signed (``+10.3 pts``)."""
    return f"{'+' if x >= 0 else '−'}{decimal(abs(100 * x), 1, lang)} pts"


def _label(name: str, rules: Rules, lang: str) -> str:
    if name.startswith("without:"):
        key = name.split(":", 1)[1]
        row = next(r for r in rules["percentile"]["special_effects"]["table"] if r["key"] == key)
        return _w("without", lang, name=row.get(lang) or row["en"])
    return NAMES_FR.get(name, name) if lang == "fr" else name


def render(results: dict, ctx: Context):
    table = results["situations"]
    lang = ctx.lang
    shown = pd.DataFrame({
        _w("situation", lang): [_label(s, ctx.rules, lang) for s in table["situation"]],
        _w("wins", lang): [fmt_estimate(p, lo, hi, lang=lang) for p, lo, hi in
                           zip(table["first_wins"], table["ci_low"], table["ci_high"])],
        _w("change", lang): [f"{_points(c, lang)} ({_points(lo, lang)} … {_points(hi, lang)})"
                             for c, lo, hi in zip(table["change"], table["change_low"],
                                                  table["change_high"])],
    })
    run = SimpleNamespace(trials=int(table["trials"].iloc[0]), seed=table["seed"].iloc[0])
    a, b = SKILLS
    section = make_section(ctx, KEY, title="sec_duels", rules_sections=RULES_SECTIONS,
                           simulated=[run],
                           tables=(Table(f"{KEY}_table", shown, _w("caption", lang)),))
    return dataclasses.replace(section, title=_w("title", lang),
                               text=_w("text", lang, a=a, b=b, n=count(run.trials, lang)))
