"""`SaverLoader` through the SQL store (the `DocumentStore` protocol), on both dialects."""

from __future__ import annotations

import pytest

from tests.brain.memory.conftest import trace_turn
from tests.schema.test_saver_loader import RobotConfig
from tfrobot.brain.memory import SQLMessageStore
from tfrobot.schema.message import AssistantTextMessage, BaseMessage, Message, TextMessage
from tfrobot.schema.saver_loader import SaverLoader


async def test_message_round_trip_through_the_store(store: SQLMessageStore, store_url: str) -> None:
    turn = trace_turn("c")
    saver = SaverLoader(Message, kind="message")
    await saver.asave(turn, store, turn.msg_id)

    fresh = SQLMessageStore(store_url)
    try:
        restored = await saver.aload(fresh, turn.msg_id)
    finally:
        await fresh.aclose()
    assert type(restored) is TextMessage
    assert restored == turn
    assert [type(r) for r in restored.intermediate_trace.records] == [AssistantTextMessage, BaseMessage, BaseMessage]


async def test_configuration_is_replaced_not_duplicated(store: SQLMessageStore) -> None:
    saver = SaverLoader(RobotConfig)
    await saver.asave(RobotConfig(name="v1"), store, "helper")
    await saver.asave(RobotConfig(name="v2", greeting=[AssistantTextMessage(content="hi")]), store, "helper")

    restored = await saver.aload(store, "helper")
    assert restored.name == "v2"
    assert type(restored.greeting[0]) is AssistantTextMessage
    with pytest.raises(KeyError, match=r"no 'RobotConfig' document with key 'nobody'"):
        await saver.aload(store, "nobody")
