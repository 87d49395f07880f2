"""Chunked, seeded, parallel Monte Carlo runs: the engine (:mod:`.engine`), where blocks run
(:mod:`.blocks`, :mod:`.pool`, Dask), intervals (:mod:`.intervals`) and result objects
(:mod:`.results`). ``bl.montecarlo.run`` is :func:`balance.montecarlo.engine.run`.
"""
from __future__ import annotations

from .engine import (BLOCK_SIZE, MCResult, normal_interval, proportion_table, run,
                     shutdown_workers, wilson, z_value)
from .intervals import mean_se

__all__ = ["BLOCK_SIZE", "MCResult", "run", "shutdown_workers", "wilson", "proportion_table",
           "normal_interval", "mean_se", "z_value"]
