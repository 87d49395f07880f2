"""Rendering a computed :class:`~balance.report.bundle.Bundle` into report sections (figures
drawn from the results, tables formatted). Nothing here samples or solves."""
from __future__ import annotations

from collections.abc import Callable

from .bundle import Bundle
from ..labels import check_lang
from .findings import facts, findings_section
from .model import Section
from .topics import Context, topic_module

__all__ = ["render_sections"]


def render_sections(bundle: Bundle, lang: str = "en",
                    on_step: Callable[[str], None] | None = None) -> list[Section]:
    """One :class:`Section` per computed topic, in report order, in ``lang``, after the key
    findings (:mod:`.findings`, drawn from those results). A topic whose results are None
    (e.g. the bundled variants in a variant's report) has no section."""
    import matplotlib

    lang = check_lang(lang)
    ctx = Context(rules=bundle.rules, settings=bundle.settings, lang=lang)
    sections = []
    # names from a rules file are text: a "$" never starts mathtext
    with matplotlib.rc_context({"font.size": 9, "text.parse_math": False}):
        for key, results in bundle.results.items():
            if results is not None:
                sections.append(topic_module(key).render(results, ctx))
            if on_step is not None:
                on_step(key)
    found = facts(bundle)
    return ([findings_section(found, sections, lang)] if found else []) + sections
