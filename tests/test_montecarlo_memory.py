"""The engine keeps the memory a block frees for the next block (balance.montecarlo.memory).

Counted in page faults (``ru_minflt``), not timed: a block that allocates some 13 MB of arrays
and frees them faults them all in again under glibc's default thresholds, and not once the
engine has raised them. Each case runs in a fresh process (malloc's settings are per process).
"""
from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys

import pytest

try:
    ctypes.CDLL(None).gnu_get_libc_version
    GLIBC = True
except (OSError, AttributeError):
    GLIBC = False

glibc_only = pytest.mark.skipif(not GLIBC, reason="malloc's thresholds are glibc's")

SCRIPT = r"""
import json, resource
import numpy as np
import balance as bl

def sampler(n, rng):
    # eight arrays of 1.6-1.7 MB, allocated and freed by every block
    arrays = [rng.random(200_000 + 1_000 * i) for i in range(8)]
    return {"size": np.array([sum(a.size for a in arrays)])}

bl.montecarlo.run(sampler, 4, block_size=1, seed=1)          # warm up: thresholds settle
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
bl.montecarlo.run(sampler, 20, block_size=1, seed=2)
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
from balance.montecarlo.memory import keep_freed_memory
print(json.dumps({"faults_per_block": faults / 20, "memory": keep_freed_memory()}))
"""

#: the pages of one block's arrays (8 x ~1.65 MB / 4 KiB): faulted in again when not kept
BLOCK_PAGES = 8 * 204_000 * 8 // 4096


def _run(**env) -> dict:
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith("MALLOC_") and k != "GLIBC_TUNABLES"}
    out = subprocess.run([sys.executable, "-c", SCRIPT], env={**clean, **env},
                         capture_output=True, text=True, check=True, timeout=120)
    return json.loads(out.stdout.splitlines()[-1])


@glibc_only
def test_a_run_reuses_what_its_blocks_free():
    got = _run()
    assert got["memory"].startswith("glibc keeps freed memory: mmap threshold 32 MiB, "
                                    "trim threshold 64 MiB"), got
    # the arrays come back from the heap: a small fraction of their pages fault
    assert got["faults_per_block"] < 0.1 * BLOCK_PAGES, got


@glibc_only
def test_the_environment_keeps_its_own_malloc_settings():
    # glibc's default trim threshold, set by the user: the engine leaves it, and every block
    # faults its arrays in again (what the engine avoids in the test above)
    got = _run(MALLOC_TRIM_THRESHOLD_="131072")
    assert got["memory"] == "left as the environment sets it (MALLOC_TRIM_THRESHOLD_)", got
    assert got["faults_per_block"] > 0.5 * BLOCK_PAGES, got


@glibc_only
def test_glibc_tunables_are_respected_too():
    got = _run(GLIBC_TUNABLES="glibc.malloc.trim_threshold=131072")
    assert got["memory"] == "left as the environment sets it (GLIBC_TUNABLES)", got
