"""Scripts that run simulations on worker processes (balance.montecarlo.pool).

Helpers import the parent's script again, as multiprocessing does (``__mp_main__``), so a
guarded script's top-level setup is there in every helper and ``workers=2`` gives what
``workers=1`` gives. A script whose run is not under ``if __name__ == "__main__":`` would start
the run again in each helper: the helper stops with one line naming the guard, and the parent
raises an error that says so, instead of the helpers running the script's work a second time.
Each case runs a script in a fresh Python process.
"""
from __future__ import annotations

import multiprocessing
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif("forkserver" not in multiprocessing.get_all_start_methods(),
                                reason="helpers come from a forkserver here; spawn behaves "
                                       "the same but starts slower")

GUARDED = '''
import numpy as np
import balance as bl
import mylib

mylib.FACTOR = 10                       # top-level setup the helpers need too

def sampler(n, rng):
    return {"total": np.array([mylib.FACTOR * int(rng.integers(0, 2, n).sum())])}

if __name__ == "__main__":
    bl.montecarlo.start_workers(2)
    two = bl.montecarlo.run(sampler, 2_000_000, seed=1, block_size=65_536, workers=2)
    one = bl.montecarlo.run(sampler, 2_000_000, seed=1, block_size=65_536, workers=1)
    print(two.workers_used, int(two.totals["total"][0]), int(one.totals["total"][0]))
'''

UNGUARDED = '''
import balance as bl
print("top level ran", flush=True)
bl.montecarlo.start_workers(2)
res = bl.campaign.simulate(trials=3_000_000, seed=1, workers=2)
print("finished")
'''


def _run(tmp_path, script: str) -> subprocess.CompletedProcess:
    (tmp_path / "mylib.py").write_text("FACTOR = 1\n")
    (tmp_path / "job.py").write_text(script)
    return subprocess.run([sys.executable, "job.py"], capture_output=True, text=True,
                          timeout=180, cwd=tmp_path)


def test_a_guarded_script_s_setup_reaches_the_helpers(tmp_path):
    out = _run(tmp_path, GUARDED)
    assert out.returncode == 0, out.stderr[-2000:]
    used, two, one = out.stdout.split()
    assert used == "2" and two == one and int(one) % 10 == 0, out.stdout


def test_a_run_outside_the_guard_stops_with_the_guard_named(tmp_path):
    out = _run(tmp_path, UNGUARDED)
    assert out.returncode == 1 and "finished" not in out.stdout, out.stdout
    lines = out.stderr.strip().splitlines()
    helpers = [line for line in lines if line.startswith("balance:")]
    assert helpers and all('if __name__ == "__main__":' in line for line in helpers), lines
    # the helpers stop without a traceback; the parent's error names the guard
    assert out.stderr.count("Traceback") == 1, out.stderr
    assert lines[-1].startswith("RuntimeError: workers=2: a helper process stopped") and \
        'put what starts the run under if __name__ == "__main__":' in lines[-1], lines[-1]
