"""Benchmark kernel of the GM-guide fight simulator (issue 4): 4 PCs against 4 wolves, level 5.

Importing this module registers the kernel ``gm-fight-4v4`` with :mod:`balance.bench`
(add ``"balance.bench.fights"`` to ``bench.KERNEL_MODULES``). The floor counts the dice one fight
rolls on average (about 124: a d20 and the damage dice of every attack, ~16 rounds); the plain
Python comparison is :func:`balance._fightkernel.python_fights` on the same encounter.
"""
from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial

from . import Kernel, register

__all__ = ["ENCOUNTER", "DICE_PER_FIGHT", "KERNEL"]

ENCOUNTER = ("Wolf", "Wolf", "Wolf", "Wolf")
#: mean dice rolled per fight of ENCOUNTER with the bundled rules (measured, informal)
DICE_PER_FIGHT = 124


def _spec():
    from ..guide.fights import fight_spec
    return fight_spec(list(ENCOUNTER))


def _sampler() -> Callable:
    from ..guide.fights import fight_sampler
    return partial(fight_sampler, spec=_spec())


def _python(n: int, rnd: random.Random) -> dict[str, int]:
    from ..guide.fight_kernel import python_fights
    return python_fights(n, rnd, _spec())


def _faces() -> int:
    from ..rules import resolve
    return resolve(None)["guide"]["checks"]["die"]


KERNEL = register(Kernel("gm-fight-4v4", _sampler, DICE_PER_FIGHT, _faces, _python,
                         "GM guide fight: default party vs 4 wolves, level 5, focus the weakest",
                         unit="fight", trials=1 << 21, python_trials=30_000, target_rate=1e5))
