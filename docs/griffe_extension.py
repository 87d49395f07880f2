"""Griffe extension for the API pages: docstrings written for doctest and numpydoc read as Markdown.

- A doctest (``>>>`` lines and their output) outside an ``Examples`` section becomes a fenced
  ``pycon`` block, so its output (``['fight', 'deaths']``) is not read as a Markdown link.
  Inside ``Examples`` the numpydoc parser already makes it code.
- Sphinx roles (``:func:`x```, ``:class:`~x```...) become inline code: the docstrings name
  modules by their notebook names (``balance.treatment``), which are not the real paths.
"""
from __future__ import annotations

import re

import griffe

_ROLE = re.compile(r":(?:func|class|mod|meth|data|attr|exc|obj|const):`~?([^`]+)`")
_SECTION = re.compile(r"^\s*-{3,}\s*$")


def fence_doctests(text: str) -> str:
    lines = text.splitlines()
    out: list[str] = []
    in_examples = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if i + 1 < len(lines) and _SECTION.match(lines[i + 1]) and line.strip():
            in_examples = line.strip() in ("Examples", "Example")
        if not in_examples and line.lstrip().startswith(">>>"):
            indent = line[:len(line) - len(line.lstrip())]
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
                i += 1
            out += [f"{indent}```pycon", *(indent + b for b in block), f"{indent}```"]
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


class MarkdownDocstrings(griffe.Extension):
    """Applied to every object's docstring before it is parsed."""

    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = fence_doctests(_ROLE.sub(r"`\1`", obj.docstring.value))
