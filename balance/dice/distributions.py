"""The distribution of a roll: each possible total and its probability.

:class:`Distribution` is what :func:`balance.dice.distribution` returns, an immutable value that
needs no pandas (a fast first answer); :func:`outcome_table` is the pandas Series of a
distribution built from counts of equally likely outcomes (the dice; the percentile tiers and
contests).
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..errors import check_integer_array, check_number_array

if TYPE_CHECKING:  # pandas is imported only where a Series is asked for (a fast first answer)
    import pandas as pd

__all__ = ["Distribution", "outcome_table"]


class Distribution:
    """An exact dice distribution: each possible total and its probability, an immutable
    value that needs no pandas (what :func:`distribution` returns).

    ``d[total]`` is a total's probability (a total the dice cannot roll raises ``KeyError``,
    as the pandas Series did; ``d.get(total, 0.0)`` reads 0 instead); ``total in d``,
    ``len(d)``; iterating gives the totals, as a dict does (``d.items()``: pairs of a total
    and its probability, ``dict(d)`` works; a Series iterated over its probabilities).
    ``np.asarray(d)`` is the probabilities; ``d.mean``, ``d.sd``, ``d.at_least(x)`` and
    ``d.at_most(x)`` answer the usual questions (cumulative sums, the upper tail summed from
    the top so rare high totals keep their precision). :meth:`to_series` gives the pandas
    Series ``value -> probability`` (for ``groupby``, plots and frames); ``index`` and
    ``values`` are the Series' names of ``totals`` and ``probabilities``. The arrays are
    read-only: a distribution is cached and shared (``np.array(d)`` is a copy to change).

    Parameters
    ----------
    totals : array-like of int
        The possible totals, increasing (consecutive or not), read as int64.
    probabilities : array-like of float
        Their probabilities (float64), each from 0 to 1, summing to 1 within 1e-9. A total
        may read 0 (too rare for the FFT's precision, see the module docstring).
    expression : str
        The dice expression, for :func:`repr` (two distributions are equal when their totals
        and probabilities are, whatever their expressions).

    Examples
    --------
    >>> import balance as bl
    >>> d = bl.dice.distribution("3d6")
    >>> d[10], round(d.at_least(15), 6), d.mean, round(d.sd, 6)  # P(10) = 27 / 216
    (0.125, 0.092593, 10.5, 2.95804)
    >>> d == bl.dice.distribution("3d6kh3"), len(d), d.totals[[0, -1]].tolist()
    (True, 16, [3, 18])
    """

    __slots__ = ("totals", "probabilities", "expression")
    totals: np.ndarray
    probabilities: np.ndarray
    expression: str

    #: rows shown by repr() and in Jupyter before the middle is elided
    SHOWN = 20

    def __init__(self, totals: ArrayLike, probabilities: ArrayLike, expression: str = "") -> None:
        t = np.array(check_integer_array("totals", totals), dtype=np.int64)
        p = np.array(check_number_array("probabilities", probabilities, min=0, max=1),
                     dtype=np.float64)
        if t.ndim != 1 or t.shape != p.shape or not t.size:
            raise ValueError(f"totals and probabilities must be two non-empty 1-D arrays of "
                             f"the same length, got shapes {t.shape} and {p.shape}")
        if t.size > 1 and not bool(np.all(t[1:] > t[:-1])):
            raise ValueError("totals must be increasing, each total once")
        if abs(float(p.sum()) - 1.0) > 1e-9:
            raise ValueError(f"probabilities must sum to 1 (within 1e-9), got {p.sum()!r}")
        t.flags.writeable = p.flags.writeable = False  # a cached value nobody can change
        for name, value in (("totals", t), ("probabilities", p), ("expression", str(expression))):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a Distribution is immutable: {name!r} cannot be set")

    def __reduce__(self):
        return Distribution, (self.totals, self.probabilities, self.expression)

    # --- a mapping total -> probability ------------------------------------------------
    def _position(self, total: object) -> int:
        """Index of ``total`` in :attr:`totals`, -1 when it is not a possible total."""
        if isinstance(total, (bool, np.bool_)):
            return -1
        if isinstance(total, numbers.Integral):
            number = int(total)
        elif isinstance(total, (float, np.floating)) and float(total).is_integer():
            number = int(total)  # 7.0 is the total 7, as in the Series
        else:
            return -1
        t = self.totals
        if not t[0] <= number <= t[-1]:
            return -1
        i = int(np.searchsorted(t, number))
        return i if t[i] == number else -1

    def __getitem__(self, total: int) -> float:
        i = self._position(total)
        if i < 0:
            shown = f" of {self.expression}" if self.expression else ""
            raise KeyError(f"{total!r} is not a possible total{shown} (totals "
                           f"{self.totals[0]} to {self.totals[-1]}); get({total!r}, 0.0) "
                           "reads 0")
        return float(self.probabilities[i])

    def get(self, total: int, default: float | None = None) -> float | None:
        """``d[total]``, or ``default`` when ``total`` is not a possible total."""
        i = self._position(total)
        return default if i < 0 else float(self.probabilities[i])

    def __contains__(self, total: object) -> bool:
        return self._position(total) >= 0

    def __len__(self) -> int:
        return int(self.totals.size)

    def __iter__(self) -> Iterator[int]:
        return iter(self.totals.tolist())

    def keys(self) -> list[int]:
        """The totals (Python ints)."""
        return self.totals.tolist()

    def items(self) -> list[tuple[int, float]]:
        """``(total, probability)`` pairs, lowest total first."""
        return list(zip(self.totals.tolist(), self.probabilities.tolist()))

    def to_dict(self) -> dict[int, float]:
        """``{total: probability}``."""
        return dict(self.items())

    @property
    def index(self) -> np.ndarray:
        """:attr:`totals`, by the name a pandas Series gives them."""
        return self.totals

    @property
    def values(self) -> np.ndarray:
        """:attr:`probabilities`, by the name a pandas Series gives them."""
        return self.probabilities

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        if copy or (dtype is not None and np.dtype(dtype) != self.probabilities.dtype):
            return np.array(self.probabilities, dtype=dtype)
        return self.probabilities

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Distribution):
            return NotImplemented
        return bool(np.array_equal(self.totals, other.totals)
                    and np.array_equal(self.probabilities, other.probabilities))

    def __hash__(self) -> int:
        return hash((self.totals.tobytes(), self.probabilities.tobytes()))

    # --- what designers ask of it --------------------------------------------------------
    @property
    def mean(self) -> float:
        """The mean total, summed exactly (``math.fsum``): a symmetric distribution such as
        ``1d6-1d6`` has mean 0, not a rounding residue.

        >>> from balance.dice import distribution
        >>> distribution("1d6-1d6").mean, distribution("3d6-3d6").mean
        (0.0, 0.0)
        """
        return math.fsum((self.totals * self.probabilities).tolist())

    @property
    def sd(self) -> float:
        """The standard deviation of the total (centred: no cancellation)."""
        return math.sqrt(float(np.dot((self.totals - self.mean) ** 2, self.probabilities)))

    def at_least(self, total: ArrayLike) -> float | np.ndarray:
        """P(the total is ``total`` or more): a float, or an array for an array of totals
        (exactly 1 up to the lowest total; summed from the top, so a far tail keeps its digits).

        >>> from balance.dice import distribution
        >>> round(distribution("2d20kh1").at_least(11), 12)  # advantage: 1 - (10/20)**2
        0.75
        """
        tail = np.concatenate([np.cumsum(self.probabilities[::-1])[::-1], [0.0]])
        tail[0] = 1.0  # every total is at least the lowest (summed, it may read 0.9999999999999999)
        return self._read(tail.clip(0.0, 1.0), total, "left")

    def at_most(self, total: ArrayLike) -> float | np.ndarray:
        """P(the total is ``total`` or less): a float, or an array for an array of totals
        (exactly 1 from the highest total on)."""
        head = np.concatenate([[0.0], np.cumsum(self.probabilities)])
        head[-1] = 1.0
        return self._read(head.clip(0.0, 1.0), total, "right")

    def _read(self, cumulative: np.ndarray, total: ArrayLike, side: str) -> float | np.ndarray:
        at = check_number_array("total", total)
        out = cumulative[np.searchsorted(self.totals, at, side=side)]  # type: ignore[call-overload]
        return float(out) if out.ndim == 0 else out

    def to_series(self) -> pd.Series:
        """The pandas Series ``value -> probability`` (index ``value``, int64; name
        ``probability``), a copy: what :func:`distribution` returned before it returned this."""
        return outcome_table(self.probabilities, self.totals, total=1)

    # --- how it reads --------------------------------------------------------------------
    def _rows(self) -> tuple[str, list[tuple[str, str]]]:
        """(caption, rows of total and probability text; ``...`` where the middle is cut)."""
        t, p, half = self.totals, self.probabilities, self.SHOWN // 2
        cut = t.size > self.SHOWN
        at = np.r_[0:half, t.size - half:t.size] if cut else np.arange(t.size)
        rows = [(str(t[i]), f"{p[i]:.6g}") for i in at]
        if cut:
            rows.insert(half, ("...", "..."))
        what = f"Distribution of {self.expression}" if self.expression else "Distribution"
        return (f"{what}: {t.size:,} totals from {t[0]} to {t[-1]}, mean {self.mean:.4f}, "
                f"sd {self.sd:.4f}"), rows

    def __repr__(self) -> str:
        caption, rows = self._rows()
        wide = max(5, *(len(r[0]) for r in rows))
        lines = [caption, f"{'total':>{wide}}  probability"]
        lines += [f"{a:>{wide}}  {b:>11}" for a, b in rows]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from html import escape

        caption, rows = self._rows()
        body = "".join(f"<tr><td>{a}</td><td>{b}</td></tr>" for a, b in rows)
        return (f"<table><caption>{escape(caption)}</caption><thead><tr><th>total</th>"
                f"<th>probability</th></tr></thead><tbody>{body}</tbody></table>")


def outcome_table(counts: ArrayLike, values: Sequence | np.ndarray, name: str = "value",
                  total: float | None = None) -> pd.Series:
    """An outcome table: Series ``value -> probability`` from counts of equally likely outcomes.

    The one place a distribution is built from counts (the dice here; the percentile tiers and
    contests count die faces). ``total`` is the number of outcomes (default ``counts.sum()``,
    taken before any conversion, so integer counts divide exactly once).

    Examples
    --------
    The faces of 2d4 by their total:

    >>> from balance.dice import outcome_table
    >>> outcome_table([1, 2, 3, 4, 3, 2, 1], range(2, 9)).loc[5]
    np.float64(0.25)
    """
    import pandas as pd

    counts = np.asarray(counts)
    probs = counts / (counts.sum() if total is None else total)
    return pd.Series(probs, index=pd.Index(values, name=name), name="probability")
