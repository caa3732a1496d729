"""How long the event loop went without running while a job ran: the measure of "off the loop" in tests."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def largest_stall(job: Awaitable[T]) -> tuple[T, float]:
    """`job`'s result, and the longest the event loop went without running a 5 ms ticker meanwhile
    (the stall the job may end in included)."""
    gaps: list[float] = []
    last = [time.monotonic()]

    async def ticker() -> None:
        while True:
            await asyncio.sleep(0.005)
            now = time.monotonic()
            gaps.append(now - last[0])
            last[0] = now

    ticking = asyncio.create_task(ticker())
    try:
        result = await job
    finally:
        ticking.cancel()
    gaps.append(time.monotonic() - last[0])
    return result, max(gaps)
