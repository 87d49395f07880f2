"""Every setting of the bundled rules is read by some code (a switch nothing reads would let a
variant load and change nothing, silently).

A static check: each leaf key of ``balance/rules/data/*.toml`` outside ``[limits]`` and
``[assumed]`` (read generically, by path) must appear quoted in the package's Python code. It
found ``[percentile.surprise] flat_footed``, ``[economy] max_special_effects`` and the casting
checklist's ``dominated_fails`` unread. What it cannot see: a key read by one code path and
ignored by another (``removes_injury`` was read by the treatment tables while the campaign
sampler ignored it; ``window_hours`` by ``counted_hours`` while ``rest_needed`` assumed 24 h),
or read only by validation. Those are caught where each switch is used: its behaviour is tested
under a variant in every path that reads it (campaign sampler and its Python twin, exact
function and simulator).
"""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import balance

PACKAGE = Path(balance.__file__).parent
#: settings no computation reads, and why
INFORMATIVE = {
    ("gm_guide.toml", "fights.damage_types"):
        "the guide's damage types, listed for readers: creature sheets accept any type",
}


def _leaves(table: dict, path: tuple = ()):
    for key, value in table.items():
        if isinstance(value, dict):
            yield from _leaves(value, path + (key,))
        else:
            yield path + (key,)


def test_every_bundled_setting_is_read_by_some_code():
    code = "\n".join(p.read_text(encoding="utf-8") for p in PACKAGE.rglob("*.py"))
    unread = []
    for file in sorted((PACKAGE / "rules" / "data").glob("*.toml")):
        with open(file, "rb") as f:
            data = tomllib.load(f)
        for path in _leaves(data):
            if {"limits", "assumed"} & set(path[:2]) or (file.name, ".".join(path)) in INFORMATIVE:
                continue
            if not re.search(rf"[\"']{re.escape(path[-1])}[\"']", code):
                unread.append(f"{file.name}: {'.'.join(path)}")
    assert unread == []


def test_the_informative_settings_still_exist():
    for (name, dotted) in INFORMATIVE:
        with open(PACKAGE / "rules" / "data" / name, "rb") as f:
            table = tomllib.load(f)
        for part in dotted.split("."):
            table = table[part]
