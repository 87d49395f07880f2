"""The package type-checks: mypy on ``balance`` with the ``[tool.mypy]`` config of
pyproject.toml (pandas-stubs installed by the ``test`` extra) reports no error.

mypy's cache lives in the system temp folder (a warm run takes a few seconds, a cold one about
20 s on one core), never in the checkout.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

api = pytest.importorskip("mypy.api")

ROOT = Path(__file__).resolve().parents[1]
CACHE = Path(tempfile.gettempdir()) / "balance-mypy-cache"


def test_the_package_type_checks():
    out, err, status = api.run(["--config-file", str(ROOT / "pyproject.toml"),
                                "--cache-dir", str(CACHE), "--no-error-summary",
                                str(ROOT / "balance")])
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert status == 0 and not errors, (
        f"mypy found {len(errors)} error(s) in balance/ (python -m mypy):\n"
        + "\n".join(errors[:40]) + err)


def test_what_mypy_found_stays_fixed(capsys):
    # 'balance tiers' returned None: its return 0 had slid below the next function
    from balance import cli
    assert cli.main(["tiers", "65"]) == 0
    assert "critical" in capsys.readouterr().out
