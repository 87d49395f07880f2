"""The dice a sampler actually draws, counted by a :class:`numpy.random.Generator` subclass.

:class:`CountingGenerator` shares its bit generator with the Generator it is made from (so the
draws, and the sampler's results, are the same) and adds up the size of every ``integers`` and
``random`` draw, by number of faces. The benchmark's floor draws exactly these dice
(:func:`count_draws`); no kernel has to count its own dice, so the count stays right whatever
the kernel's code becomes.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..rng import RNGLike, as_generator

__all__ = ["CountingGenerator", "count_draws"]

#: Generator methods other than ``integers``/``random`` whose draws are counted under
#: ``other`` (the floor does not reproduce them; the report names them).
OTHER_METHODS = ("choice", "permutation", "permuted", "shuffle", "uniform", "normal",
                 "standard_normal", "exponential", "binomial", "poisson", "geometric",
                 "multinomial", "hypergeometric", "bytes")


class CountingGenerator(np.random.Generator):
    """A Generator drawing what ``seed``'s Generator draws, and counting it.

    Attributes
    ----------
    integers_drawn : dict of int -> int
        Number of integers drawn, by number of faces (``high - low``, ``+1`` with
        ``endpoint=True``; the largest span when ``low``/``high`` are arrays).
    uniforms : int
        Number of floats drawn by ``random``.
    other : dict of str -> int
        Values drawn by the other methods, by method name.
    calls : int
        Number of counted calls.

    Examples
    --------
    >>> gen = CountingGenerator(1)
    >>> _ = gen.integers(1, 21, size=(3, 4)); _ = gen.random(5); _ = gen.integers(6)
    >>> gen.integers_drawn, gen.uniforms, gen.calls
    ({20: 12, 6: 1}, 5, 3)
    >>> _ = gen.integers(0, 2**64 - 1, size=2, dtype=np.uint64, endpoint=True)
    >>> gen.integers_drawn[2**64]
    2
    >>> same = CountingGenerator(1).integers(0, 6, 9) == np.random.default_rng(1).integers(0, 6, 9)
    >>> bool(same.all())
    True
    """

    def __init__(self, seed: RNGLike = None) -> None:
        super().__init__(as_generator(seed).bit_generator)
        self.integers_drawn: dict[int, int] = {}
        self.uniforms = 0
        self.other: dict[str, int] = {}
        self.calls = 0
        self._inside = 0  # > 0 within a counted method (choice calls integers itself)

    def integers(self, low: Any, high: Any = None, size: Any = None, dtype: Any = np.int64,
                 endpoint: bool = False) -> Any:
        out = super().integers(low, high, size=size, dtype=dtype, endpoint=endpoint)
        if self._inside:
            return out
        lo, hi = (0, low) if high is None else (low, high)
        span = np.asarray(hi, dtype=object) - np.asarray(lo, dtype=object)  # exact, any dtype
        faces = int(np.max(span)) + (1 if endpoint else 0)
        self.integers_drawn[faces] = self.integers_drawn.get(faces, 0) + int(np.size(out))
        self.calls += 1
        return out

    def random(self, size: Any = None, dtype: Any = np.float64, out: Any = None) -> Any:
        got = super().random(size=size, dtype=dtype, out=out)
        if self._inside:
            return got
        self.uniforms += int(np.size(got))
        self.calls += 1
        return got


def _counted(name: str) -> Callable:
    def method(self: CountingGenerator, *args: Any, **kwargs: Any) -> Any:
        self._inside += 1
        try:
            out = getattr(np.random.Generator, name)(self, *args, **kwargs)
        finally:
            self._inside -= 1
        if self._inside:
            return out
        size = np.size(args[0] if out is None and args else out)  # shuffle: in place
        self.other[name] = self.other.get(name, 0) + int(size)
        self.calls += 1
        return out
    method.__name__ = name
    method.__doc__ = f"``Generator.{name}``, counted under ``other[{name!r}]``."
    return method


for _name in OTHER_METHODS:
    setattr(CountingGenerator, _name, _counted(_name))


def count_draws(sampler: Callable[[int, np.random.Generator], Any], n: int,
                seed: RNGLike = None) -> dict[str, Any]:
    """What ``sampler(n, rng)`` draws, per trial.

    Parameters
    ----------
    sampler : callable ``(n, rng) -> dict``
        A Monte Carlo sampler (:func:`balance.montecarlo.run`'s convention).
    n : int
        Trials of the counted call (a whole block: per-trial counts can depend on it).
    seed : int, SeedSequence, Generator or None

    Returns
    -------
    dict
        ``trials``; ``integers``: faces -> integers drawn per trial; ``uniforms``: floats per
        trial; ``other``: method -> values per trial; ``dice_per_trial``: all of them;
        ``calls``: draws per call of the sampler.

    Examples
    --------
    >>> def two_d6_and_a_coin(n, rng):
    ...     dice, coin = rng.integers(1, 7, size=(2, n)), rng.random(n) < 0.5
    ...     return {"sum": dice.sum(), "coin": coin.sum()}
    >>> c = count_draws(two_d6_and_a_coin, 1000)
    >>> c["integers"], c["uniforms"], c["dice_per_trial"], c["calls"]
    ({6: 2.0}, 1.0, 3.0, 2)
    """
    gen = CountingGenerator(seed)
    sampler(n, gen)
    integers = {faces: count / n for faces, count in sorted(gen.integers_drawn.items())}
    other = {name: count / n for name, count in gen.other.items()}
    return {"trials": n, "integers": integers, "uniforms": gen.uniforms / n, "other": other,
            "dice_per_trial": sum(integers.values()) + gen.uniforms / n + sum(other.values()),
            "calls": gen.calls}
