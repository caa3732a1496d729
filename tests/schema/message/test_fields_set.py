"""Messages share their fields sets (issue 18: heap), and behave as with sets of their own."""

from __future__ import annotations

import warnings

import pytest
from pydantic import BaseModel, TypeAdapter

from tfrobot.schema.message import AssistantTextMessage, BaseMessage, Message, TextMessage, ToolCall


def _loaded(msg: BaseMessage) -> BaseMessage:
    return TypeAdapter(Message).validate_json(TypeAdapter(Message).dump_json(msg))


class _Box(BaseModel):
    either: int | AssistantTextMessage


def test_a_message_in_a_union_is_written_without_warnings() -> None:
    box = _Box(either=AssistantTextMessage(content="x", tool_calls=[ToolCall(id="c", name="n")]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _Box.model_validate_json(box.model_dump_json()) == box
        assert _Box.model_validate(box.model_dump()) == box


def _records(*texts: str) -> list[BaseMessage]:
    turn = TextMessage(content="q", msg_id="q", create_ts=1)
    for text in texts:
        turn.intermediate_trace.records.append(AssistantTextMessage(content=text, msg_id=text, create_ts=2))
    return list(_loaded(turn).intermediate_trace.records)  # type: ignore[attr-defined]


def test_records_of_a_trace_that_set_the_same_fields_share_one_fields_set() -> None:
    first, second = _records("a", "b")
    (third,) = _records("c")
    assert first.model_fields_set is second.model_fields_set is third.model_fields_set
    assert first.model_dump(exclude_unset=True) == {
        "role": "assistant",
        "msg_type": "text",
        "content": "a",
        "msg_id": "a",
        "create_ts": 2,
    }
    with pytest.raises(TypeError, match="shared by every message"):
        first.model_fields_set.add("creator")


def test_a_message_outside_a_trace_keeps_a_fields_set_of_its_own() -> None:
    """Sharing costs a Python step per message; it is done where most messages are, a trace's records, once per
    trace (a `model_post_init` per message cost an eighth of a conversation's load)."""
    first, second = (_loaded(TextMessage(content=text, msg_id=text, create_ts=1)) for text in ("a", "b"))
    assert first.model_fields_set == second.model_fields_set
    assert first.model_fields_set is not second.model_fields_set
    first.model_fields_set.add("creator")


def test_assigning_or_copying_gives_a_message_its_own_fields_set() -> None:
    first, second = _records("a", "b")
    assert isinstance(first, AssistantTextMessage)
    assert isinstance(second, AssistantTextMessage)
    assert first.model_fields_set is second.model_fields_set
    first.model = "m"
    assert "model" in first.model_fields_set
    assert "model" not in second.model_fields_set
    copied = second.model_copy(update={"finish_reason": "stop"})
    assert "finish_reason" in copied.model_fields_set
    assert "finish_reason" not in second.model_fields_set
    deep = second.model_copy(deep=True)
    deep.content = "c"
    assert second.content == "b"
    assert "content" in second.model_fields_set
