"""How the benches time: CPU time of this thread, contenders interleaved, ratios paired per round.

* `time.thread_time`: a run that the scheduler preempts on a shared machine does not count the other
  processes' time (wall time would).
* Contenders run round-robin, and each round starts with the next one, so that a burst of load, and
  whatever the previous contender left in the CPU caches, hit all of them alike.
* The garbage collector is off while an operation runs: the collections its allocations call for run
  after the clock stops, so one contender's garbage is never billed to another (their results are freed
  by reference counting; no collection is forced between runs, which with the peers' modules loaded
  would cost far more than the runs themselves).
* A ratio is the median over rounds of (contender's time / the reference's time in the same round).
"""

from __future__ import annotations

import gc
import statistics
import time
import tracemalloc
from collections.abc import Callable, Mapping

Op = Callable[[], object]
clock = time.thread_time


def interleaved(ops: Mapping[str, Op], rounds: int) -> dict[str, list[float]]:
    """Seconds of each operation in each of `rounds` rounds (one warm-up run each first)."""
    names = list(ops)
    for op in ops.values():
        op()
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            op = ops[name]
            gc.disable()
            try:
                start = clock()
                out = op()
                elapsed = clock() - start
            finally:
                gc.enable()
            del out
            times[name].append(elapsed)
    return times


def median(values: list[float]) -> float:
    return statistics.median(values)


def paired_ratios(times: Mapping[str, list[float]], reference: str) -> dict[str, float]:
    """Median over rounds of each contender's time / the reference's time in the same round."""
    ref = times[reference]
    return {name: statistics.median(t / r for t, r in zip(values, ref, strict=True)) for name, values in times.items()}


def peak_heap(op: Op) -> int:
    """Bytes of the `tracemalloc` peak of one run of `op` above what was allocated before it (the Python
    heap only: buffers pydantic-core allocates in Rust are not seen). The collector is off during the run,
    so freeing older garbage cannot lower the figure."""
    gc.disable()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        out = op()
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
        gc.enable()
    del out
    return peak
