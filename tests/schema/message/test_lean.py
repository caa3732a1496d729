"""Messages keep only their informative fields in `__dict__` (`lean.py`), and behave as if they held all."""

from __future__ import annotations

import sys
import warnings
from typing import Literal

import pytest
from pydantic import BaseModel, TypeAdapter

from tfrobot.schema.message import (
    AssistantTextMessage,
    BaseMessage,
    Message,
    ReasoningBlock,
    ServerToolBlock,
    TextMessage,
    ToolCall,
    ToolReturn,
    UserAndAssMsg,
)

REPLY = AssistantTextMessage(
    content="done",
    reasoning_content="think",
    reasoning_blocks=[ReasoningBlock(text="think", signature="sig", provider="anthropic")],
    tool_calls=[ToolCall(id="c1", name="search", arguments='{"q": 1}')],
    model="anthropic:claude",
)


def _loaded(msg: BaseMessage) -> BaseMessage:
    return TypeAdapter(Message).validate_json(TypeAdapter(Message).dump_json(msg))


def _reply() -> AssistantTextMessage:
    reply = _loaded(REPLY)
    assert type(reply) is AssistantTextMessage
    return reply


def test_a_loaded_reply_keeps_only_what_it_holds_and_reads_every_field() -> None:
    reply = _reply()
    assert "creator" not in reply.__dict__
    assert "server_tool_blocks" not in reply.__dict__
    assert sys.getsizeof(reply.__dict__) < sys.getsizeof(dict.fromkeys(AssistantTextMessage.model_fields))
    assert reply.__pydantic_extra__ is None
    assert reply.creator is None
    assert reply.usage is None
    assert reply.tfl_scripts is None
    assert reply.server_tool_blocks == []
    assert reply.model_extra in (None, {})
    assert reply == REPLY


def test_an_empty_list_read_is_the_instance_own_and_keeps_its_field_place() -> None:
    reply = _reply()
    reply.server_tool_blocks.append(ServerToolBlock(provider="anthropic", block={"type": "web_search"}))
    assert len(reply.server_tool_blocks) == 1
    assert AssistantTextMessage().server_tool_blocks == []  # the default is not shared
    order = list(AssistantTextMessage.model_fields)
    assert list(reply.__dict__) == [name for name in order if name in reply.__dict__]


def test_mutable_defaults_read_then_changed_are_stored() -> None:
    msg = _loaded(TextMessage(content="hi"))
    assert "additional_kwargs" not in msg.__dict__
    msg.additional_kwargs["mark"] = 1
    again = _loaded(msg)
    assert again.additional_kwargs == {"mark": 1}


def test_a_new_extra_field_set_on_a_lean_message_is_kept() -> None:
    msg = _loaded(TextMessage(content="hi"))
    msg.newer_field = "x"
    assert msg.model_extra == {"newer_field": "x"}
    assert '"newer_field":"x"' in msg.model_dump_json()


def test_an_explicit_default_equals_a_dropped_one() -> None:
    reply = _reply()
    explicit = reply.model_copy()
    explicit.__dict__["creator"] = None  # as an assignment after loading leaves it
    assert explicit == reply
    assert reply == explicit
    explicit.__dict__["model"] = "other"
    assert explicit != reply


class _Box(BaseModel):
    either: int | TextMessage
    pair: UserAndAssMsg
    nested: BaseMessage


def test_unions_holding_lean_messages_write_them_without_warnings() -> None:
    inner = BaseMessage(role="tool", content=[TextMessage(content="nested")])  # messages inside `content`
    box = _Box(either=1, pair=_reply(), nested=_loaded(inner))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        restored = _Box.model_validate_json(box.model_dump_json())
        assert _Box.model_validate(box.model_dump()) == box
    assert restored == box
    assert type(restored.pair) is AssistantTextMessage


def test_a_subclass_redeclaring_a_field_without_default_keeps_it_required() -> None:
    class Note(BaseMessage):  # (no `msg_type`: it registers no tag other tests would meet)
        role: Literal["system"] = "system"
        model: str

    with pytest.raises(ValueError, match="model"):
        Note()  # type: ignore[call-arg]
    assert Note(model="m").model == "m"


def test_nested_models_keep_every_field() -> None:
    result = ToolReturn(call_id="c1", result="{}")
    assert set(result.__dict__) == set(ToolReturn.model_fields)
