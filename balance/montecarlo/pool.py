"""Local worker processes for :func:`balance.montecarlo.run` (engine internals).

``workers=N`` means N processes work: this one and ``N - 1`` helpers. Helpers come from a
forkserver (spawn where there is none) whose preload already imported numpy and the engine,
and the compiled loops this process had loaded when the forkserver started
(:func:`preload_in_helpers`).
They start in the background while this process already runs chunks, and stay up between
runs (like joblib's loky executor) until :data:`IDLE_TIMEOUT` seconds without work,
:func:`shutdown_workers`, or interpreter exit. Any exception, Ctrl-C, or the consumer
stopping early cancels pending chunks and terminates the helpers at once.
"""
from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import sys
import threading
import uuid
from collections.abc import Callable, Generator

from ..budgets import check_workers
from .blocks import Chunk, Plan, Result, Totals, _ordered, run_chunk

__all__ = ["iterate_processes", "start_workers", "shutdown_workers", "portable", "IDLE_TIMEOUT",
           "pays_for_pool", "startup_cost", "preload_in_helpers", "STARTUP_SECONDS",
           "RESTART_SECONDS"]

#: Seconds an idle set of helper processes is kept for the next run.
IDLE_TIMEOUT = 300.0
#: Seconds a cold start of the helpers costs in a process that has started none yet (the
#: forkserver starts and preloads numpy and the engine): measured with
#: ``balance.bench.measure_pool_startup`` on the 2-core development machine at load 11-13,
#: 1.47-1.63 s in three fresh processes; the lower figure, rounded down.
STARTUP_SECONDS = 1.4
#: Seconds a new set of helpers costs once the forkserver runs (a pool of another size, or one
#: expired after :data:`IDLE_TIMEOUT`): 0.012-0.048 s measured the same way; the higher figure.
RESTART_SECONDS = 0.05

_lock = threading.Lock()
_state: dict = {"pool": None, "helpers": 0, "starter": None, "timer": None, "busy": False,
                "started": False}
_SAMPLER: dict[str, Callable] = {}  # in a helper: the sampler of the current run, by token
_STARTERS: list[threading.Thread] = []  # threads still starting helpers (joined at exit)


def portable(sampler: Callable) -> bytes:
    """The sampler pickled once for the helpers: by reference when it pickles so, else with
    cloudpickle (functions defined in ``__main__``, a notebook or a script)."""
    func = getattr(sampler, "func", sampler)
    try:
        if getattr(func, "__module__", None) != "__main__":
            return pickle.dumps(sampler, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        pass
    try:
        import cloudpickle
    except ImportError:  # a script's __main__ functions still pickle by reference
        try:
            return pickle.dumps(sampler, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:
            raise ValueError("sampler must be picklable for workers > 1 (a module-level "
                             "function or functools.partial of one); install cloudpickle to "
                             "send notebook functions") from None
    try:
        return cloudpickle.dumps(sampler)
    except Exception as exc:
        raise ValueError(f"sampler must be picklable for workers > 1: {exc}") from None


def pays_for_pool(trials: int, seconds_per_trial: float, startup_seconds: float) -> bool:
    """Whether ``trials`` trials are long enough to pay for starting a pool of helpers.

    The threshold is measured, not set: with the pool, this process works alone while the
    helpers start (``startup_seconds``, :func:`startup_cost`), then ``w`` processes share the
    rest, so ``T_w ~ S + (T_1 - S) / w``; starting it gains only when the run would take
    longer than ``S`` in one process, ``T_1 = trials x seconds_per_trial > S`` (while the
    helpers start they also take CPU from this process on a busy machine: below ``S`` the
    pool only costs). :func:`balance.montecarlo.run` asks it about the trials left after
    its first block, timed in-process.

    >>> pays_for_pool(10**6, 2.5e-9, 0.3), pays_for_pool(10**9, 2.5e-9, 0.3)
    (False, True)
    """
    return trials * seconds_per_trial > startup_seconds


def startup_cost(helpers: int) -> float:
    """Seconds before ``helpers`` helper processes can work: 0 when the cached pool of that
    size is up and idle (warm), :data:`RESTART_SECONDS` when this process already started
    helpers from its forkserver, else :data:`STARTUP_SECONDS` (a cold start)."""
    with _lock:
        pool, starter = _state["pool"], _state["starter"]
        if (pool is not None and not _state["busy"] and _state["helpers"] == helpers
                and not getattr(pool, "_broken", False)
                and (starter is None or not starter.is_alive())):
            return 0.0
        forkserver = "forkserver" in multiprocessing.get_all_start_methods()
        return RESTART_SECONDS if _state["started"] and forkserver else STARTUP_SECONDS


def _init() -> None:  # helpers leave Ctrl-C to the driver, which terminates them
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _ping() -> None:
    return None


def run_payload(token: str, payload: bytes | None, plan: Plan, first: int,
                stop: int) -> tuple[int, list[Totals] | None, Chunk]:
    """Helper side of a chunk: unpickle the run's sampler once per run, then run the chunk.

    Returns ``(this helper's pid, the chunk's totals, the chunk)``. The sampler comes with a
    chunk only until every helper has reported back (a pickled sampler weighs some 30 KB with
    its rules: sent with each of 954 chunks it took a fifth of a 2-process run of 10^9
    critical-injury trials); a helper asked for a chunk of a run it has not seen returns
    ``None`` totals, and the driver runs that chunk itself."""
    sampler = _SAMPLER.get(token)
    if sampler is None:
        if payload is None:
            return os.getpid(), None, (first, stop)
        _SAMPLER.clear()
        sampler = _SAMPLER[token] = pickle.loads(payload)
    return os.getpid(), run_chunk(sampler, plan, first, stop), (first, stop)


#: modules the forkserver imports before it forks helpers, beyond the engine's
_PRELOADS: set[str] = set()


def preload_in_helpers(module: str) -> None:
    """Have the forkserver import ``module`` (by name) when it starts, so that every helper
    forked from it has what the module loads already in memory.

    For a compiled loop (numba): loading its machine code costs a new process about a second
    before its first trial. The module should catch its own errors (a forkserver whose
    preload raises anything but ImportError cannot start). A forkserver already running keeps
    its preload; the module then loads in each helper on first use, as without this.

    Examples
    --------
    >>> import balance.guide._fight_loop                  # registers its warm-up on import
    >>> "balance.guide._fight_warm" in _PRELOADS
    True
    """
    _PRELOADS.add(module)


#: why a run refuses to start helpers from a helper that is importing the parent's script
SCRIPT_GUARD = ("helper processes import the script again, as multiprocessing does; in a "
                "script, put what starts the run under if __name__ == \"__main__\":")


def refuse_while_importing_script(what: str) -> None:
    """Stop a helper that, importing the parent's script, reaches ``what`` (a run with workers,
    or ``start_workers``): the script has no ``if __name__ == "__main__":`` guard, and would
    otherwise run a second time in every helper. One line on stderr, no traceback; the parent
    then reports a helper that stopped (:func:`iterate_processes`)."""
    if getattr(multiprocessing.current_process(), "_inheriting", False):
        sys.stderr.write(f"balance: {what} while a helper process imports the script: "
                         f"{SCRIPT_GUARD}\n")
        sys.stderr.flush()
        raise SystemExit(1)


def _context() -> multiprocessing.context.BaseContext:
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(method)
    if method == "forkserver":
        ctx.set_forkserver_preload(["balance.montecarlo.blocks", "balance.montecarlo.engine",
                                    *sorted(_PRELOADS)])
    return ctx


def _start(pool, helpers: int) -> None:
    """Start the helpers (blocks while the forkserver starts); runs in a thread."""
    try:
        for future in [pool.submit(_ping) for _ in range(helpers)]:
            future.result()
    except Exception:  # a broken pool shows up again, with its cause, on the next submit
        pass
    finally:
        if threading.current_thread() in _STARTERS:
            _STARTERS.remove(threading.current_thread())


def _wait_for_starters() -> None:
    """At interpreter exit, let helpers that are still starting finish starting before
    the pool is shut down: a helper torn down while it unpickles its queues would print a
    traceback (FileNotFoundError on a semaphore) after a short run."""
    for starter in list(_STARTERS):
        starter.join(timeout=30)


def _new_pool(helpers: int):
    from concurrent.futures import ProcessPoolExecutor

    if not _state.get("exit_hook"):
        # registered after concurrent.futures' own exit hook, so it runs before it
        getattr(threading, "_register_atexit", __import__("atexit").register)(_wait_for_starters)
        _state["exit_hook"] = True
    _state["started"] = True
    pool = ProcessPoolExecutor(max_workers=helpers, mp_context=_context(), initializer=_init)
    starter = threading.Thread(target=_start, args=(pool, helpers), daemon=True)
    _STARTERS.append(starter)
    starter.start()
    return pool, starter


def _acquire(helpers: int):
    """``(pool, starter, cached)``: the cached pool of ``helpers`` processes (made anew if
    none, of another size, or broken), or a private pool when another run is using it."""
    with _lock:
        if _state["busy"]:
            return (*_new_pool(helpers), False)
        if _state["timer"] is not None:
            _state["timer"].cancel()
            _state["timer"] = None
        pool = _state["pool"]
        if pool is not None and (_state["helpers"] != helpers or getattr(pool, "_broken", False)):
            _release_locked(terminate=False)
            pool = None
        if pool is None:
            pool, starter = _new_pool(helpers)
            _state.update(pool=pool, helpers=helpers, starter=starter)
        _state["busy"] = True
        return pool, _state["starter"], True


def _idle(pool) -> None:
    with _lock:
        _state["busy"] = False
        if _state["pool"] is pool:
            _state["timer"] = threading.Timer(IDLE_TIMEOUT, _expire, args=(pool,))
            _state["timer"].daemon = True
            _state["timer"].start()


def _expire(pool) -> None:
    with _lock:
        if _state["pool"] is pool:
            _release_locked(terminate=False)


def _release_locked(terminate: bool) -> None:
    pool, starter = _state["pool"], _state["starter"]
    if _state["timer"] is not None:
        _state["timer"].cancel()
    _state.update(pool=None, helpers=0, starter=None, timer=None, busy=False)
    if pool is not None:
        _close(pool, starter, terminate)


def _close(pool, starter: threading.Thread | None, terminate: bool) -> None:
    if terminate:
        if starter is not None:
            starter.join(timeout=30)
        _terminate(pool)
    elif starter is not None and starter.is_alive():  # helpers exit as soon as they are up
        threading.Thread(target=pool.shutdown, kwargs={"cancel_futures": True},
                         daemon=True).start()
    else:
        pool.shutdown(wait=True, cancel_futures=True)


def _terminate(pool) -> None:
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in processes:
        if proc.is_alive():
            proc.terminate()
    for proc in processes:
        proc.join(timeout=5)
        if proc.is_alive():  # pragma: no cover - a helper stuck in C code
            proc.kill()
            proc.join(timeout=5)


def start_workers(workers: int) -> None:
    """Start ``workers - 1`` helper processes now and keep them warm (idle, for
    :data:`IDLE_TIMEOUT` s), so that the next runs with ``workers`` processes, even short
    ones, use them at once. Returns when they are up; nothing to do when they already are.
    ``workers`` is checked by :func:`balance.budgets.check_workers`.

    Examples
    --------
    >>> import balance as bl
    >>> bl.montecarlo.start_workers(1)   # this process alone: no helper to start
    """
    helpers = check_workers(workers) - 1
    if helpers == 0:
        return
    refuse_while_importing_script("start_workers")
    if startup_cost(helpers) == 0.0:
        return
    pool, starter, cached = _acquire(helpers)
    if starter is not None:
        starter.join()
    if cached:
        _idle(pool)
    else:  # pragma: no cover - another run holds the cached pool: this private one goes
        _close(pool, None, terminate=False)


def shutdown_workers() -> None:
    """Stop the idle helper processes now (they are otherwise kept :data:`IDLE_TIMEOUT` s)."""
    with _lock:
        _release_locked(terminate=False)


def iterate_processes(sampler: Callable, plan: Plan, chunks: list[Chunk],
                      workers: int) -> Generator[Result, None, None]:
    """Run the chunks on this process and ``workers - 1`` helper processes, in chunk order."""
    payload, token = portable(sampler), uuid.uuid4().hex
    pool, starter, cached = _acquire(workers - 1)
    primed: set[int] = set()  # the helpers that hold this run's sampler

    def submit(chunk: Chunk):
        return pool.submit(run_payload, token, None if len(primed) >= workers - 1 else payload,
                           plan, *chunk)

    def result(future) -> list[Totals]:
        pid, totals, chunk = future.result()
        if totals is None:  # that helper has not got the sampler: send it again, run it here
            primed.discard(pid)
            return run_chunk(sampler, plan, *chunk)
        primed.add(pid)
        return totals

    try:
        yield from _ordered(submit, result, chunks, 2 * (workers - 1) + 1,
                            local=lambda c: run_chunk(sampler, plan, *c),
                            ready=lambda: not starter.is_alive())
    except BaseException as exc:
        with _lock:
            if cached and _state["pool"] is pool:
                _release_locked(terminate=True)
            else:
                _close(pool, starter, terminate=True)
        from concurrent.futures.process import BrokenProcessPool

        if isinstance(exc, BrokenProcessPool):
            raise RuntimeError(f"workers={workers}: a helper process stopped (killed, out of "
                               f"memory, or stopped while starting: {SCRIPT_GUARD})") from None
        raise
    if cached:
        _idle(pool)
    else:
        _close(pool, starter, terminate=False)
