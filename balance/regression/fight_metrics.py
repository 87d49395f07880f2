"""Monte Carlo metrics of fights: the GM guide's encounters and percentile duels.

Listed only once :mod:`balance.fights` and :mod:`balance.percentile.duels` exist.
"""
from __future__ import annotations

from .metrics import Metric

__all__ = ["metrics"]


def metrics() -> list[Metric]:
    """Fight and duel metrics (none until the fight simulators land)."""
    return []
