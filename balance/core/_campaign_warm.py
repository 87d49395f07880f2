"""Preloaded by the worker pool's forkserver once this process has loaded the campaign's
compiled loops (:func:`balance.montecarlo.pool.preload_in_helpers`): a one-fight campaign of a
few characters loads their machine code, so helpers forked from it start at once (issue 16)."""
from __future__ import annotations

try:
    import numpy as np

    from ..rules import resolve
    from .campaign import campaign_sampler, plan

    campaign_sampler(8, np.random.default_rng(0), plan=plan(fights=1), rules=resolve(None))
except Exception:  # pragma: no cover - a helper then loads the loops on first use
    pass
