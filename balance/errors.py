"""Errors and argument checks shared by the whole package.

Every public function validates its arguments *before* doing any work and raises a
:class:`ValueError` whose one-line message names the argument and what is accepted.
"""
from __future__ import annotations

import difflib
import math
import numbers
import re
from typing import SupportsInt, cast
from collections.abc import Iterable

import numpy as np

__all__ = [
    "RulesError",
    "check_integer",
    "check_number",
    "check_integer_array",
    "check_number_array",
    "check_choice",
    "did_you_mean",
    "shown",
]


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


class RulesError(ValueError):
    """A rules file or in-memory variant is unusable.

    The message is one line naming the file, the table and the row at fault.
    """


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """Return ``" (did you mean 'x'?)"`` when a close match exists, else ``""`` (also for a
    word far longer than any name: difflib's time grows with the product of the lengths)."""
    if len(str(word)) > 200:
        return ""
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def shown(value: object, width: int = 60) -> str:
    """``repr(value)`` for a one-line message, cut to ``width`` characters; a list or tuple of
    more than 8 values is named by its length, without writing it out first.

    A repr written over several lines (a numpy array) is put on one.

    >>> shown("2d6" * 40, 20), shown([0] * 10**6)
    ("'2d62d62d62d62d62...", 'list of 1,000,000 values')
    """
    if isinstance(value, (list, tuple)) and len(value) > 8:
        return f"{type(value).__name__} of {len(value):,} values"
    text = re.sub(r"\s*\n\s*", " ", repr(value))
    return text if len(text) <= width else text[:width - 3] + "..."


def _range_text(min: float | None, max: float | None) -> str:
    if min is not None and max is not None:
        return f"between {min} and {max}"
    if min is not None:
        return f">= {min}"
    if max is not None:
        return f"<= {max}"
    return ""


def _invalid(name: str, noun: str, min, max, got, repr_: bool = False) -> ValueError:
    """The one-line error: ``"<name> must be <noun> <range>, got <value>"``."""
    text = f"{name} must be {noun} {_range_text(min, max)}".rstrip()
    return ValueError(f"{text}, got {shown(got)}" if repr_ else f"{text}, got {got}")


def check_integer(name: str, value: object, *, min: int | None = None,
                  max: int | None = None) -> int:
    """Return ``value`` as an ``int`` or raise a one-line ``ValueError``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and not isinstance(value, bool) \
                and float(value).is_integer():
            number = int(cast(SupportsInt, value))  # a whole Real (2.0, Fraction(4, 1))
        else:
            raise _invalid(name, "an integer", min, max, value, repr_=True)
    else:
        number = int(value)
    if (min is not None and number < min) or (max is not None and number > max):
        raise _invalid(name, "an integer", min, max, number)
    if not _INT64_MIN <= number <= _INT64_MAX:  # numpy could not hold it
        raise _invalid(name, "an integer", _INT64_MIN if min is None else min,
                       _INT64_MAX if max is None else max, number)
    return number


def check_number(name: str, value: object, *, min: float | None = None,
                 max: float | None = None, strict_min: bool = False) -> float:
    """Return ``value`` as a finite real number or raise a one-line ``ValueError``.

    ``strict_min`` makes the lower bound exclusive (``value > min``). NaN and infinities are
    refused.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number, got {value!r}")
    number = cast(float, value)  # a Real, returned as given (an int stays an int)
    if not math.isfinite(number):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if min is not None and (number <= min if strict_min else number < min):
        op = ">" if strict_min else ">="
        raise ValueError(f"{name} must be a number {op} {min}, got {number}")
    if max is not None and number > max:
        raise ValueError(f"{name} must be a number {_range_text(min, max)}, got {number}")
    return number


def check_integer_array(name: str, value: object, *, min: int | None = None,
                        max: int | None = None) -> np.ndarray:
    """Return ``value`` as an integer ndarray (scalars become 0-d arrays).

    Accepts Python/numpy integers and integral floats, scalars or array-likes.
    """
    try:
        arr = np.asarray(value)
    except Exception:  # pragma: no cover - exotic inputs
        raise _invalid(name, "integers", min, max, value, repr_=True) from None
    lo = _INT64_MIN if min is None else min      # the range a message names
    hi = _INT64_MAX if max is None else max
    if arr.dtype == object and arr.size:    # whole numbers, some maybe beyond int64
        big = None
        for v in arr.flat:
            if not isinstance(v, numbers.Integral) or isinstance(v, (bool, np.bool_)):
                break                       # not whole numbers: refused below
            if big is None and not _INT64_MIN <= int(v) <= _INT64_MAX:
                big = int(v)                # the first one beyond int64
        else:
            if big is not None:
                raise _invalid(name, "integers", lo, hi, big)
            arr = arr.astype(np.int64)
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise _invalid(name, "integers", min, max, value, repr_=True)
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise _invalid(name, "integers", min, max, value, repr_=True)
        _in_range(name, "integers", arr, min, max)  # the value given, before any cast
    if arr.dtype.kind in "fu":  # outside int64 a cast would wrap
        if arr.dtype.kind == "f":  # 2.0**63 is the first float past int64
            bad = arr[(arr < -2.0**63) | (arr >= 2.0**63)]
        else:
            bad = arr[arr > np.uint64(_INT64_MAX)]
        if bad.size:
            raise _invalid(name, "integers", lo, hi, bad.flat[0])
    return _in_range(name, "integers", arr.astype(np.int64, copy=False), min, max)


def _in_range(name: str, noun: str, arr: np.ndarray, min, max) -> np.ndarray:
    """``arr`` if all its values lie within ``[min, max]``, else the one-line error."""
    if arr.size:
        lo, hi = arr.min(), arr.max()
        if min is not None and lo < min:
            raise _invalid(name, noun, min, max, lo)
        if max is not None and hi > max:
            raise _invalid(name, noun, min, max, hi)
    return arr


def check_number_array(name: str, value: object, *, min: float | None = None,
                       max: float | None = None) -> np.ndarray:
    """Return ``value`` as a float ndarray of real numbers (no NaN; scalars become 0-d arrays).

    >>> check_number_array("minutes", [0, 1.5]).tolist()
    [0.0, 1.5]
    """
    arr = np.asarray(value)
    if arr.dtype == bool or arr.dtype.kind not in "iuf" or np.any(np.isnan(arr)):
        raise _invalid(name, "numbers", min, max, value, repr_=True)
    return _in_range(name, "numbers", arr.astype(np.float64), min, max)


def check_choice(name: str, value: object, choices: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``choices`` (case-insensitive), else raise."""
    choices = list(choices)
    if isinstance(value, str):
        for c in choices:
            if value.strip().lower() == c.lower():
                return c
    raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, "
                     f"got {value!r}{did_you_mean(str(value), choices)}")
