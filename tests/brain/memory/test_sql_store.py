"""`SQLMessageStore` on SQLite and PostgreSQL: typed round trips, ordering, idempotency, turns, paging."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import sqlalchemy as sa
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from tests.brain.memory.conftest import reply, trace_turn
from tests.schema.message.conftest import every_message
from tfrobot.brain.memory import MemoryStoreError, SQLMessageStore, estimate_tokens
from tfrobot.schema.message import (
    AssistantTextMessage,
    BaseMessage,
    HistoryMessage,
    Message,
    TextMessage,
    ToolReturn,
    TurnFailure,
    UserMessage,
)


async def count_rows(store: SQLMessageStore, table: str) -> int:
    async with store._engine.connect() as conn:
        return int((await conn.execute(sa.text(f"SELECT count(*) FROM {table}"))).scalar_one())


async def test_tfrob_299_trace_survives_a_new_store(store: SQLMessageStore, store_url: str) -> None:
    turn, answer = trace_turn("c1"), reply("c1")
    await store.sync_msg(turn)
    await store.sync_msg(answer)

    fresh = SQLMessageStore(store_url)
    try:
        recalled = await fresh.recall("c1")
    finally:
        await fresh.aclose()

    assert [type(m) for m in recalled] == [TextMessage, AssistantTextMessage]
    assert recalled == [turn, answer]
    records = recalled[0].intermediate_trace.records  # type: ignore[attr-defined]
    assert [type(r) for r in records] == [AssistantTextMessage, BaseMessage, BaseMessage]
    assert [r.role for r in records] == ["assistant", "tool", "console"]
    assert records == turn.intermediate_trace.records
    assert records[0].to_llm_request().tool_calls[0].name == "weather"  # the TFROB-299 crash site


async def test_every_message_kind_comes_back_as_its_class(store: SQLMessageStore) -> None:
    originals = every_message()
    for index, msg in enumerate(originals):
        msg.conversation_id = "kinds"
        msg.create_ts = 1_000 + index
    await store.sync_msgs(originals)

    recalled = await store.recall("kinds")

    assert [type(m) for m in recalled] == [type(m) for m in originals]
    assert recalled == originals


async def test_order_is_create_ts_then_insertion_and_stable_on_ties(store: SQLMessageStore) -> None:
    late = TextMessage(content="late", conversation_id="c", create_ts=3_000)
    tie_a = TextMessage(content="tie a", conversation_id="c", create_ts=2_000)
    tie_b = AssistantTextMessage(content="tie b", conversation_id="c", create_ts=2_000)
    tie_c = TextMessage(content="tie c", conversation_id="c", create_ts=2_000)
    early = AssistantTextMessage(content="early", conversation_id="c", create_ts=1_000)
    await store.sync_msgs([late, tie_a])
    await store.sync_msg(tie_b)
    await store.sync_msgs([tie_c, early])
    await store.sync_msg(tie_a)  # re-syncing keeps its place

    expected = ["early", "tie a", "tie b", "tie c", "late"]
    assert [m.content for m in await store.recall("c")] == expected
    assert [m.content for m in await store.recall("c")] == expected


async def test_same_message_twice_is_one_row(store: SQLMessageStore) -> None:
    turn = trace_turn("c")
    await store.sync_msg(turn)
    await store.sync_msg(turn)
    await store.sync_msgs([turn, turn])

    assert await count_rows(store, "messages") == 1
    assert await store.recall("c") == [turn]


async def test_sync_after_trace_append_updates_the_row(store: SQLMessageStore) -> None:
    turn = TextMessage(content="plan a trip", conversation_id="c")
    await store.sync_msg(turn)
    turn.intermediate_trace.append(AssistantTextMessage(content="thinking", reasoning_content="step 1"))
    await store.sync_msg(turn)

    (recalled,) = await store.recall("c")
    assert await count_rows(store, "messages") == 1
    assert recalled == turn
    assert [type(r) for r in recalled.intermediate_trace.records] == [AssistantTextMessage]  # type: ignore[attr-defined]


async def test_message_without_conversation_is_refused(store: SQLMessageStore) -> None:
    msg = TextMessage(content="orphan")
    with pytest.raises(ValueError, match=f"{msg.msg_id}.*set msg.conversation_id"):
        await store.sync_msg(msg)
    assert await count_rows(store, "messages") == 0


async def test_a_failing_batch_keeps_nothing_of_itself(store: SQLMessageStore) -> None:
    first = TextMessage(content="kept", conversation_id="c")
    await store.sync_msg(first)
    with pytest.raises(ValueError, match="conversation_id"):
        await store.sync_msgs([TextMessage(content="new", conversation_id="c"), TextMessage(content="orphan")])
    assert await store.recall("c") == [first]


class _Handle:
    """Something a tool source keeps on its result and JSON cannot hold (an SDK response object)."""


class _ReturnWithHandle(ToolReturn):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    raw: _Handle | None = None


class _ReturnWithoutHandle(ToolReturn):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    raw: _Handle | None = Field(default=None, exclude=True)


async def test_a_result_field_json_cannot_hold_is_refused_naming_the_message_and_the_fix(
    store: SQLMessageStore,
) -> None:
    """A tool source's `ToolReturn` subclass is stored whole (#18, review R19): a field of it that JSON cannot hold
    is refused at `sync_msg` with the message, the type and the fix, and nothing of the batch is kept; the same
    field marked `Field(exclude=True)` stays out of the record, which stores."""
    turn = TextMessage(content="q", conversation_id="c")
    turn.intermediate_trace.append(
        BaseMessage(role="tool", tool_reses=[_ReturnWithHandle(call_id="c1", raw=_Handle())])
    )
    with pytest.raises(ValueError, match=rf"{turn.msg_id} \(user.*_Handle.*Fix: .*Field\(exclude=True\)"):
        await store.sync_msg(turn)
    assert await count_rows(store, "messages") == 0
    kept = TextMessage(content="q", conversation_id="c")
    kept.intermediate_trace.append(
        BaseMessage(role="tool", tool_reses=[_ReturnWithoutHandle(call_id="c1", raw=_Handle())])
    )
    await store.sync_msg(kept)
    (restored,) = await store.recall("c")
    (record,) = restored.intermediate_trace.records
    assert record.tool_reses == [ToolReturn(call_id="c1")]


async def test_a_non_message_in_a_trace_is_refused_naming_where_and_the_fix(store: SQLMessageStore) -> None:
    """Message unions write a value that is no message as it is (#18): its record would not load, so `sync_msg`
    refuses it, naming the message, the path and the fix, and keeps nothing of the batch."""
    good = TextMessage(content="first", conversation_id="c")
    turn = TextMessage(content="q", conversation_id="c")
    turn.intermediate_trace.records.append({"role": "tool"})  # type: ignore[arg-type]  # no validation on append
    with pytest.raises(
        ValueError, match=rf"{turn.msg_id} \(user.*a dict .* at intermediate_trace\.records\[0\].*Fix: add messages"
    ):
        await store.sync_msgs([good, turn])
    assert await count_rows(store, "messages") == 0


_PRE_V3_USER_WITH_CALLS = (
    '{"role":"user","content":"legacy","tool_calls":[{"id":"cx","name":"weather","arguments":"{}","type":"function"}],'
    '"create_ts":1000,"msg_id":"u1","conversation_id":"legacy","msg_type":"text"}'
)
"""What an older version stored for `TextMessage(content=..., tool_calls=[...])`: a value for a field a user
message never holds, kept as an extra field when it loads (`never_held.py`)."""


class _Holder(BaseModel):
    msgs: list[BaseMessage]
    users: dict[str, UserMessage] = {}


async def test_a_recalled_message_with_a_kept_extra_goes_in_any_container(store: SQLMessageStore) -> None:
    """Review R22: Python input refused such a value on the instance itself, so a message recalled from such a
    record could go in no message container; only the input a message is built from is refused now."""
    await store.sync_msgs([TextMessage.model_validate_json(_PRE_V3_USER_WITH_CALLS)])
    (got,) = await store.recall("legacy")
    assert type(got) is TextMessage
    assert got.model_extra is not None
    assert got.model_extra["tool_calls"][0]["id"] == "cx"
    assert HistoryMessage(content=[got]).content == [got]
    assert TypeAdapter(list[Message]).validate_python([got]) == [got]
    assert _Holder(msgs=[got], users={"k": got}).users["k"] is got


def _assigned_content() -> TextMessage:
    msg = TextMessage(content="x", conversation_id="c")
    msg.content = {"role": "user"}  # type: ignore[assignment]  # assignment is not validated
    return msg


def _trace_record_content() -> TextMessage:
    msg = TextMessage(content="x", conversation_id="c")
    msg.intermediate_trace.append(AssistantTextMessage(content="y"))
    msg.intermediate_trace.records[0].content = 5  # type: ignore[assignment]
    return msg


def _constructed_as_another_kind() -> TextMessage:
    return TextMessage.model_construct(content="x", role="user", msg_type="image", conversation_id="c")


@pytest.mark.filterwarnings("ignore::UserWarning")  # (pydantic's warning for the wrong `content` when it is written)
@pytest.mark.parametrize(
    ("build", "refusal"),
    [
        (_assigned_content, r"does not load \(\d+ error\(s\), first at [\w.]*content: Input should be a valid string"),
        (_trace_record_content, r"does not load .*intermediate_trace\.records\.0.*content"),
        (_constructed_as_another_kind, r"is a TextMessage whose record loads as a ImageMessage|does not load"),
    ],
    ids=["assigned content", "trace record content", "model_construct as another kind"],
)
async def test_a_record_that_would_not_load_is_refused(store: SQLMessageStore, build: Any, refusal: str) -> None:
    """Review R22: such a record was stored, and every later read of its conversation failed."""
    good = TextMessage(content="first", conversation_id="c")
    with pytest.raises(ValueError, match=rf"sync_msg: message \w+ \(user, conversation 'c'\) .*(?:{refusal}).*Fix: "):
        await store.sync_msgs([good, build()])
    assert await count_rows(store, "messages") == 0


async def conversation_of_turns(store: SQLMessageStore, turns: int, replies: int = 1) -> list[BaseMessage]:
    msgs: list[BaseMessage] = [BaseMessage(role="system", content="be brief", conversation_id="t", create_ts=10)]
    for n in range(turns):
        ts = 100 * (n + 1)
        msgs.append(trace_turn("t", f"question {n}", create_ts=ts))
        msgs.extend(reply("t", f"answer {n}.{r}", create_ts=ts + 1 + r) for r in range(replies))
    await store.sync_msgs(msgs)
    return msgs


async def test_last_turns_cuts_at_user_messages(store: SQLMessageStore) -> None:
    msgs = await conversation_of_turns(store, turns=5, replies=2)

    assert await store.recall("t", last_turns=2) == msgs[-6:]
    assert await store.recall("t", last_turns=1) == msgs[-3:]
    assert await store.recall("t", last_turns=0) == []
    assert await store.recall("t", last_turns=5) == msgs[1:]
    assert await store.recall("t", last_turns=6) == msgs  # the leading system message counts as a turn
    assert await store.recall("t", last_turns=50) == msgs
    assert await store.recall("t") == msgs
    assert await store.recall("nobody", last_turns=3) == []


async def test_last_turns_across_many_chunks(store: SQLMessageStore) -> None:
    msgs = await conversation_of_turns(store, turns=150, replies=1)  # 301 rows: more than one walk chunk

    assert await store.recall("t", last_turns=140) == msgs[-280:]
    assert await store.recall("t", last_turns=150) == msgs[1:]
    assert await store.recall("t", last_turns=151) == msgs


async def test_token_budget_keeps_whole_newest_turns_that_fit(store: SQLMessageStore) -> None:
    msgs = await conversation_of_turns(store, turns=4, replies=1)
    cost = [estimate_tokens(m.model_dump_json()) for m in msgs]
    two_turns = sum(cost[-4:])

    assert await store.recall("t", token_budget=two_turns) == msgs[-4:]
    assert await store.recall("t", token_budget=two_turns + cost[-5] - 1) == msgs[-4:]  # a turn is never split
    assert await store.recall("t", token_budget=cost[-1]) == []  # the budget is a hard cap
    assert await store.recall("t", token_budget=sum(cost)) == msgs
    assert await store.recall("t", token_budget=sum(cost) - 1) == msgs[1:]
    assert await store.recall("t", token_budget=10**9, last_turns=1) == msgs[-2:]


@pytest.mark.parametrize("bad", [{"last_turns": -1}, {"token_budget": -5}])
async def test_negative_limits_are_refused(store: SQLMessageStore, bad: dict[str, int]) -> None:
    ((name, value),) = bad.items()
    with pytest.raises(ValueError, match=f"{name}={value}"):
        await store.recall("t", **bad)


async def test_get_messages_pages_in_order(store: SQLMessageStore) -> None:
    msgs = await conversation_of_turns(store, turns=3, replies=1)
    seen: list[BaseMessage] = []
    cursor = None
    pages = 0
    while True:
        page = await store.get_messages("t", cursor=cursor, limit=3)
        seen += page.items
        pages += 1
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert seen == msgs
    assert pages == 3
    with pytest.raises(ValueError, match="next_cursor"):
        await store.get_messages("t", cursor="garbage")


async def test_list_conversations_newest_first_with_titles(store: SQLMessageStore) -> None:
    for n in range(5):
        await store.sync_msg(reply(f"c{n}"))
        await store.sync_msg(TextMessage(content=f"  hello   number {n} " + "x" * 200, conversation_id=f"c{n}"))
    await asyncio.sleep(0.005)  # updated_ts has millisecond resolution
    await store.sync_msg(reply("c1"))  # c1 becomes the most recent

    first = await store.list_conversations(limit=2)
    second = await store.list_conversations(cursor=first.next_cursor, limit=2)
    third = await store.list_conversations(cursor=second.next_cursor, limit=2)

    ids = [c.conversation_id for page in (first, second, third) for c in page.items]
    assert ids[0] == "c1"
    assert sorted(ids) == ["c0", "c1", "c2", "c3", "c4"]
    assert third.next_cursor is None
    titles = {c.conversation_id: c.title for page in (first, second, third) for c in page.items}
    assert titles["c3"] is not None
    assert titles["c3"].startswith("hello number 3 x")
    assert len(titles["c3"]) == 80


async def test_list_conversations_counts_failed_turns(store: SQLMessageStore) -> None:
    """The trace explorer marks a conversation holding a failed turn: the listing counts them (issue 15)."""
    await conversation_of_turns(store, turns=2)
    broken = TextMessage(content="weather?", conversation_id="bad")
    broken.intermediate_trace.failure = TurnFailure(kind="auth", message="the provider refused the API key")
    await store.sync_msg(broken)
    await store.sync_msg(TextMessage(content="again", conversation_id="bad"))

    counts = {c.conversation_id: c.failed_turns for c in (await store.list_conversations()).items}

    assert counts == {"t": 0, "bad": 1}


async def test_delete_conversation(store: SQLMessageStore) -> None:
    msgs = await conversation_of_turns(store, turns=2)
    await store.sync_msg(trace_turn("other"))

    assert await store.delete_conversation("t") == len(msgs)
    assert await store.recall("t") == []
    assert [c.conversation_id for c in (await store.list_conversations()).items] == ["other"]
    assert len(await store.recall("other")) == 1
    assert await store.delete_conversation("t") == 0


async def test_a_corrupt_row_names_message_conversation_and_fix(store: SQLMessageStore) -> None:
    turn = trace_turn("c")
    await store.sync_msg(turn)
    async with store._engine.begin() as conn:
        await conn.execute(
            sa.text("UPDATE messages SET payload = :bad WHERE msg_id = :id"),
            {"bad": '{"role": "user", "msg_type": "text", "content": {"no": "text"}}', "id": turn.msg_id},
        )
    with pytest.raises(MemoryStoreError, match=rf"(?s)stored message {turn.msg_id} of conversation 'c'.*Fix:"):
        await store.recall("c")


async def test_nul_characters(store: SQLMessageStore) -> None:
    """SQLite keeps them; PostgreSQL cannot store them, which is refused up front, naming the message."""
    msg = TextMessage(content="binary\x00junk", conversation_id="c")
    if store.dialect == "sqlite":
        await store.sync_msg(msg)
        assert await store.recall("c") == [msg]
        return
    with pytest.raises(ValueError, match=rf"message {msg.msg_id} \(user, conversation 'c'\) contains a NUL"):
        await store.sync_msg(msg)
    assert await count_rows(store, "conversations") == 0
    literal = TextMessage(content=r"the escape \u0000 as text", conversation_id="c")
    await store.sync_msg(literal)
    assert await store.recall("c") == [literal]
