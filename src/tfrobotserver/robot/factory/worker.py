"""CPU-heavy work of components off the event loop: on worker threads, or in worker processes.

One request's CPU work on the loop stalls every other client of the process for as long as it runs.
`off_loop` runs it on a small pool of threads with the caller's context variables; the work enforces
its own time limit where it runs (it gets its bounds as arguments and checks the clock as it goes),
because a thread cannot be stopped from outside, and it is bounded in size before it allocates.
Threads share the GIL, and a thread that allocates many objects triggers collections that hold it:
reading a PDF (pypdf makes tens of thousands of objects a page) stalled other requests for 0.1-0.9 s
from a thread on a loaded two-core machine. `off_process` runs such work in a pool of spawned processes
instead: one process (the next jobs queue), capped in memory and at a lower CPU priority, started on
first use; a job past its time limit is ended by ending the pool. As with any spawned process, a program
that starts the server from a script of its own needs the `if __name__ == "__main__":` guard.
"""

from __future__ import annotations

import asyncio
import atexit
import contextvars
import functools
import multiprocessing
import multiprocessing.pool
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

_THREADS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="tfrobot-cpu")
"""Four workers: on a small machine more CPU-bound threads would only take turns on the GIL, and the
next jobs queue rather than slow the event loop further."""
PROCESS_MEMORY = 2 << 30
"""Address space of one worker process (bytes): a decompression bomb is a MemoryError there, not here."""
_NICENESS = 10
"""How much lower a worker process's CPU priority is than the server's."""
_GRACE = 2.0
"""Seconds a process job may run past its own time limit before its pool is ended."""

_processes: multiprocessing.pool.Pool | None = None
_lock = threading.Lock()


async def off_loop(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """`fn(*args, **kwargs)` on a worker thread; its result, or its exception."""
    call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(_THREADS, call)


def _bounded() -> None:
    """A worker process's start: its memory capped, and its priority lowered, so that on a small machine the
    server's own process gets the CPU first (the worker's jobs are uploads, not interactive requests)."""
    try:
        import resource
    except ImportError:  # Windows: no address-space limit, no nice
        return
    resource.setrlimit(resource.RLIMIT_AS, (PROCESS_MEMORY, PROCESS_MEMORY))
    os.nice(_NICENESS)


def _pool() -> multiprocessing.pool.Pool:
    global _processes
    with _lock:
        if _processes is None:
            _processes = multiprocessing.get_context("spawn").Pool(1, initializer=_bounded)
        return _processes


def _end(pool: multiprocessing.pool.Pool) -> None:
    global _processes
    with _lock:
        if _processes is pool:
            _processes = None
    pool.terminate()
    pool.join()


def _in_process(fn: Callable[..., T], args: tuple[Any, ...], seconds: float) -> T:
    pool = _pool()
    job = pool.apply_async(fn, args)
    try:
        return job.get(seconds + _GRACE)
    except multiprocessing.TimeoutError:
        _end(pool)  # its worker may be stuck in the job; the next job starts a new pool
        raise TimeoutError(f"the job ran longer than {seconds:g} s") from None


async def off_process(fn: Callable[..., T], /, *args: Any, seconds: float) -> T:
    """`fn(*args)` in a worker process (a module-level function, picklable arguments); its result or its
    exception. `fn` is expected to stop itself within `seconds`; a job that does not is ended."""
    return await off_loop(_in_process, fn, args, seconds)


@atexit.register
def _close() -> None:
    if _processes is not None:
        _end(_processes)


__all__ = ["PROCESS_MEMORY", "off_loop", "off_process"]
