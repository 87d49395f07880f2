"""Bilingual labels of the plots and the report, read from ``labels.toml``.

Names of rule things (injuries, outcomes, treatment levels) are not here: they come from the
rules data (``en``/``fr`` columns). ``text("seconds", "fr")`` -> ``"Secondes à PV négatifs"``.
"""
from __future__ import annotations

import tomllib
from functools import lru_cache
from importlib import resources

from .errors import check_choice, did_you_mean

__all__ = ["LANGS", "check_lang", "text", "count", "decimal", "decimal_mark", "sources",
           "name_column", "unit_name"]

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
    """The label ``key`` in ``lang`` (English as fallback), formatted with ``fields``."""
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
    return template.format(**shown)


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
