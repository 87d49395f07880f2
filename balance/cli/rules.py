"""``balance rules``: check a variant file, show the rules in effect, list variants and
assumptions. Registered by :mod:`balance.cli`."""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pandas as pd

from .options import add_format, add_rules, emit, load, path_arg
from ..report.data import rules_value_text
from ..rules import plain
from ..text import plain_data

__all__ = ["register"]


def _check(args) -> int:
    from ..rules import default_rules

    from ..report.data import rule_changes

    rules = load(args.files)
    base = default_rules()
    frame = rule_changes(rules, base)
    frame["bundled"] = frame["bundled"].map(rules_value_text)
    frame["variant"] = frame["variant"].map(rules_value_text)
    title = (f"ok: {' + '.join(args.files)}\nfingerprint {rules.fingerprint} "
             f"(bundled {base.fingerprint}); {len(frame)} value(s) changed")
    if args.format == "table" and frame.empty:
        print(title)
        return 0
    emit(frame, args.format, title=title)
    return 0


def _flatten(value: Any, path: str) -> list[tuple[str, str]]:
    if isinstance(value, Mapping):
        out = []
        for k, v in value.items():
            out += _flatten(v, f"{path}.{k}" if path else k)
        return out
    return [(path, rules_value_text(value))]


def _show(args) -> int:
    rules = load(args.rules)
    node = rules.get(args.section) if args.section else rules
    if args.format == "json":
        print(json.dumps(plain_data(plain(node)), ensure_ascii=False, indent=2))
        return 0
    rows = _flatten(node, args.section or "")
    emit(pd.DataFrame(rows, columns=["key", "value"]), args.format,
         title=f"rules {rules.fingerprint} ({' + '.join(rules.sources)})")
    return 0


def _variants(args) -> int:
    from ..rules import bundled_variants

    emit(pd.DataFrame({"variant": bundled_variants()}), args.format)
    return 0


def _assumptions(args) -> int:
    frame = load(args.rules).assumptions
    frame["value"] = frame["value"].map(rules_value_text)
    if args.format == "table":  # whole tables (the bestiary...) are shortened on a terminal
        frame["value"] = frame["value"].map(lambda v: v if len(v) <= 40 else v[:39] + "…")
        frame["note"] = frame["note"].map(lambda v: v if len(v) <= 90 else v[:89] + "…")
    emit(frame, args.format)
    return 0


def register(sub) -> None:
    """Add ``balance rules check|show|variants|assumptions``."""
    rules = sub.add_parser("rules", help="check a variant file, show the rules in effect",
                           description="Rules files: validate a variant, show the rules, "
                                       "list the bundled variants and the assumed values.")
    group = rules.add_subparsers(dest="rules_command", metavar="ACTION", required=True)

    p = group.add_parser("check", help="validate a variant file: fingerprint and what it changes",
                         description="Load FILE over the bundled rules (several files are "
                                     "applied in order), validate it, and list every value it "
                                     "changes. Exit code 2 with a one-line message naming "
                                     "the file, table and row when it is unusable.")
    p.add_argument("files", nargs="+", metavar="FILE", type=path_arg,
                   help="variant rules file(s) (TOML)")
    add_format(p)
    p.set_defaults(func=_check)

    p = group.add_parser("show", help="print the rules in effect (a section or all)",
                         description="Print the rules in effect as dotted key = value rows "
                                     "(or JSON), optionally only SECTION (e.g. injuries, "
                                     "injuries.death_threshold).")
    p.add_argument("section", nargs="?", help="a section or dotted key (default: everything)")
    add_rules(p)
    add_format(p)
    p.set_defaults(func=_show)

    p = group.add_parser("variants", help="list the bundled example variants",
                         description="Names usable as --rules NAME.")
    add_format(p)
    p.set_defaults(func=_variants)

    p = group.add_parser("assumptions", help="list the assumed values in effect",
                         description="Values RULES.md marks (assumed), with their notes.")
    add_rules(p)
    add_format(p)
    p.set_defaults(func=_assumptions)
