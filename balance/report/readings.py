"""The readings of ambiguous rules and the notes of the assumed values, in the report's
language, from ``readings.toml`` (shipped with the report): the appendix "Rules, readings and
assumptions" lists them, generated from the data.

>>> rows = readings("fr")
>>> rows[0]["section"], rows[0]["where"]
('1.2', 'règles de base, agonie et blessures critiques')
>>> assumed_note("fights.max_rounds", "", "en")[:19]
'A simulation bound,'
"""
from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from importlib import resources
from typing import Any

from ..labels import check_lang, cite, section_name
from ..rules import Rules, resolve

__all__ = ["readings", "assumed_note", "data"]


@lru_cache(maxsize=1)
def data() -> dict[str, Any]:
    """``readings.toml`` as it is: ``reading`` (a list) and ``assumed`` (key -> en/fr)."""
    raw = (resources.files("balance.report") / "readings.toml").read_text(encoding="utf-8")
    return tomllib.loads(raw)


#: ``{rules.key}`` in a reading's text: the value of that key in the rules in effect
_FIELD = re.compile(r"\{([a-z_][a-z0-9_.]*)\}")


def _shown(value: object) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def readings(lang: str = "en", rules: Rules | None = None) -> list[dict[str, Any]]:
    """Every reading: ``section`` (``"1.2"``), ``where`` (the document and section, in
    ``lang``), ``text`` (in ``lang``, its ``{key}`` fields filled from ``rules``, default the
    bundled ones) and ``rules`` (the rules-data keys that set it)."""
    lang = check_lang(lang)
    rules = resolve(rules)
    fill = lambda m: _shown(rules.get(m.group(1)))  # noqa: E731
    return [{"section": r["section"], "where": section_name(r["section"], lang),
             "text": _FIELD.sub(fill, r.get(lang) or r["en"]), "rules": tuple(r.get("rules", ()))}
            for r in data()["reading"]]


def assumed_note(key: str, note: str, lang: str = "en", bundled: str | None = None,
                 changed_from: object = None) -> str:
    """The reader's note of the assumed value ``key`` in ``lang``: the shipped translation
    when the key is a bundled one and ``note`` is the bundled rules' note (``bundled``; None:
    not checked), else the rules data's own ``note`` (a variant's) with its references written
    as document and section (:func:`balance.labels.cite`). A shipped note is written for the
    bundled value: ``changed_from`` (the bundled value, when the rules in effect set another)
    says so before it."""
    lang = check_lang(lang)
    entry = data()["assumed"].get(key)
    if entry is not None and (bundled is None or note == bundled):
        text = entry.get(lang) or entry["en"]
        if changed_from is None:
            return text
        return data()["changed"][lang].format(value=_shown(changed_from)) + text
    return cite(str(note), lang)
