"""Variants inside the [limits] that passed ``rules check`` but failed or crawled later.

1. A large ``negotiation.partial_divisor`` (91) made the search of :func:`best_ask` run past
   the ask cap (``ask must be ... got 1001``).
2. ``d20.die = 1000`` made the ``negotiation_rules`` report section take over 40 s (one
   :func:`ask_outcomes` Series per whole ask per Psychology value).

The oracle reads RULES.md §1.5 directly: roll every face, compare S.P. with ``X / divisor``
as exact fractions, and take the smallest whole ask 1..cap of the largest expected change.
"""
from __future__ import annotations

import json
import resource
import subprocess
import sys
from fractions import Fraction

import pytest

import balance as bl
from balance import cli
from balance.report import data

ASK_CAP = 1000  # the asks ask_outcomes accepts: 0 < X <= 1000
CPU_SECONDS = 30


def outcome(c: int, ask: int, die: int, partial: int, full: int) -> dict:
    """Exact outcome of asking ``ask`` % with Psychology ``c`` (RULES.md §1.5, §1.1)."""
    x = Fraction(ask)
    partial_from, full_from = x / partial, x / full  # exact thresholds, never rounded
    counts = {"unchanged": 0, "partial": 0, "full": 0}
    change = Fraction(0)
    for face in range(1, die + 1):
        sp = c - face
        if sp < 0 or sp < partial_from:
            counts["unchanged"] += 1
        elif sp < full_from:
            counts["partial"] += 1
            change += sp
        else:
            counts["full"] += 1
            change += x
    return {**{k: Fraction(v, die) for k, v in counts.items()},
            "expected_change": change / die}


def brute_best(c: int, die: int = 20, partial: int = 4, full: int = 2) -> tuple[int, dict]:
    """The smallest whole ask in 1..ASK_CAP with the largest expected change, and its outcome."""
    best, top = None, None
    for ask in range(1, ASK_CAP + 1):
        got = outcome(c, ask, die, partial, full)
        if top is None or got["expected_change"] > top["expected_change"]:
            best, top = ask, got
    return best, top


def exact(series) -> dict:
    return {k: float(v) for k, v in dict(series).items()}


VARIANTS = {"bundled": {}, "divisor 91": {"negotiation": {"partial_divisor": 91}},
            "divisors 36 and 1": {"negotiation": {"partial_divisor": 36, "full_divisor": 1}}}


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize("c", [-3, 0, 1, 2, 5, 8, 12, 13, 16, 20, 25, 29])
def test_best_ask_is_the_brute_force_argmax(name, c):
    rules = bl.load_rules().updated(VARIANTS[name]) if VARIANTS[name] else bl.load_rules()
    neg = rules["negotiation"]
    best, top = brute_best(c, 20, neg["partial_divisor"], neg["full_divisor"])
    assert bl.negotiation.best_ask(c, rules=rules) == best
    assert exact(bl.negotiation.ask_outcomes(c, best, rules=rules)) == \
        {k: float(v) for k, v in top.items()}


def test_modifier_counts_in_the_search():
    rules = bl.load_rules().updated(VARIANTS["divisor 91"])
    assert bl.negotiation.best_ask(10, modifier=3, rules=rules) == brute_best(13, 20, 91, 2)[0]


def test_default_ask_table_stays_inside_the_cap():
    rules = bl.load_rules().updated(VARIANTS["divisor 91"])
    table = bl.negotiation.ask_table(13, rules=rules)
    assert list(table.index) == list(range(1, ASK_CAP + 1))  # 91 x 12 = 1092 > the cap
    for ask in (1, 48, 91, 546, 547, 999, 1000):
        assert exact(table.loc[ask]) == {k: float(v) for k, v in
                                         outcome(13, ask, 20, 91, 2).items()}


def test_negotiate_command_on_the_divisor_91_variant(tmp_path, capsys):
    variant = tmp_path / "div91.toml"
    variant.write_text("[negotiation]\npartial_divisor = 91\n", encoding="utf-8")
    assert cli.main(["rules", "check", str(variant)]) == 0
    capsys.readouterr()
    code = cli.main(["negotiate", "--rules", str(variant), "--psychology", "13", "--format",
                     "json"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    rows = json.loads(out)
    (best,) = [row["ask"] for row in rows if row["best"]]
    assert best == brute_best(13, 20, 91, 2)[0]


def test_negotiation_rules_table_on_a_d50_matches_brute_force():
    """The ``negotiation_rules`` section's numbers with ``d20.die = 50`` (a small twin of the
    d1000 variant): every Psychology row 1..50 against the oracle."""
    die = 50
    rules = bl.load_rules().updated({"d20": {"die": die}})
    table = data.negotiation_rules_table(rules=rules)
    psy = table[table["rule"] == "psychology"]
    assert list(psy["value"]) == list(range(1, die + 1))
    for row in psy.itertuples():
        best, top = brute_best(row.value, die)
        assert row.best_ask == best
        assert row.expected_change == float(top["expected_change"])
        assert row.check_chance == round(float(Fraction(min(row.value, die), die)), 12)


def _cpu_limit() -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))


def test_d1000_report_section_completes_under_a_cpu_limit(tmp_path):
    variant = tmp_path / "die1000.toml"
    variant.write_text("[d20]\ndie = 1000\n", encoding="utf-8")
    out = tmp_path / "report"
    result = subprocess.run(
        [sys.executable, "-m", "balance", "report", "--sections", "negotiation_rules",
         "--rules", str(variant), "--quiet", "--out", str(out)],
        capture_output=True, text=True, preexec_fn=_cpu_limit, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert (out / "index.html").is_file()


def test_renamed_weapon_sizes_keep_weapons_usable():
    # sizes renamed in both languages: a weapon's size names the row by its stable key, as the
    # rules validation reads it (percentile.combat_sizes_and_dice)
    import balance as bl
    from balance.percentile.fighters import weapon_size

    sizes = [dict(row, en=f"Size {i}", fr=f"Taille {i}") for i, row in enumerate(
        bl.rules.plain(bl.load_rules().get("percentile.combat.sizes.table")))]
    r = bl.load_rules().updated({"percentile": {"combat": {"sizes": {"table": sizes}}}})
    assert [weapon_size(s, r) for s in ("small", "medium", "Size 2", "Taille 3")] == [0, 1, 2, 3]
    assert weapon_size("Medium") == 1
