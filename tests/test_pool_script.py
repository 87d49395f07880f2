"""A script that runs a simulation on worker processes runs once, guard or not.

multiprocessing's helpers import the parent's script again (as ``__mp_main__``) unless told
otherwise; a script without ``if __name__ == "__main__":`` ran twice, printing and writing
twice (balance.montecarlo._helper_main). Each case runs a script in a fresh Python process,
on 2 workers (the pool started beforehand, so that the helpers surely work), with a sampler
defined in the script and holding an object of the script.
"""
from __future__ import annotations

import multiprocessing
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif("forkserver" not in multiprocessing.get_all_start_methods(),
                                reason="where there is no forkserver, helpers are spawned "
                                       "and need the guard, as Python's documentation says")

SCRIPT = '''
import functools, sys
import numpy as np
import balance as bl

class Die:                      # an object of the script, held by the sampler
    faces = 6

def sampler(n, rng, die):
    return {"sixes": np.array([np.count_nonzero(rng.integers(1, die.faces + 1, n) == 6)])}

print("top level ran", flush=True)
with open(sys.argv[1], "a") as f:
    f.write("ran\\n")
bl.montecarlo.start_workers(2)
run = functools.partial(bl.montecarlo.run, functools.partial(sampler, die=Die()), 2_000_000,
                        seed=1, block_size=65_536)
two, one = run(workers=2), run(workers=1)
print(two.workers_used, int(two.totals["sixes"][0]), int(one.totals["sixes"][0]))
'''


def _check(out: subprocess.CompletedProcess, log) -> None:
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert lines.count("top level ran") == 1, out.stdout
    assert log.read_text() == "ran\n"
    used, sixes_two, sixes_one = lines[-1].split()
    assert used == "2" and sixes_two == sixes_one, out.stdout


def test_a_script_without_the_guard_runs_once(tmp_path):
    script = tmp_path / "job.py"
    script.write_text(SCRIPT)
    log = tmp_path / "log.txt"
    _check(subprocess.run([sys.executable, str(script), str(log)], capture_output=True,
                          text=True, timeout=180, cwd=tmp_path), log)


def test_a_module_run_with_dash_m_runs_once(tmp_path):
    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs" / "__init__.py").write_text("")
    (tmp_path / "jobs" / "nightly.py").write_text(SCRIPT)
    log = tmp_path / "log.txt"
    _check(subprocess.run([sys.executable, "-m", "jobs.nightly", str(log)], capture_output=True,
                          text=True, timeout=180, cwd=tmp_path), log)
