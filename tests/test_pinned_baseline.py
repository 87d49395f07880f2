"""The project regression-checks its own bundled rules, the way it tells designers to.

``tests/baselines/bundled.json`` is a snapshot of every catalogue metric of the bundled
rules (``balance snapshot``, 100,000 Monte Carlo trials per metric, seed 0). Any change to
the bundled rules' numbers, deliberate or not, makes ``balance check`` exit 1 here and prints
the metrics that moved. When a change is deliberate (a corrected reading, a new table), the
baseline is regenerated on purpose, in the same commit as the change::

    python -m balance snapshot --out tests/baselines/bundled.json --seed 0 --force

and the commit message says which metrics moved and why (``balance diff OLD NEW`` lists them).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from balance import cli

BASELINE = Path(__file__).parent / "baselines" / "bundled.json"


def test_the_bundled_rules_reproduce_their_pinned_baseline(capsys):
    code = cli.main(["check", "--baseline", str(BASELINE)])
    out = capsys.readouterr()
    assert code == 0, ("the bundled rules' numbers moved from tests/baselines/bundled.json; if "
                       "the change is deliberate, regenerate the baseline (see this module's "
                       "docstring):\n" + out.out + out.err)


def test_the_pinned_baseline_covers_the_whole_catalogue():
    from balance.regression import catalogue

    pinned = set(json.loads(BASELINE.read_text(encoding="utf-8"))["metrics"])
    assert pinned == {m.name for m in catalogue()}


@pytest.mark.parametrize("variant", ["death_threshold_180", "charisma_negotiation"])
def test_the_pinned_check_fails_on_a_real_change(variant, capsys):
    # the check can fail: a bundled variant changes exact metrics, and check exits 1
    assert cli.main(["check", "--baseline", str(BASELINE), "--rules", variant]) == 1
    assert "moved" in capsys.readouterr().out
