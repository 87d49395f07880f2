"""Benchmark kernel of the GM-guide fight simulator (issue 4): 4 PCs against 4 wolves, level 5.

Importing this module registers the kernel ``gm-fight-4v4`` with :mod:`balance.bench`
(add ``"balance.bench.fights"`` to ``bench.KERNEL_MODULES``). The floor draws the dice the
kernel draws, counted on one block by :func:`balance.bench.counting.count_draws` (the d20s and
the uniforms that pick damage from tables, per round); the plain-Python comparison is
:func:`balance.guide.fight_kernel.python_fights` on the same encounter.
"""
from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial

from . import Kernel, register

__all__ = ["ENCOUNTER", "KERNEL"]

ENCOUNTER = ("Wolf", "Wolf", "Wolf", "Wolf")


def _spec():
    from ..guide.fights import fight_spec
    return fight_spec(list(ENCOUNTER))


def _sampler() -> Callable:
    from ..guide.fights import fight_sampler
    return partial(fight_sampler, spec=_spec())


def _python(n: int, rnd: random.Random) -> dict[str, int]:
    from ..guide.fight_kernel import python_fights
    return python_fights(n, rnd, _spec())


KERNEL = register(Kernel("gm-fight-4v4", _sampler, _python,
                         "GM guide fight: default party vs 4 wolves, level 5, focus the weakest",
                         unit="fight", trials=1 << 21, python_trials=30_000, target_rate=1e5))
