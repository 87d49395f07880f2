"""Chunked, seeded, parallel Monte Carlo runs: the engine (:mod:`.engine`), where blocks run
(:mod:`.blocks`, :mod:`.pool`, Dask), intervals (:mod:`.intervals`) and result objects
(:mod:`.results`). ``bl.montecarlo.run`` is :func:`balance.montecarlo.engine.run`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:
    from .engine import (BLOCK_SIZE, MCResult, normal_interval, proportion_table, run,
                         shutdown_workers, start_workers, wilson, z_value)
    from .intervals import mean_se

__all__ = ["BLOCK_SIZE", "MCResult", "run", "start_workers", "shutdown_workers", "wilson", "proportion_table",
           "normal_interval", "mean_se", "z_value"]

#: where each name lives: imported on first use, so ``montecarlo.results`` (what an exact
#: function's module needs) comes without the engine and pandas (a fast start)
_NAMES = {"mean_se": "intervals", **{name: "engine" for name in __all__ if name != "mean_se"}}

__getattr__, __dir__ = lazy_names(__name__, _NAMES,
                                  ("engine", "blocks", "pool", "intervals", "results"))
