"""Exact formulas over grids, computed a cache-sized chunk at a time.

A closed form such as P(death) over 10^7 cells of (seconds, negative HP, wounds) should cost
what its formula costs: one pass of a few arithmetic operations per cell. Written as plain
numpy on whole arrays, every intermediate of the formula is a new array of the full size
(several hundred MB at 10^7 cells). :func:`elementwise` evaluates the formula over the
broadcast of its inputs in chunks of :data:`CHUNK` cells (numpy's buffered ``nditer``), so
the intermediates stay in cache and only the result has the grid's size.

>>> import numpy as np
>>> elementwise(lambda a, b: a * 10 + b, np.arange(3)[:, None], np.arange(2))
array([[ 0.,  1.],
       [10., 11.],
       [20., 21.]])
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import numpy as np

from .budgets import MAX_RESULT_CELLS, check_grid

__all__ = ["CHUNK", "elementwise"]

#: Cells per chunk (float64: 512 kB a temporary, within a core's L2 cache).
CHUNK = 1 << 16


def elementwise(func: Callable[..., np.ndarray], *arrays: np.ndarray, dtype: type = np.float64,
                what: str = "the result") -> np.ndarray:
    """``func`` applied to the broadcast of ``arrays``, one chunk of cells at a time.

    Parameters
    ----------
    func : callable
        An elementwise formula ``func(*chunks) -> array``: each cell of the result depends only
        on the same cell of each input.
    *arrays : array_like
        The inputs, broadcast together (numpy's rules).
    dtype : numpy dtype, default float64
        The result's type.
    what : str
        What the result is, for the error when the grid is over budget.

    Returns
    -------
    numpy.ndarray
        The broadcast shape (0-d for scalar inputs).

    Raises
    ------
    ValueError
        When the broadcast grid has more than :data:`balance.budgets.MAX_RESULT_CELLS` cells.
    """
    arrays = tuple(np.asarray(a) for a in arrays)
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    check_grid(what, shape, "the shapes of the arguments", most=MAX_RESULT_CELLS)
    if int(np.prod(shape, dtype=np.int64)) <= CHUNK:
        return np.broadcast_to(np.asarray(func(*arrays), dtype=dtype), shape).copy()
    out: np.ndarray = np.empty(shape, dtype=dtype)
    flag = Literal["readonly", "writeonly"]
    read: list[flag] = ["readonly"]
    write: list[flag] = ["writeonly"]
    op_flags = [read] * len(arrays) + [write]
    it = np.nditer([*arrays, out], flags=["external_loop", "buffered", "zerosize_ok"],
                   op_flags=op_flags, buffersize=CHUNK)
    with it:
        for *chunks, res in it:
            res[...] = func(*chunks)
    return out
