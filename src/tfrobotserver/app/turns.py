"""Chat turns as tasks of their own: a response observes a turn, it does not own it.

A turn runs to its end whatever its client does — reads the whole stream, hangs up halfway, or is
a JSON request whose connection drops — so that every turn the server accepted is stored, finished
or failed with its partial trace (the brain stores it when it ends). The response only reads the
turn's events from a queue. At shutdown the server lets running turns finish for a grace period,
then cancels the rest, which the brain stores as interrupted.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Final

from tfrobot.brain.chain.events import ChainEvent

SHUTDOWN_GRACE: Final = 10.0
"""Seconds running turns get to finish when the server stops."""


class RunningTurn:
    """One turn in its own task; `next()` gives its events in order, then None, or raises its error."""

    def __init__(self, events: AsyncIterator[ChainEvent]) -> None:
        self._queue: asyncio.Queue[ChainEvent | BaseException | None] = asyncio.Queue()
        self.task = asyncio.create_task(self._run(events))

    async def _run(self, events: AsyncIterator[ChainEvent]) -> None:
        try:
            async for event in events:
                self._queue.put_nowait(event)
        except BaseException as exc:  # handed to the watcher; a cancellation still cancels this task
            self._queue.put_nowait(exc)
            if not isinstance(exc, Exception):
                raise
        else:
            self._queue.put_nowait(None)

    async def next(self) -> ChainEvent | None:
        """The turn's next event, None once it ended; the turn's own exception if it failed."""
        item = await self._queue.get()
        if isinstance(item, BaseException):
            raise item
        return item


class Turns:
    """The turns in flight on this server."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def start(self, events: AsyncIterator[ChainEvent]) -> RunningTurn:
        """Run a turn (its `Brain.astream`) to its end, whoever watches it."""
        turn = RunningTurn(events)
        self._tasks.add(turn.task)
        turn.task.add_done_callback(self._tasks.discard)
        return turn

    async def aclose(self, grace: float = SHUTDOWN_GRACE) -> None:
        """Wait up to `grace` seconds for the running turns, then cancel the others and wait for them."""
        if not self._tasks:
            return
        _, pending = await asyncio.wait(set(self._tasks), timeout=grace)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
