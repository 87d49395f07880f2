"""Variant files written back: the part of a rule set that differs from the bundled rules, as
TOML that :func:`balance.load_rules` reads again (used by :meth:`balance.Rules.save`).

Only what changed is written: a changed value under its section, and a changed row table
(the injury table, the bestiary...) whole, since a variant replaces a table by its rows. The
writer knows the few TOML forms the rules data uses: tables, numbers, text, true/false, lists
of plain values and lists of inline tables.

>>> print(variant_text({"injuries": {"death_threshold": 183, "die": 100}},
...                    {"injuries": {"death_threshold": 176, "die": 100}}), end="")
[injuries]
death_threshold = 183
"""
from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .._atomic import write_file

__all__ = ["changes", "variant_text", "save_variant"]

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def changes(data: Mapping, defaults: Mapping) -> dict:
    """The nested dict of what ``data`` sets differently from ``defaults`` (row tables whole)."""
    out: dict = {}
    for key, value in data.items():
        base = defaults.get(key, None) if isinstance(defaults, Mapping) else None
        if isinstance(value, Mapping) and isinstance(base, Mapping):
            sub = changes(value, base)
            if sub:
                out[key] = sub
        elif key not in defaults or value != base:
            out[key] = value
    return out


def _key(key: str) -> str:
    return key if _BARE.match(key) else _string(key)


def _string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"a rules value must be finite, got {value}")
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, (list, tuple)):
        items = [_value(v) for v in value]
        if value and all(isinstance(v, Mapping) for v in value):
            return "[\n" + "".join(f"  {item},\n" for item in items) + "]"
        return "[" + ", ".join(items) + "]"
    raise ValueError(f"cannot write {value!r} ({type(value).__name__}) as a rules value")


def _section(path: list[str], table: Mapping, lines: list[str]) -> None:
    plain = [(k, v) for k, v in table.items() if not isinstance(v, Mapping)]
    nested = [(k, v) for k, v in table.items() if isinstance(v, Mapping)]
    if path and (plain or not nested):
        lines.append(f"[{'.'.join(_key(p) for p in path)}]")
    lines.extend(f"{_key(k)} = {_value(v)}" for k, v in plain)
    if path and (plain or not nested):
        lines.append("")
    for k, v in nested:
        _section(path + [k], v, lines)


def variant_text(data: Mapping, defaults: Mapping, *, header: str = "") -> str:
    """TOML text of what ``data`` changes against ``defaults`` (``header``: comment lines)."""
    lines = [f"# {line}" for line in header.splitlines()]
    if lines:
        lines.append("")
    _section([], changes(data, defaults), lines)
    while lines and lines[-1] == "":
        lines.pop()
    return "\n".join(lines) + "\n"


def save_variant(path: str | os.PathLike, text: str, *, overwrite: bool = False) -> Path:
    """Write a variant file atomically; an existing ``path`` is refused unless ``overwrite``."""
    target = Path(path)
    try:
        return write_file(target, text, replace=overwrite, what="variant file")
    except FileExistsError:
        raise ValueError(f"variant file {target}: already exists; pass overwrite=True to "
                         "replace it") from None
