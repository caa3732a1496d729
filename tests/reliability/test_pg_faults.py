"""PostgreSQL connections killed (`pg_terminate_backend`) while Brain turns are synced under load.

Workers run demo turns (ScriptedChat via `demo_chain`: tool calls, a TFL script, an image attachment)
in their own conversations through one store, as a server does, while a killer terminates every other
backend of the database again and again. Afterwards: every accepted turn (one whose `run` returned) is
in the database, in order, exactly once; every failed turn failed with `MemoryStoreUnavailable`; after
the outage every worker's next turn succeeds, on the same store object (no restart of ours).
`RELIABILITY_SOAK=1` runs more workers, turns and kills.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections import Counter

import asyncpg
import pytest
from sqlalchemy.engine import make_url

from tests.conftest import pg_execute, run_sync
from tests.reliability.servers import HttpConnection, Server, fresh_database, serve, update_doc
from tfrobot.brain.brain import Brain
from tfrobot.brain.demo import demo_chain
from tfrobot.brain.memory import MemoryStoreUnavailable, SQLMessageStore
from tfrobot.schema.message import TextMessage

SOAK = os.environ.get("RELIABILITY_SOAK") == "1"
WORKERS, TURNS, KILLS = (32, 40, 300) if SOAK else (8, 8, 25)
QUESTIONS = ["weather in Paris and Tokyo?", "and tomorrow?"]
CHAT = "/api/robots/demo/chat"
DOCS = "/api/robots/demo/components/memory/actions"


async def _killer(url: str, stop: asyncio.Event, kills: list[int]) -> None:
    conn = await asyncpg.connect(make_url(url).set(drivername="postgresql").render_as_string(hide_password=False))
    try:
        while not stop.is_set() and len(kills) < KILLS:
            killed = await conn.fetchval(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            kills.append(int(killed))
            await asyncio.sleep(0.02)
    finally:
        await conn.close()


async def _check_stored(store: SQLMessageStore, accepted: dict[str, list[str]]) -> int:
    """Every accepted message id of each conversation stored once, in the order accepted; how many
    messages were checked."""
    checked = 0
    for name, ids in accepted.items():
        stored = [m.msg_id for m in await store.recall(name)]
        assert not [k for k, n in Counter(stored).items() if n > 1], f"{name}: duplicated messages"
        positions = [stored.index(i) for i in ids]  # ValueError here = a lost message
        assert positions == sorted(positions), f"{name}: accepted turns out of order"
        checked += len(stored)
    return checked


async def _worker(brain: Brain, name: str, accepted: list[str], failed: list[BaseException]) -> None:
    for turn in range(TURNS):
        user = TextMessage(content=QUESTIONS[turn % 2], conversation_id=name)
        try:
            answer = await brain.arun(user)
        except Exception as exc:
            failed.append(exc)
            continue
        accepted += [user.msg_id, answer.msg_id]


async def test_killed_connections_lose_no_accepted_turn(pg_url: str) -> None:
    run_sync(pg_execute(pg_url, "TRUNCATE messages, conversations, documents RESTART IDENTITY"))
    store = SQLMessageStore(pg_url)
    brain = Brain(demo_chain(), store)
    accepted: dict[str, list[str]] = {f"w{i}": [] for i in range(WORKERS)}
    failed: list[BaseException] = []
    kills: list[int] = []
    stop = asyncio.Event()
    start = time.perf_counter()
    try:
        killer = asyncio.create_task(_killer(pg_url, stop, kills))
        await asyncio.gather(*(_worker(brain, name, ids, failed) for name, ids in accepted.items()))
        stop.set()
        await killer

        for name, ids in accepted.items():  # after the outage, the same store object serves again
            user = TextMessage(content=QUESTIONS[0], conversation_id=name)
            answer = await brain.arun(user)
            ids += [user.msg_id, answer.msg_id]

        checked = await _check_stored(store, accepted)
    finally:
        stop.set()
        await store.aclose()
    assert all(isinstance(exc, MemoryStoreUnavailable) for exc in failed), {
        f"{type(e).__module__}.{type(e).__name__}: {e}" for e in failed if not isinstance(e, MemoryStoreUnavailable)
    }
    assert sum(kills) > 0, "no connection was ever killed: the test did not test anything"
    print(
        f"\npg faults: {WORKERS} workers x {TURNS + 1} turns, {len(kills)} kill rounds ({sum(kills)} backends "
        f"terminated), {sum(len(v) for v in accepted.values()) // 2} turns accepted, {len(failed)} failed clearly, "
        f"{checked} messages checked, 0 lost, 0 duplicated, {time.perf_counter() - start:.1f}s"
    )


@pytest.mark.parametrize("turns", [3])
async def test_the_outage_is_reported_and_then_over(pg_url: str, turns: int) -> None:
    """With the database refusing connections, a turn fails with the fix in the message; once it accepts
    them again, the next turn on the same Brain succeeds."""
    admin = make_url(pg_url).set(drivername="postgresql").render_as_string(hide_password=False)
    name = make_url(pg_url).database
    store = SQLMessageStore(pg_url)
    brain = Brain(demo_chain(), store)
    try:
        await brain.arun(TextMessage(content="and tomorrow?", conversation_id="o"))
        conn = await asyncpg.connect(admin.rsplit("/", 1)[0] + "/postgres")
        try:
            await conn.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
            await conn.execute(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'")
            for _ in range(turns):
                with pytest.raises(MemoryStoreUnavailable, match="Fix: check that PostgreSQL is running"):
                    await brain.arun(TextMessage(content="and tomorrow?", conversation_id="o"))
        finally:
            await conn.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
            await conn.close()
        after = TextMessage(content="and tomorrow?", conversation_id="o")
        answer = await brain.arun(after)
        ids = [m.msg_id for m in await store.recall("o")]
        assert ids[-2:] == [after.msg_id, answer.msg_id]
    finally:
        await store.aclose()


async def _http_client(server: Server, name: str, killer: asyncio.Task[None], seen: Counter[str]) -> list[str]:
    """Chat turns, page reads and updates until the killer is done, then one more chat turn; returns the
    ids of the answers the server accepted (200), in order. Only 200 and 503 `unavailable` are allowed."""
    conn = HttpConnection(server.port)
    accepted: list[str] = []
    turn = 0
    try:
        while True:
            last = killer.done()
            for path, payload, token in (
                (CHAT, {"message": f"{QUESTIONS[turn % 2]} ({name} {turn})", "conversationId": name}, server.write),
                (f"{DOCS}/aget_docs", {"page": 1, "page_size": 5}, server.read),
                (f"{DOCS}/aupdate_doc", {"doc_id": 1 + turn % 42, "keywords": [name], "metadata": {}}, server.write),
            ):
                if path.endswith("aupdate_doc"):
                    status, body = await update_doc(conn, payload, token)
                else:
                    status, body = await conn.post(path, payload, token)
                seen[str(status)] += 1
                if status == 503:
                    assert json.loads(body)["error"] == "unavailable", body
                    assert not last, f"{path} still failing after the outage: {body!r}"
                    continue
                assert status == 200, f"{path}: HTTP {status} {body!r}"
                if path == CHAT:
                    accepted.append(json.loads(body)["message"]["msg_id"])
            turn += 1
            if last:
                return accepted
    finally:
        conn.close()


async def test_server_requests_during_killed_connections_fail_clearly_and_recover(pg_url: str) -> None:
    """The same faults under a real `tfrobot serve`: every request is answered 200, or 503 `unavailable`
    with `Retry-After` (never a 500 or a dropped connection); every chat turn answered 200 is stored once,
    in order; after the outage every client's requests succeed again, the server never restarted."""
    clients = WORKERS // 2
    seen: Counter[str] = Counter()
    kills: list[int] = []
    stop = asyncio.Event()
    async with fresh_database() as url:
        async with serve(url) as (server,):
            killer = asyncio.create_task(_killer(url, stop, kills))
            names = [f"h{i}" for i in range(clients)]
            try:
                results = await asyncio.gather(*(_http_client(server, name, killer, seen) for name in names))
            finally:
                stop.set()
                await killer
            assert server.process.poll() is None, "the server exited"
        store = SQLMessageStore(url, scope="demo")  # the server keeps the demo robot's turns in its scope
        try:
            checked = await _check_stored(store, dict(zip(names, results, strict=True)))
        finally:
            await store.aclose()
    assert sum(kills) > 0, "no connection was ever killed: the test did not test anything"
    assert seen["503"] > 0, "no request met the outage: the test did not test anything"
    print(
        f"\npg faults over HTTP: {clients} clients, {len(kills)} kill rounds ({sum(kills)} backends terminated), "
        f"{sum(seen.values())} requests: {seen['200']} x 200, {seen['503']} x 503 unavailable; "
        f"{sum(map(len, results))} chat turns accepted, {checked} messages checked, 0 lost, 0 duplicated"
    )
