"""Bilingual names: find a row of a rules table by its English or French name."""
from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence

from .errors import did_you_mean, shown

__all__ = ["normalise", "find_row", "label"]


def normalise(name: str) -> str:
    """Case-, accent- and spacing-insensitive form of a name (``"Étourdi"`` -> ``"etourdi"``)."""
    text = unicodedata.normalize("NFKD", str(name))
    text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join(text.replace("’", "'").lower().split())


def find_row(rows: Sequence[Mapping], name: object, what: str,
             keys: tuple[str, ...] = ("en", "fr")) -> tuple[int, Mapping]:
    """Index and row of ``rows`` whose English or French name is ``name``.

    Raises a one-line ``ValueError`` naming ``what`` (the argument) and a close match.
    """
    if not isinstance(name, str):
        raise ValueError(f"{what} must be a name (English or French), got {shown(name)}")
    wanted = normalise(name)
    for i, row in enumerate(rows):
        if any(normalise(row[k]) == wanted for k in keys if k in row):
            return i, row
    choices = [row[k] for row in rows for k in keys if k in row]
    raise ValueError(f"unknown {what} {shown(name)}{did_you_mean(name, choices)}; accepted: "
                     f"the English or French names of the table, e.g. "
                     f"{', '.join(repr(r[keys[0]]) for r in rows[:3])}")


def label(thing: Mapping, lang: str = "en") -> str:
    """The ``lang`` name of a named thing (``{"en": ..., "fr": ...}``), English as fallback."""
    return thing.get(lang) or thing.get("en") or ""
