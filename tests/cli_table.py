"""The command table of the CLI fuzzers (tests/test_fuzz_cli.py, tests/test_fuzz_rules.py).

:data:`BASE` gives each subcommand one cheap invocation that succeeds; the fuzzers change one
value at a time. A new subcommand fails ``test_every_command_has_a_base_invocation`` until it
gets a line here. ``{baseline}`` is replaced by a small snapshot the fixture writes.
"""
from __future__ import annotations

import argparse
import functools
from pathlib import Path

from balance.cli import build_parser

ONE_METRIC = "d20.success@C8"
#: the bundled injury table as ``balance rules export`` writes it (input of ``rules import``)
INJURY_CSV = str(Path(__file__).parent / "tables" / "injuries.table.csv")

#: command path -> a cheap invocation that exits 0 (or 1 for diff: the variant moves metrics)
BASE: dict[tuple[str, ...], list[str]] = {
    ("report",): ["--sections", "death", "--trials", "1000", "--quiet", "--out", "rep"],
    ("bench",): ["--quick", "--only", "d20-test"],
    ("death",): ["--seconds", "10", "--negative-hp", "3"],
    ("injuries",): ["--seconds", "10", "--negative-hp", "3", "--trials", "1000", "--seed", "1"],
    ("test",): ["12"],
    ("negotiate",): ["--psychology", "12", "--ask", "20"],
    ("treat",): ["--cunning", "10", "--injury", "Weak"],
    ("rescue",): ["--action", "heal", "--heal", "3", "--trials", "1000", "--seed", "1"],
    ("rest",): ["8:15"],
    ("calibrate",): ["1/1"],
    ("fight",): ["Goblin", "--party", "Warrior", "--trials", "200", "--seed", "1"],
    ("charisma",): ["--price", "100", "--charisma", "2"],
    ("tiers",): ["65", "--grade", "Hard"],
    ("opposed",): ["60", "50", "--first-grade", "Hard"],
    ("rules", "check"): ["death_threshold_180"],
    ("rules", "show"): ["injuries.die"],
    ("rules", "variants"): [],
    ("rules", "assumptions"): [],
    ("rules", "export"): ["injuries.table", "--csv", "table.csv"],
    ("rules", "import"): ["injuries.table", INJURY_CSV, "--out", "variant.toml"],
    ("dice",): ["4d6kh3"],
    ("duel",): ["60", "50", "--trials", "200"],
    ("weapons",): ["60", "--against", "50", "--weapons", "dagger", "broadsword", "--trials",
                   "100"],
    ("campaign",): ["--fights", "3", "--trials", "500"],
    ("snapshot",): ["--out", "snap.json", "--trials", "200", "--only", ONE_METRIC],
    ("diff",): ["bundled", "death_threshold_180", "--trials", "200", "--only", ONE_METRIC],
    ("check",): ["--baseline", "{baseline}", "--trials", "200"],
    ("tune",): ["--metric", "death.p@40s,6hp,1w", "--target", "0.1", "--vary",
                "injuries.death_threshold", "--bounds", "176", "200"],
    ("sensitivity",): ["--metric", "death.p@40s,6hp,1w", "--vary", "injuries.die"],
    ("metrics",): [],
    ("recalibrate",): ["--trials", "100", "--families", "Wolf", "Ogre",
                       "--held-out", "Ogre+Wolf"],
}


@functools.lru_cache(maxsize=1)
def commands() -> dict:
    """Every leaf subcommand of ``balance.cli.build_parser()``: path -> its parser."""
    return _leaves(build_parser(), ())


def _leaves(parser: argparse.ArgumentParser, prefix: tuple) -> dict:
    out = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out.update(_leaves(sub, prefix + (name,)) or {prefix + (name,): sub})
    return out


def takes_rules(path: tuple) -> bool:
    """Does the command read a rules file (``--rules``, or positionally)?"""
    return path in RULES_POSITIONAL or any("--rules" in a.option_strings
                                           for a in commands()[path]._actions)


#: commands naming rules files positionally: the argument's position in BASE
RULES_POSITIONAL = {("rules", "check"): 0, ("diff",): 1}


#: ``balance bench`` parses its own options inside ``bench.main`` (the main parser holds a
#: placeholder): its options by hand, checked against ``balance bench --help``
BENCH_OPTIONS = {"--only": "name", "--format": "choice", "--quick": None, "--json": "path_out",
                 "--force": None}
