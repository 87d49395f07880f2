"""Freed memory kept between a run's blocks (engine internals of :mod:`balance.montecarlo`).

A block allocates its arrays and frees them; the next block allocates the same sizes again.
glibc's ``malloc`` gives large freed blocks back to the kernel (``munmap``, or trimming the top
of the heap), so the next block's arrays come back as fresh pages, each a page fault on first
touch: some 16,000 faults a block of 262,144 percentile duels and 8,000 a block of campaigns,
a fifth to a third of their time on the benchmark machine (a virtual machine, where a fault
costs 2-3 µs). glibc raises its own thresholds as a program frees large blocks, up to
32 MiB for ``mmap`` and twice that for trimming; :func:`keep_freed_memory` sets those
ceilings at once, the first time a process runs blocks, so a run's freed arrays are reused
(faults per block: ~1,300 and ~1,700). The process then keeps freed memory for reuse instead
of handing it back: up to 64 MiB at the top of each malloc arena (one per thread that
allocates), what glibc's own heuristic keeps once a program has freed a 32 MiB block.

Only with glibc (Linux): elsewhere, and when the environment already sets glibc's malloc
parameters (``MALLOC_MMAP_THRESHOLD_``, ``MALLOC_TRIM_THRESHOLD_``, ``MALLOC_TOP_PAD_``,
``MALLOC_MMAP_MAX_`` or ``glibc.malloc`` in ``GLIBC_TUNABLES``), nothing is changed:
``MALLOC_TRIM_THRESHOLD_=131072`` keeps glibc's own behaviour.
"""
from __future__ import annotations

import os
import sys
import threading

__all__ = ["MMAP_THRESHOLD", "TRIM_THRESHOLD", "keep_freed_memory"]

#: glibc's ceiling for its own dynamic ``mmap`` threshold on 64-bit machines
#: (``DEFAULT_MMAP_THRESHOLD_MAX``): blocks up to this size come from the heap
MMAP_THRESHOLD = 32 << 20
#: free memory at the top of the heap kept before trimming: twice the ``mmap`` threshold, as
#: glibc's heuristic sets it
TRIM_THRESHOLD = 2 * MMAP_THRESHOLD

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3    # glibc's <malloc.h>
_ENVIRONMENT = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_",
                "MALLOC_MMAP_MAX_")
_lock = threading.Lock()
_state: dict[str, str] = {}


def _set() -> str:
    named = [v for v in _ENVIRONMENT if v in os.environ]
    if "glibc.malloc." in os.environ.get("GLIBC_TUNABLES", ""):
        named.append("GLIBC_TUNABLES")
    if named:
        return f"left as the environment sets it ({', '.join(named)})"
    if not sys.platform.startswith("linux"):
        return "left as is (not glibc)"
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # only glibc has it
        mallopt = libc.mallopt
    except Exception:  # no ctypes, musl, a static build: nothing to set
        return "left as is (not glibc)"
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    if not (mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) and mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)):
        return "left as is (glibc refused the thresholds)"
    return (f"glibc keeps freed memory: mmap threshold {MMAP_THRESHOLD >> 20} MiB, "
            f"trim threshold {TRIM_THRESHOLD >> 20} MiB")


def keep_freed_memory() -> str:
    """Have glibc's ``malloc`` keep freed arrays for reuse, once per process; say what was done.

    Returns
    -------
    str
        One line: the thresholds set, or why nothing was changed (not glibc; the environment
        sets malloc's parameters). The same line on every later call.

    Examples
    --------
    >>> from balance.montecarlo.memory import keep_freed_memory
    >>> keep_freed_memory() == keep_freed_memory()
    True
    """
    if "done" not in _state:
        with _lock:
            if "done" not in _state:
                _state["done"] = _set()
    return _state["done"]
