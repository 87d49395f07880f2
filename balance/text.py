r"""Strings from rules files shown as text, never acted upon.

A variant may name an injury ``<script>``, ``[x](javascript:...)`` or ``![](http://host/img)``,
or hide NUL and ESC characters in a note. Whatever reaches a terminal or a file goes through
:func:`plain_text` (control characters dropped); whatever reaches ``report.md`` goes through
:func:`md_escape` (also HTML and Markdown syntax escaped) or, inside a code span, :func:`md_code`.
The HTML report escapes with :func:`html.escape` after :func:`plain_text`.

>>> plain_text("Weak\x1b[2J\x00!")
'Weak[2J!'
>>> md_escape("<img src=x onerror=alert(1)>")
'&lt;img src=x onerror=alert(1)&gt;'
>>> print(md_escape("![](http://host/img.png) [x](javascript:alert(1))"))
!\[\](http://host/img.png) \[x\](javascript:alert(1))
>>> print(md_code("a ` b"))
`` a ` b ``
"""
from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["plain_text", "plain_data", "md_escape", "md_code"]

#: C0 and C1 control characters, DEL, and the bidirectional overrides and isolates that can
#: make a terminal show text in another order than it is stored
_CONTROLS = [*range(0x00, 0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F),
             *range(0x2066, 0x206A)]
_LINE_BREAKS = re.compile("[\r\n\t\v\f\x1c-\x1e\x85\u2028\u2029]+")
#: characters that open Markdown inline syntax (emphasis, code, links, images, tables,
#: strike-through, math); ``!`` and ``(`` are harmless once ``[`` is escaped
_MARKDOWN = re.compile(r"([\\`*\[\]|~$])")
#: an underscore that could open or close emphasis (not between two letters or digits)
_UNDERSCORE = re.compile(r"(?<![^\W_])_|_(?![^\W_])")
#: what makes a line a heading, list item or rule when it starts a block
_BLOCK_START = re.compile(r"^(#{1,6}(?=\s|$)|[-+](?=\s|$)|-{2,}|=+(?=\s*$)"
                          r"|\d{1,9}(?=[.)](\s|$)))")


def plain_text(value: object, keep: str = "\n\t") -> str:
    """``str(value)`` without control characters: what is safe to print to a terminal or to
    write to a file.

    Parameters
    ----------
    value : object
        Shown as ``str(value)``.
    keep : str
        Control characters to keep (default newline and tab). Dropped: the other C0
        characters (NUL, ESC...), DEL, the C1 range and the bidirectional overrides and
        isolates (U+202A-U+202E, U+2066-U+2069).
    """
    return str(value).translate(_drop(keep))


def plain_data(value: object) -> object:
    r"""``value`` with :func:`plain_text` applied to every string (keys too) of its nested
    mappings, lists and tuples: data to print as JSON.

    >>> plain_data({"name\x1b": ["a\x00b", 1]})
    {'name': ['ab', 1]}
    """
    if isinstance(value, str):
        return plain_text(value)
    if isinstance(value, dict):
        return {plain_data(k): plain_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_data(v) for v in value]
    return value


@lru_cache(maxsize=8)
def _drop(keep: str) -> dict[int, None]:
    return {c: None for c in _CONTROLS if chr(c) not in keep}


def md_escape(value: object, *, block: bool = False) -> str:
    """``value`` as literal Markdown (CommonMark, GitHub) text on one line.

    Line breaks become spaces, control characters are dropped (:func:`plain_text`),
    ``& < >`` become entities (no HTML tag, no autolink), and the characters that open inline
    syntax are backslash-escaped: ``\\ ` * [ ] | ~ $`` and a ``_`` not inside a word (no
    link, image, emphasis, code, math or table cell).

    Parameters
    ----------
    value : object
        Shown as ``str(value)``.
    block : bool
        The text starts a line (a heading, a paragraph, a list item): leading spaces are
        removed and what would open a block is escaped too (``# ``, ``- ``, ``+ ``, ``1. ``,
        ``--``, a line of ``=``), so it never becomes a heading, list item or rule.
    """
    text = plain_text(_LINE_BREAKS.sub(" ", str(value)), keep="")
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _UNDERSCORE.sub(r"\\_", _MARKDOWN.sub(r"\\\1", text))
    if block:
        text = _BLOCK_START.sub(lambda m: f"{m[1]}\\" if m[1][0].isdigit() else f"\\{m[1]}",
                                text.lstrip())
    return text


def md_code(value: object) -> str:
    """``value`` as a Markdown code span, shown as it is on one line (control characters
    dropped): the fence is one backtick longer than any run of backticks inside, and nothing
    inside a code span is parsed (CommonMark 6.1). Not for table cells (use
    :func:`md_escape`)."""
    text = plain_text(_LINE_BREAKS.sub(" ", str(value)), keep="")
    fence = "`" * (max((len(r) for r in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or fence != "`" else ""
    return f"{fence}{pad}{text}{pad}{fence}"
