"""One way to say "randomness" everywhere: the ``rng`` argument (STYLE.md §5).

``rng`` may be an ``int`` (a seed), a :class:`numpy.random.SeedSequence`, a
:class:`numpy.random.Generator` or ``None`` (fresh OS entropy). Independent streams
always come from ``SeedSequence.spawn``, never from ``seed + i``.
"""
from __future__ import annotations

import numbers

import numpy as np

__all__ = ["RNGLike", "as_generator", "as_seed_sequence", "check_rng", "seed_label"]

RNGLike = int | np.random.SeedSequence | np.random.Generator | None

_ACCEPTED = "an int >= 0, a numpy SeedSequence, a numpy Generator or None"


def check_rng(rng: object, name: str = "seed") -> None:
    """Raise a one-line ``ValueError`` unless ``rng`` is an accepted rng/seed."""
    if rng is None or isinstance(rng, (np.random.SeedSequence, np.random.Generator)):
        return
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool) and int(rng) >= 0:
        return
    raise ValueError(f"{name} must be {_ACCEPTED}; got {rng!r}")


def as_seed_sequence(rng: RNGLike, name: str = "seed") -> np.random.SeedSequence:
    """Turn an rng argument into a :class:`~numpy.random.SeedSequence`.

    A ``Generator`` contributes fresh entropy drawn from it, so passing the same
    generator twice gives two different (but reproducible) sequences.
    """
    check_rng(rng, name)
    if isinstance(rng, np.random.SeedSequence):
        return rng
    if isinstance(rng, np.random.Generator):
        return np.random.SeedSequence(rng.integers(0, 2**63 - 1, size=4).tolist())
    if rng is None:
        return np.random.SeedSequence()
    return np.random.SeedSequence(int(rng))


def as_generator(rng: RNGLike, name: str = "seed") -> np.random.Generator:
    """Turn an rng argument into a :class:`~numpy.random.Generator` (a Generator is returned as is)."""
    check_rng(rng, name)
    if isinstance(rng, np.random.Generator):
        return rng
    return np.random.default_rng(as_seed_sequence(rng, name))


def seed_label(rng: RNGLike) -> object:
    """What to record as "the seed" of a result: the int, or the SeedSequence entropy."""
    if rng is None or isinstance(rng, numbers.Integral):
        return rng
    if isinstance(rng, np.random.SeedSequence):
        return rng.entropy if not rng.spawn_key else (rng.entropy, rng.spawn_key)
    return "generator"
