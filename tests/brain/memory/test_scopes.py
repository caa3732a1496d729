"""Scopes on one database (SQLite file and PostgreSQL): each store sees, continues and deletes its own
conversations only, and a write aimed at another scope's rows changes nothing of them."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import sqlalchemy as sa

from tests.brain.memory.conftest import reply, trace_turn
from tfrobot.brain.memory import DEFAULT_SCOPE, ConversationNotFound, SQLMessageStore
from tfrobot.schema.message import TextMessage


@pytest.fixture
async def robot_a(store_url: str) -> AsyncIterator[SQLMessageStore]:
    store = SQLMessageStore(store_url, scope="robot-a")
    yield store
    await store.aclose()


async def test_two_scopes_see_only_their_own(robot_a: SQLMessageStore) -> None:
    robot_b = robot_a.scoped("robot-b")
    await robot_a.sync_msgs([trace_turn("a1"), reply("a1")])
    await robot_b.sync_msgs([trace_turn("b1", "hello b"), reply("b1")])

    assert [c.conversation_id for c in (await robot_a.list_conversations()).items] == ["a1"]
    assert [c.conversation_id for c in (await robot_b.list_conversations()).items] == ["b1"]
    assert [type(m) for m in await robot_b.recall("b1")] == [TextMessage, type(reply("x"))]

    for read in (robot_b.recall("a1"), robot_b.recall("a1", last_turns=2), robot_b.get_messages("a1")):
        with pytest.raises(ConversationNotFound, match="no conversation 'a1' in scope 'robot-b'"):
            await read
    with pytest.raises(ConversationNotFound):
        await robot_b.get_messages("never-was")
    assert await robot_b.recall("never-was") == []  # a new conversation may still take that id
    assert await robot_b.delete_conversation("a1") == 0
    assert len(await robot_a.recall("a1")) == 2


async def test_a_write_into_another_scopes_conversation_is_refused_and_changes_nothing(
    robot_a: SQLMessageStore,
) -> None:
    robot_b = robot_a.scoped("robot-b")
    original, answer = trace_turn("a1"), reply("a1")
    await robot_a.sync_msgs([original, answer])
    before = await robot_a.list_conversations()

    with pytest.raises(ConversationNotFound, match="conversation id 'a1' is taken by another scope"):
        await robot_b.sync_msg(TextMessage(content="let me in", conversation_id="a1"))
    hijack = TextMessage(content="overwritten", conversation_id="b1", msg_id=original.msg_id)
    with pytest.raises(ValueError, match=f"message id '{original.msg_id}' is taken by another scope"):
        await robot_b.sync_msg(hijack)

    recalled = await robot_a.recall("a1")
    assert recalled == [original, answer]
    assert [type(m) for m in recalled] == [TextMessage, type(answer)]
    assert (await robot_a.list_conversations()).items == before.items
    assert (await robot_b.list_conversations()).items == []  # the refused write left nothing behind


async def test_a_scoped_view_shares_the_engine_and_leaves_it_open(robot_a: SQLMessageStore) -> None:
    view = robot_a.scoped("robot-b")
    assert view._engine is robot_a._engine
    assert repr(view).endswith("scope='robot-b')")
    await view.aclose()
    await robot_a.sync_msg(trace_turn("still-open"))
    assert len(await robot_a.recall("still-open")) == 1


async def test_the_default_scope_is_a_scope_like_any_other(store_url: str, robot_a: SQLMessageStore) -> None:
    plain = SQLMessageStore(store_url)
    try:
        assert plain.scope == DEFAULT_SCOPE
        await plain.sync_msg(trace_turn("p1"))
        assert [c.conversation_id for c in (await plain.list_conversations()).items] == ["p1"]
        assert (await robot_a.list_conversations()).items == []
    finally:
        await plain.aclose()


@pytest.mark.parametrize(
    "cursor",
    ["99999999999999999999:x", "-99999999999999999999:x", "1:99999999999999999999", "１:2", "1:-3"],
)
async def test_cursors_outside_bigint_are_refused_before_the_database(robot_a: SQLMessageStore, cursor: str) -> None:
    """Regression: a cursor past int64 reached the database and failed there (a 500 through the server)."""
    await robot_a.sync_msgs([trace_turn("c"), reply("c")])
    with pytest.raises(ValueError, match="invalid page cursor"):
        await robot_a.get_messages("c", cursor)
    if cursor.endswith(":x"):
        with pytest.raises(ValueError, match="invalid page cursor"):
            await robot_a.list_conversations(cursor)


async def test_ids_longer_than_their_columns_are_refused(robot_a: SQLMessageStore) -> None:
    with pytest.raises(ValueError, match=r"conversation_id 'x+'… is 256 characters long"):
        await robot_a.sync_msg(TextMessage(content="hi", conversation_id="x" * 256))
    with pytest.raises(ValueError, match="scope"):
        SQLMessageStore(robot_a.url, scope="s" * 256)
    async with robot_a._engine.connect() as conn:
        assert (await conn.execute(sa.text("SELECT count(*) FROM conversations"))).scalar_one() == 0
