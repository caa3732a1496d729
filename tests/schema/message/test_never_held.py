"""Base fields a user or assistant message never holds are no fields of theirs (#18: `never_held.py`)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from tfrobot.schema.message import (
    AssistantRefusalMessage,
    AssistantTextMessage,
    BaseMessage,
    ImageMessage,
    Message,
    TextMessage,
    ToolCall,
    ToolReturn,
    registered_classes,
)
from tfrobot.schema.message.never_held import never_held

MESSAGES: TypeAdapter[list[BaseMessage]] = TypeAdapter(list[Message])
USER_NEVER = {"tool_calls", "tool_reses", "function_call", "function_res", "console_reses", "tfl_scripts"}
ASSISTANT_NEVER = {"tool_reses", "function_res", "console_reses"}


def test_each_kind_never_holds_what_its_role_never_gives() -> None:
    for cls in registered_classes().values():
        expected = {"user": USER_NEVER, "assistant": ASSISTANT_NEVER}[cls.model_fields["role"].default]
        assert never_held(cls) == expected, cls.__name__
        assert not expected & set(cls.model_fields), cls.__name__
    assert never_held(BaseMessage) == frozenset()  # system, tool, console and function messages hold them all


def test_they_read_as_none_and_are_not_written() -> None:
    msg = TextMessage(content="hi", create_ts=1, msg_id="m")
    reply = AssistantTextMessage(content="ok", tool_calls=[ToolCall(id="c", name="n")], create_ts=2, msg_id="a")
    assert (msg.tool_calls, msg.tool_reses, msg.console_reses, msg.tfl_scripts) == (None, None, None, None)
    assert (reply.tool_reses, reply.function_res, reply.console_reses) == (None, None, None)
    assert msg.text() == "hi"
    written = json.loads(MESSAGES.dump_json([msg, reply]))
    assert not USER_NEVER & set(written[0])
    assert not ASSISTANT_NEVER & set(written[1])
    assert written[1]["tool_calls"] == [ToolCall(id="c", name="n").model_dump(mode="json")]


def test_the_json_schema_does_not_offer_them() -> None:
    defs = MESSAGES.json_schema()["$defs"]
    assert not USER_NEVER & set(defs["TextMessage"]["properties"])
    assert not ASSISTANT_NEVER & set(defs["AssistantTextMessageFallback"]["properties"])
    assert set(defs["BaseMessageFallback"]["properties"]) >= USER_NEVER


def _record(**extra: Any) -> dict[str, Any]:
    return {"role": "user", "msg_type": "text", "content": "hi", "create_ts": 1, "msg_id": "m", **extra}


@pytest.mark.parametrize("load", ["list", "class", "base class"])
def test_a_record_written_before_loads_without_their_nulls(load: str) -> None:
    """Records written before v3 hold every field, nulls included: they load equal to the message written now,
    through a union (its fast path refuses them, its exact path drops them), the class and the base class."""
    old = _record(**dict.fromkeys(USER_NEVER), additional_kwargs={}, creator=None)
    text = json.dumps(old)
    if load == "list":
        (msg,) = MESSAGES.validate_json(f"[{text}]")
    elif load == "class":
        msg = TextMessage.model_validate_json(text)
    else:
        msg = BaseMessage.model_validate_json(text)
    assert type(msg) is TextMessage
    assert msg.model_extra == {}
    assert msg == TextMessage(content="hi", create_ts=1, msg_id="m")
    assert not USER_NEVER & msg.model_fields_set


def test_a_record_with_a_value_there_keeps_it_as_an_extra_field() -> None:
    """A stored record loses nothing: a value (not a null) for a field the class never holds stays in the
    record, as an extra field, and is written back."""
    calls = [{"id": "c", "name": "n", "arguments": "{}"}]
    (msg,) = MESSAGES.validate_json(json.dumps([_record(tool_calls=calls, tfl_scripts=None)]))
    assert type(msg) is TextMessage
    assert msg.model_extra == {"tool_calls": calls}
    assert msg.tool_calls is None  # what a TextMessage holds; the record's value is its extra field
    assert json.loads(MESSAGES.dump_json([msg]))[0]["tool_calls"] == calls


def test_records_in_a_trace_written_before_load_without_their_nulls() -> None:
    inner = {
        "role": "assistant",
        "msg_type": "text",
        "content": "x",
        "create_ts": 2,
        "msg_id": "a",
        **dict.fromkeys(ASSISTANT_NEVER),
    }
    (msg,) = MESSAGES.validate_json(json.dumps([_record(intermediate_trace={"records": [inner]})]))
    (record,) = msg.intermediate_trace.records  # type: ignore[attr-defined]
    assert type(record) is AssistantTextMessage
    assert record.model_extra == {}


def test_python_input_with_a_value_there_is_refused_naming_the_fix() -> None:
    with pytest.raises(ValidationError, match=r"TextMessage never holds `tool_calls`.*Fix: put it on the message"):
        TextMessage(content="hi", tool_calls=[ToolCall(id="c", name="n")])  # type: ignore[call-arg]
    with pytest.raises(ValidationError, match=r"AssistantRefusalMessage never holds `tool_reses`"):
        AssistantRefusalMessage.model_validate({"refusal": "no", "tool_reses": [ToolReturn(call_id="c")]})
    quiet = ImageMessage.model_validate(
        {"content": {"type": "image", "url": "https://example.com/a.png"}, "tool_calls": None}
    )
    assert quiet.model_extra == {}
    assert "tool_calls" not in quiet.model_fields_set


def test_assigning_or_copying_one_in_is_refused() -> None:
    msg = TextMessage(content="hi", create_ts=1, msg_id="m")
    with pytest.raises(AttributeError, match=r"TextMessage never holds `tool_calls`.*Fix: set it on the message"):
        msg.tool_calls = []  # type: ignore[misc]
    with pytest.raises(AttributeError, match="never holds `console_reses`"):
        msg.model_copy(update={"console_reses": ["1"]})
    assert msg.model_copy(update={"tool_calls": None}).model_extra == {}


@pytest.mark.parametrize(
    "record",
    [
        {"role": "user", "content": "http://example.com/", "tool_calls": "url", "msg_id": "r"},
        {"role": "user", "msg_type": "text", "content": "http://example.com/", "tool_calls": "url", "msg_id": "r"},
        {"role": "assistant", "content": "x", "tool_reses": "refusal", "msg_id": "r"},
    ],
    ids=["legacy user", "user with msg_type", "legacy assistant"],
)
@pytest.mark.parametrize("load", ["Message", "list[Message]", "BaseMessage.model_validate_json"])
def test_a_value_there_that_names_a_kind_is_not_the_kind(record: dict[str, Any], load: str) -> None:
    """Review R21: the JSON fast path reads those keys before `msg_type`, so a record whose never-held key holds a
    `msg_type` string (`"tool_calls": "url"`) loaded as the class it names (a `UrlMessage`): it loads as the
    record's own kind, as without the key, and keeps the value as an extra field."""
    name = next(key for key in record if key in USER_NEVER | ASSISTANT_NEVER)
    without = {key: value for key, value in record.items() if key != name}

    def loaded(data: dict[str, Any]) -> BaseMessage:
        text = json.dumps(data)
        if load == "Message":
            return TypeAdapter(Message).validate_json(text)  # type: ignore[no-any-return]
        if load == "list[Message]":
            return MESSAGES.validate_json(f"[{text}]")[0]
        return BaseMessage.model_validate_json(text)

    msg = loaded(record)
    assert type(msg) is type(loaded(without))
    assert msg.model_extra == {name: record[name]}


def test_a_dump_of_a_message_with_a_kept_value_validates_back() -> None:
    """Review R22: `model_validate(msg.model_dump())` of a message loaded from a record that kept such a value
    was refused; plain data is the record's and stays an extra field, a typed value is still refused."""
    calls = [{"id": "c", "name": "n", "arguments": "{}"}]
    (msg,) = MESSAGES.validate_json(json.dumps([_record(tool_calls=calls)]))
    again = TextMessage.model_validate(msg.model_dump())
    assert again == msg
    assert again.model_extra == {"tool_calls": calls}
    with pytest.raises(ValidationError, match="never holds `tool_calls`"):
        TextMessage.model_validate({**msg.model_dump(), "tool_calls": [ToolCall(id="c", name="n")]})
