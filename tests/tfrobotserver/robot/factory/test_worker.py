"""Work off the event loop: threads keep the caller's context; processes are capped and ended when late."""

from __future__ import annotations

import contextvars
import sys
import threading
import time

import pytest

from tfrobotserver.robot.factory.worker import PROCESS_MEMORY, off_loop, off_process

_REQUEST: contextvars.ContextVar[str] = contextvars.ContextVar("request")


def _where() -> tuple[str, str]:
    return threading.current_thread().name, _REQUEST.get()


async def test_off_loop_runs_on_a_worker_thread_with_the_callers_context() -> None:
    _REQUEST.set("r-1")
    name, request = await off_loop(_where)
    assert name.startswith("tfrobot-cpu")
    assert request == "r-1"


async def test_a_process_job_past_its_time_limit_is_ended_and_the_next_one_runs() -> None:
    started = time.monotonic()
    with pytest.raises(TimeoutError, match=r"longer than 0\.1 s"):
        await off_process(time.sleep, 30, seconds=0.1)
    assert time.monotonic() - started < 10
    assert await off_process(sorted, [3, 1, 2], seconds=5) == [1, 2, 3]


@pytest.mark.skipif(sys.platform == "win32", reason="no address-space limit on Windows")
async def test_a_process_job_cannot_take_more_than_its_memory() -> None:
    with pytest.raises(MemoryError):
        await off_process(bytearray, PROCESS_MEMORY, seconds=10)
