"""Bilingual labels of the plots and the report, read from ``labels.toml``.

Names of rule things (injuries, outcomes, treatment levels) are not here: they come from the
rules data (``en``/``fr`` columns). ``text("seconds", "fr")`` -> ``"Secondes à PV négatifs"``.
"""
from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from importlib import resources

from .errors import check_choice, did_you_mean

__all__ = ["LANGS", "check_lang", "text", "agreed", "count", "decimal", "decimal_mark", "sources",
           "name_column", "unit_name", "cite", "section_name"]

#: languages every label has
LANGS = ("en", "fr")


@lru_cache(maxsize=1)
def _labels() -> dict[str, dict[str, str]]:
    raw = (resources.files("balance.report") / "labels.toml").read_text(encoding="utf-8")
    return tomllib.loads(raw)


def check_lang(lang: object) -> str:
    """``lang`` if it is one of :data:`LANGS`, else a one-line ``ValueError``."""
    return check_choice("lang", lang, LANGS)


def text(key: str, lang: str = "en", **fields: object) -> str:
    """The label ``key`` in ``lang`` (English as fallback), formatted with ``fields``; a
    count the label leaves open (``"{value} wound(s)"``) agrees with its number
    (:func:`agreed`).

    >>> text("wounds_n", "en", value=1), text("wounds_n", "fr", value=2)
    ('1 wound', '2 blessures')
    """
    labels = _labels()
    try:
        entry = labels[key]
    except KeyError:
        raise KeyError(f"no label '{key}'{did_you_mean(key, labels)}") from None
    template = entry.get(lang) or entry["en"]
    if not fields:
        return template
    shown = {k: decimal_mark(str(v), lang) if isinstance(v, float) else v
             for k, v in fields.items()}
    out = template.format(**shown)
    return agreed(out, lang) if _OPEN_ENDING.search(template) else out


#: a count and a noun whose plural is left open: "1 value(s)", "3 blessure(s)"
_OPEN_PLURAL = re.compile(r"\b(\d[\d\u202f,]*)(\s+)(\w+)\((s|es|x)\)")
#: a noun whose plural is left open, in a label
_OPEN_ENDING = re.compile(r"\w\((s|es|x)\)")


def agreed(sentence: str, lang: str) -> str:
    """``sentence`` with each "N noun(s)" agreeing with its count: singular for 1 (and for 0
    in French), plural otherwise (``"1 value(s)"`` -> ``"1 value"``, ``"0 wound(s)"`` ->
    ``"0 wounds"``, French ``"0 blessure(s)"`` -> ``"0 blessure"``).

    Examples
    --------
    >>> agreed("with 1 wound(s) and 3 value(s)", "en")
    'with 1 wound and 3 values'
    >>> agreed("0 blessure(s), 2 processus", "fr")
    '0 blessure, 2 processus'
    """
    def one(match: re.Match) -> str:
        number, space, noun, ending = match.groups()
        n = int(re.sub(r"\D", "", number))
        singular = n == 1 or (lang == "fr" and n == 0)
        return f"{number}{space}{noun}{'' if singular else ending}"
    return _OPEN_PLURAL.sub(one, sentence)


def count(value: int, lang: str = "en") -> str:
    """A whole number with the language's thousands separator: ``20,000`` in English,
    ``20 000`` (narrow no-break space) in French."""
    shown = f"{int(value):,}"
    return shown.replace(",", "\u202f") if lang == "fr" else shown


def decimal(value: float, digits: int | None = None, lang: str = "en") -> str:
    """A number with the language's decimal mark: ``12.3`` in English, ``12,3`` in French.

    ``digits`` fixes the number of decimals; ``None`` shows the shortest form (``:g``,
    ``0.5`` -> ``"0.5"``, ``2.0`` -> ``"2"``). Non-finite values are shown as they are.
    """
    shown = f"{value:.{digits}f}" if digits is not None else f"{value:g}"
    return decimal_mark(shown, lang)


def decimal_mark(shown: str, lang: str) -> str:
    """``shown`` (a number already written by Python, e.g. ``"0.1700"``) with the decimal
    mark of ``lang`` (``"0,1700"`` in French)."""
    return shown.replace(".", ",") if lang == "fr" else shown


def sources(names, lang: str = "en") -> str:
    """A rules object's ``sources`` joined with ``+``, the bundled rules named in ``lang``."""
    return " + ".join(text("source_bundled", lang) if n == "bundled" else str(n) for n in names)


def name_column(frame, base: str, lang: str = "en") -> str:
    """The column of ``frame`` naming rule things in ``lang``: ``injury_fr`` for
    ``("injury", "fr")`` when the frame has it, else ``base`` (the English names)."""
    column = f"{base}_{lang}"
    return column if lang != "en" and column in frame else base


def unit_name(unit: str, lang: str = "en") -> str:
    """A metric's unit in ``lang`` (label ``unit_<unit>``), or the unit as it is."""
    entry = _labels().get(f"unit_{unit}")
    return unit if entry is None else entry.get(lang) or entry["en"]


#: the rule documents by the first number of a section (1 core rules, 2 GM guide, 3 percentile)
_DOCUMENTS = {"1": "doc_core", "2": "doc_guide", "3": "doc_percentile"}
#: a numbered reference to our reading notes, as older variant notes wrote them: the notes'
#: file name, then "1.2", "§1.2-1.4", "1.5, 2.6" or "3.1 / 3.3" (see :func:`cite`)
_CITATION = re.compile(r"RULES\.md\s*§?\s*(\d\.\d(?:\s*(?:[-–,/]|and)\s*§?\d\.\d)*)")


def section_name(number: str, lang: str = "en") -> str:
    """A rule document's section by its number: ``"1.6"`` -> ``"core rules, rest"``."""
    doc, _, _ = number.partition(".")
    return f"{text(_DOCUMENTS[doc], lang)}, {text('rules_' + number.replace('.', '_'), lang)}"


def _numbers(refs: str) -> list[str]:
    """``"1.2-1.4, 2.6"`` -> ``["1.2", "1.3", "1.4", "2.6"]`` (a range within one document)."""
    out: list[str] = []
    for part in re.split(r"\s*(?:,|/|and)\s*", refs):
        ends = re.findall(r"(\d)\.(\d)", part)
        if len(ends) == 2 and ends[0][0] == ends[1][0]:
            out += [f"{ends[0][0]}.{k}" for k in range(int(ends[0][1]), int(ends[1][1]) + 1)]
        else:
            out += [f"{a}.{b}" for a, b in ends]
    return [n for n in dict.fromkeys(out) if f"rules_{n.replace('.', '_')}" in _labels()]


def cite(shown: str, lang: str = "en") -> str:
    """``shown`` with every reference to our reading notes (``RULES.md 1.2``) written as the
    rule document and section a reader has: ``core rules, dying and critical injuries``
    (sections of one document joined by ``/``, documents by ``;``:
    ``core rules, negotiation; GM guide, economy``).

    >>> cite("death at 176 (RULES.md 1.2)")
    'death at 176 (core rules, dying and critical injuries)'
    >>> cite("RULES.md 1.5, 2.6", "fr")
    'règles de base, négociation ; guide du MJ, économie'
    """
    def one(match: re.Match) -> str:
        numbers = _numbers(match.group(1))
        if not numbers:
            return match.group(0)
        by_doc: dict[str, list[str]] = {}
        for n in numbers:
            by_doc.setdefault(n[0], []).append(text("rules_" + n.replace(".", "_"), lang))
        sep = " ; " if lang == "fr" else "; "
        return sep.join(f"{text(_DOCUMENTS[d], lang)}, {' / '.join(names)}"
                        for d, names in by_doc.items())

    return _CITATION.sub(one, shown)
