"""One way to say "randomness" everywhere: ``seed`` in, ``rng`` inside.

The convention (tests/test_rng_convention.py walks every public function and enforces it):

``seed: RNGLike = None``
    What a public function that runs trials or draws values takes: an ``int`` >= 0, a
    :class:`numpy.random.SeedSequence`, a :class:`numpy.random.Generator` or ``None`` (fresh
    OS entropy), always tested with ``is None``, never truthiness (0 is a seed). A check meant
    to reproduce by default may default to a whole number (``calibration_check(seed=0)``).
``rng: np.random.Generator``
    What a sampler given to the engine receives, ``sampler(n, rng)``, and what kernels pass
    along: a ready generator, no default, never converted again.
``seed: int`` (regression snapshots, tuning, report folders, the command line)
    A master seed: a whole number from which each metric's stream is derived by name
    (``regression.metrics.metric_seed``) and which is written into a file as a JSON integer;
    ``int | None`` where ``None`` means "the baseline's".

Why ``seed`` is the public name: the calls in the issues, the docs and the command line
(``--seed``) say ``seed=``, and every result carries its ``seed`` (``MCResult.seed``, the
``seed`` column of tidy rows, a snapshot's ``"seed"``), so the argument and the record have
one name. Inside, a function turns the seed into a generator once (:func:`as_generator`) or
into independent streams (:func:`as_seed_sequence`, then ``SeedSequence.spawn``; never
``seed + i``).

>>> from balance.rng import as_generator, as_seed_sequence
>>> int(as_generator(7).integers(0, 100)) == int(as_generator(7).integers(0, 100))
True
>>> len(as_seed_sequence(7).spawn(3))
3
"""
from __future__ import annotations

import numbers

import numpy as np

__all__ = ["DEFAULT_SEED", "RNGLike", "as_generator", "as_seed_sequence", "check_rng",
           "seed_label"]

RNGLike = int | np.random.SeedSequence | np.random.Generator | None

#: the master seed of the command line and the report when none is given (printed with every
#: result), so that the same command gives the same numbers every time; the Python calls of
#: ``balance.regression`` default to 0 instead (their documented examples are computed at 0)
DEFAULT_SEED = 20260101

_ACCEPTED = "an int >= 0, a numpy SeedSequence, a numpy Generator or None"


def check_rng(seed: object, name: str = "seed") -> None:
    """Raise a one-line ``ValueError`` naming ``name`` unless ``seed`` is an accepted seed."""
    if seed is None or isinstance(seed, (np.random.SeedSequence, np.random.Generator)):
        return
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool) and int(seed) >= 0:
        return
    raise ValueError(f"{name} must be {_ACCEPTED}; got {seed!r}")


def as_seed_sequence(seed: RNGLike, name: str = "seed") -> np.random.SeedSequence:
    """Turn a seed into a :class:`~numpy.random.SeedSequence`.

    A ``Generator`` contributes fresh entropy drawn from it, so passing the same
    generator twice gives two different (but reproducible) sequences.
    """
    check_rng(seed, name)
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(seed.integers(0, 2**63 - 1, size=4).tolist())
    if seed is None:
        return np.random.SeedSequence()
    return np.random.SeedSequence(int(seed))


def as_generator(seed: RNGLike, name: str = "seed") -> np.random.Generator:
    """Turn a seed into a :class:`~numpy.random.Generator` (a Generator is returned as is)."""
    check_rng(seed, name)
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(as_seed_sequence(seed, name))


def seed_label(seed: RNGLike) -> object:
    """What to record as "the seed" of a result: the int, or the SeedSequence entropy."""
    if seed is None or isinstance(seed, numbers.Integral):
        return seed
    if isinstance(seed, np.random.SeedSequence):
        return seed.entropy if not seed.spawn_key else (seed.entropy, seed.spawn_key)
    return "generator"
