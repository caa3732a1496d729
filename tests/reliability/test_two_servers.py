"""Two `tfrobot serve` processes started at once on one new PostgreSQL database, serving the same
conversation over HTTP at the same time: start-up seeds once, and no chat message is lost or duplicated."""

from __future__ import annotations

import asyncio
import json
import os
from collections import Counter

from tests.reliability.servers import HttpConnection, Server, fresh_database, serve
from tfrobot.brain.memory import SQLMessageStore
from tfrobot.schema.message import content_text

TURNS = 30 if os.environ.get("RELIABILITY_SOAK") == "1" else 6
QUESTIONS = ["weather in Paris and Tokyo?", "and tomorrow?"]
DOCS = "/api/robots/demo/components/memory/actions/aget_docs"


async def _turns(server: Server, name: str) -> list[tuple[str, str]]:
    """`TURNS` chat turns on the shared conversation, one after another: (question, answer id) of each."""
    conn = HttpConnection(server.port)
    accepted = []
    try:
        for n in range(TURNS):
            question = f"{QUESTIONS[n % 2]} ({name} {n})"
            payload = {"message": question, "conversationId": "shared"}
            status, body = await conn.post("/api/robots/demo/chat", payload, server.write)
            assert status == 200, body
            accepted.append((question, json.loads(body)["message"]["msg_id"]))
    finally:
        conn.close()
    return accepted


async def _seeded_docs(server: Server) -> int:
    conn = HttpConnection(server.port)
    try:
        status, body = await conn.post(DOCS, {"page": 1, "page_size": 1}, server.read)
    finally:
        conn.close()
    assert status == 200, body
    total: int = json.loads(body)["total"]
    return total


async def test_two_servers_one_conversation(pg_url: str) -> None:
    async with fresh_database() as url:
        async with serve(url, count=2) as servers:
            assert [await _seeded_docs(server) for server in servers] == [42, 42]  # seeded once, not twice
            results = await asyncio.gather(*(_turns(server, name) for server, name in zip(servers, "ab", strict=True)))
        store = SQLMessageStore(url, scope="demo")  # the server keeps the demo robot's turns in its scope
        try:
            stored = await store.recall("shared")
        finally:
            await store.aclose()
    ids = [m.msg_id for m in stored]
    questions = [content_text(m.content) for m in stored if m.role == "user"]
    assert len(stored) == 2 * 2 * TURNS, "a user message and an answer per turn"
    assert not [i for i, n in Counter(ids).items() if n > 1]
    for accepted in results:
        asked = [questions.index(question) for question, _ in accepted]
        answered = [ids.index(answer) for _, answer in accepted]
        assert asked == sorted(asked), "each server's turns stay in its order"
        assert answered == sorted(answered)
    print(f"\ntwo servers: {2 * TURNS} turns over HTTP, {len(stored)} messages checked, 0 lost, 0 duplicated")
