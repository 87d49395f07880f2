"""Rendering a computed :class:`~balance.report.bundle.Bundle` into report sections (figures
drawn from the results, tables formatted). Nothing here samples or solves."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .bundle import Bundle
from ..labels import check_lang
from .findings import facts, findings_section
from .model import Section
from .topics import Context, topic_module

__all__ = ["render_sections", "render_topic", "RC"]

#: matplotlib settings of every figure; names from a rules file are text: a "$" never starts
#: mathtext
RC: dict[Any, Any] = {"font.size": 9, "text.parse_math": False}  # matplotlib rc keys


def render_topic(key: str, results, ctx: Context) -> Section | None:
    """One topic's section (None when the topic has no results for these rules)."""
    import matplotlib

    if results is None:
        return None
    with matplotlib.rc_context(RC):
        return topic_module(key).render(results, ctx)


def render_sections(bundle: Bundle, lang: str = "en",
                    on_step: Callable[[str], None] | None = None,
                    rendered: dict[str, Section | None] | None = None) -> list[Section]:
    """One :class:`Section` per computed topic, in report order, in ``lang``, after the key
    findings (:mod:`.findings`, drawn from those results). A topic whose results are None
    (e.g. the bundled variants in a variant's report) has no section. ``rendered``: sections
    already drawn (by :func:`render_topic` in worker processes), by topic key."""
    lang = check_lang(lang)
    ctx = Context(rules=bundle.rules, settings=bundle.settings, lang=lang)
    sections = []
    for key, results in bundle.results.items():
        section = rendered[key] if rendered is not None and key in rendered \
            else render_topic(key, results, ctx)
        if section is not None:
            sections.append(section)
        if on_step is not None:
            on_step(key)
    found = facts(bundle)
    return ([findings_section(found, sections, lang)] if found else []) + sections
