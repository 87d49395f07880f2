"""Convolution: the distribution of a sum of independent dice, from the distributions of its parts.

Two arrays of weights (probabilities or counts of totals) are convolved directly, exactly, up to
:data:`_DIRECT_WORK` multiply-adds, and by FFT convolution above, where everything below
:data:`NOISE_FLOOR` (1e-15) is rounding noise and reads 0. A die's distribution is raised to a
count of dice by repeated squaring (:func:`_power`).
"""
from __future__ import annotations

import numpy as np

__all__ = ["convolve", "NOISE_FLOOR"]

#: above this many multiply-adds, exact distributions use FFT convolution (about 0.1 s)
_DIRECT_WORK = 2 * 10**8
#: FFT convolution's absolute error bound per total: a probability an FFT gives below it is
#: rounding noise and reads 0 (the measured noise of the FFT paths is 1e-21 to 3e-16)
NOISE_FLOOR = 1e-15


def _fft_convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.convolve(a, b)`` of probabilities by FFT: everything below :data:`NOISE_FLOOR`
    (1e-15) is rounding noise and reads 0 (negative values, and positive ones such as the
    3e-16 an FFT leaves where no total is possible)."""
    from scipy.signal import fftconvolve

    out = fftconvolve(a, b)
    out[out < NOISE_FLOOR] = 0.0
    return out


def convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.convolve(a, b)`` of non-negative weights (the distribution of a sum): directly up
    to :data:`_DIRECT_WORK` multiply-adds, by FFT above (absolute error below 1e-15)."""
    return np.convolve(a, b) if a.size * b.size <= _DIRECT_WORK else _fft_convolve(a, b)


def _power(probs: np.ndarray, count: int, conv=None) -> np.ndarray:
    """``probs`` convolved with itself ``count`` times (repeated squaring) with ``conv``
    (default :func:`convolve`)."""
    conv = convolve if conv is None else conv
    out, base = np.ones(1), probs
    while count:
        if count & 1:
            out = conv(out, base)
        count >>= 1
        if count:
            base = conv(base, base)
    return out
