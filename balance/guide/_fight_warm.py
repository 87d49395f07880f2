"""Preloaded by the worker pool's forkserver once this process has loaded the compiled fight
loop (:func:`balance.montecarlo.pool.preload_in_helpers`): helpers forked from it start their
first fight at once instead of loading the loop's machine code (issue 16)."""
from __future__ import annotations

try:
    from ._fight_loop import warm
    warm()
except Exception:  # pragma: no cover - a helper then loads the loop on its first fight
    pass
