"""Imported by the forkserver before it forks the helpers, so that they do not run the
parent's script again (engine internals of :mod:`balance.montecarlo.pool`).

A helper that multiprocessing starts imports the parent's ``__main__`` (a script runs again
as ``__mp_main__``), unless its own ``__main__`` is already that script, as in a forked
process. A script that calls a simulation with ``workers=2`` outside an
``if __name__ == "__main__":`` guard then ran twice: once here, once in the helper (its prints
and files twice). The parent names its script (or ``python -m`` module) in the forkserver's
environment (:func:`balance.montecarlo.pool._start_forkserver`); this module gives the
forkserver's ``__main__`` that name, and every helper forked from it skips the import. Nothing
a helper runs needs the script: samplers reach it pickled, those of ``__main__`` by value
(:func:`balance.montecarlo.pool.portable`).
"""
from __future__ import annotations

import os
import sys
from importlib.machinery import ModuleSpec

#: the environment variables the parent sets for the forkserver it starts
MAIN_PATH_ENV = "BALANCE_PARENT_MAIN_PATH"
MAIN_NAME_ENV = "BALANCE_PARENT_MAIN_NAME"

_main = sys.modules.get("__main__")
if _main is not None and os.environ.get(MAIN_PATH_ENV):
    _main.__file__ = os.environ[MAIN_PATH_ENV]
if _main is not None and os.environ.get(MAIN_NAME_ENV):
    _main.__spec__ = ModuleSpec(os.environ[MAIN_NAME_ENV], None)
