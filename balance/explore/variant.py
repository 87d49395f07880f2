"""What an explorer changed, as a variant file (the rules data's own format, TOML).

A variant names only the values that differ from the bundled rules; a table that changed is
written whole (the loader replaces tables whole). ``load_rules(path)`` gives the rules back.

>>> import balance as bl
>>> rules = bl.load_rules().updated({"injuries": {"death_threshold": 180}})
>>> changes(rules)
{'injuries': {'death_threshold': 180}}
>>> changes(bl.load_rules())
{}
>>> print(variant_text(changes(rules)), end="")
[injuries]
death_threshold = 180
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
from ..rules import Rules, default_rules

__all__ = ["changes", "variant_text", "save_variant"]

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def changes(rules: Rules, base: Rules | None = None) -> dict:
    """The values of ``rules`` that differ from ``base`` (default: the bundled rules), nested."""
    found = _diff(rules.to_dict(), (base or default_rules()).to_dict())
    return {} if found is _SAME else found


def _diff(new: Any, old: Any) -> Any:
    if isinstance(new, dict) and isinstance(old, dict):
        out = {}
        for key, value in new.items():
            if key not in old:
                out[key] = value
            else:
                sub = _diff(value, old[key])
                if sub is not _SAME:
                    out[key] = sub
        return out if out else _SAME
    return _SAME if new == old and type(new) is type(old) else new


_SAME = object()


def _key(key: str) -> str:
    return key if _BARE.match(key) else json.dumps(key, ensure_ascii=False)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"a variant cannot hold the number {value!r}")
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, Mapping) for v in value):
            return "[\n" + "".join(f"  {_value(v)},\n" for v in value) + "]"
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise ValueError(f"a variant cannot hold {value!r}")


def variant_text(tree: Mapping) -> str:
    """``tree`` (a nested dict of rules values) as TOML: one ``[section]`` per dict of values."""
    lines: list[str] = []

    def emit(prefix: str, node: Mapping) -> None:
        leaves = [(k, v) for k, v in node.items() if not isinstance(v, Mapping)]
        if leaves and prefix:
            lines.append(f"[{prefix}]")
            lines.extend(f"{_key(k)} = {_value(v)}" for k, v in leaves)
            lines.append("")
        for k, v in node.items():
            if isinstance(v, Mapping):
                emit(f"{prefix}.{_key(k)}" if prefix else _key(k), v)

    if any(not isinstance(v, Mapping) for v in tree.values()):
        raise ValueError("a variant holds sections (tables of values), not top-level values")
    emit("", tree)
    return "\n".join(lines).rstrip("\n") + "\n" if lines else ""


def save_variant(rules: Rules, path: str | os.PathLike, *, base: Rules | None = None) -> Path:
    """Write what ``rules`` change against ``base`` (default: bundled) to ``path`` (atomic)."""
    return write_file(path, variant_text(changes(rules, base)), what="path")
