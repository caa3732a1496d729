"""Two workers (two stores, two engines) writing one conversation at once lose nothing."""

from __future__ import annotations

import asyncio

from tests.brain.memory.conftest import reply, trace_turn
from tfrobot.brain.memory import SQLMessageStore
from tfrobot.schema.message import BaseMessage

PER_WORKER = 25


async def worker(store: SQLMessageStore, name: str) -> list[BaseMessage]:
    sent: list[BaseMessage] = []
    for n in range(PER_WORKER):
        turn = trace_turn("shared", f"{name} question {n}")
        answer = reply("shared", f"{name} answer {n}")
        if n % 2:
            await store.sync_msgs([turn, answer])
        else:
            await store.sync_msg(turn)
            await store.sync_msg(answer)
        turn.intermediate_trace.append(reply("shared", "late thought"))
        await store.sync_msg(turn)  # re-sync of a grown trace, racing the other worker's inserts
        sent += [turn, answer]
    return sent


async def test_two_workers_one_conversation(store_url: str) -> None:
    first, second = SQLMessageStore(store_url), SQLMessageStore(store_url)
    try:
        sent_a, sent_b = await asyncio.gather(worker(first, "a"), worker(second, "b"))
        recalled = await first.recall("shared")
    finally:
        await first.aclose()
        await second.aclose()

    assert len(recalled) == 4 * PER_WORKER
    by_id = {m.msg_id: m for m in recalled}
    assert all(by_id[m.msg_id] == m for m in sent_a + sent_b)  # every message, in its last version
    for sent in (sent_a, sent_b):  # each worker's own order survives the interleaving
        positions = [recalled.index(m) for m in sent]
        assert positions == sorted(positions)


async def test_concurrent_migrate_is_safe(store_url: str) -> None:
    stores = [SQLMessageStore(store_url) for _ in range(3)]
    try:
        await asyncio.gather(*(s.migrate() for s in stores))
        await stores[0].sync_msg(trace_turn("m"))
        assert len(await stores[1].recall("m")) == 1
    finally:
        for s in stores:
            await s.aclose()
