"""What a message container or a result list does with a value that does not belong in it (#18, review R19).

Results are written by their own class's serializer (`written_by_own_class`), after a C-speed `isinstance`: a
value of another type is reported as pydantic reports a wrong value — a warning, or an error under
`warnings="error"` (the server's action results) — and written by inference. Message unions are written by
inference alone, as pydantic's `SerializeAsAny` writes (the check cost a tenth of a conversation's dump): a value
that is no message is written as it is, and the store refuses the record that holds one (`non_messages`), since
it would not load. A message's kind cannot be assigned another value (its record would load as another class).
"""

from __future__ import annotations

import json
import warnings

import pytest
from pydantic import BaseModel, TypeAdapter
from pydantic_core import PydanticSerializationError

from tfrobot.schema.message import (
    BaseMessage,
    BaseUser,
    ConsoleResult,
    HistoryMessage,
    TextMessage,
    TextUserMsgPart,
    ToolReturn,
    non_messages,
)

UNEXPECTED = "serialized value may not be as expected"


class _Box(BaseModel):
    messages: list[BaseMessage]


def _not_messages() -> list[object]:
    return [BaseUser(uid="u"), TextUserMsgPart(text="t"), ToolReturn(call_id="c"), {"role": "user"}, 1, "s"]


@pytest.mark.parametrize("value", _not_messages(), ids=lambda v: type(v).__name__)
def test_a_non_message_in_a_message_list_is_written_as_it_is(value: object) -> None:
    holder = TypeAdapter(list[BaseMessage])
    expected = value.model_dump(mode="json") if isinstance(value, BaseModel) else value
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert json.loads(holder.dump_json([value])) == [expected]
        assert holder.dump_python([value], mode="json") == [expected]


def test_a_non_message_in_a_trace_is_found_with_its_path() -> None:
    msg = TextMessage(content="hi", create_ts=1, msg_id="m")
    msg.intermediate_trace.append(TextMessage(content="ok", create_ts=1, msg_id="r"))
    msg.intermediate_trace.records.append(BaseUser(uid="u"))  # type: ignore[arg-type]  # no validation on append
    assert [(where, type(value)) for where, value in non_messages(msg)] == [("intermediate_trace.records[1]", BaseUser)]
    written = json.loads(msg.model_dump_json(warnings="error"))
    assert written["intermediate_trace"]["records"][1] == BaseUser(uid="u").model_dump(mode="json")


def test_a_non_message_in_a_history_is_found_with_its_path() -> None:
    inner = TextMessage(content="old", create_ts=1, msg_id="o")
    inner.intermediate_trace.records.append({"role": "user"})  # type: ignore[arg-type]
    history = HistoryMessage(content=[inner], create_ts=1, msg_id="h")
    assert [where for where, _ in non_messages(history)] == ["content[0].intermediate_trace.records[0]"]
    history.content = [TextUserMsgPart(text="t")]  # type: ignore[list-item]  # no validate_assignment
    assert [where for where, _ in non_messages(history)] == ["content[0]"]


def test_messages_only_hold_no_non_messages() -> None:
    msg = TextMessage(content="hi", create_ts=1, msg_id="m")
    msg.intermediate_trace.append(BaseMessage(role="tool", tool_reses=[ToolReturn(call_id="c")]))
    assert list(non_messages(msg)) == []


def test_model_construct_with_a_non_message_writes_it_as_it_is() -> None:
    box = _Box.model_construct(messages=[TextMessage(content="a", create_ts=1, msg_id="m"), {"role": "user"}])
    assert json.loads(box.model_dump_json(warnings="error"))["messages"][1] == {"role": "user"}


def test_a_message_kind_cannot_be_assigned_another_value() -> None:
    """A `TextMessage` whose `msg_type` was set to "image" would be stored as a record that loads as an
    `ImageMessage`: the union warned when it was written (its strict check of `Literal['text']`); now the
    assignment itself is refused, naming the fix. The same value, and a role the class allows, are fine."""
    msg = TextMessage(content="a", create_ts=1, msg_id="m")
    with pytest.raises(TypeError, match=r"TextMessage\.msg_type is 'text' for every TextMessage.*Fix: build a message"):
        msg.msg_type = "image"  # type: ignore[assignment]
    with pytest.raises(TypeError, match=r"TextMessage\.role is 'user'"):
        msg.role = "assistant"
    msg.msg_type = "text"
    fallback = BaseMessage(role="tool", create_ts=1, msg_id="t")
    fallback.role = "system"  # the fallback class holds every role it has no class for
    assert fallback.role == "system"


@pytest.mark.parametrize("mode", ["python", "json"])
def test_a_non_result_in_tool_reses_warns(mode: str) -> None:
    msg = BaseMessage(role="tool", tool_reses=[ToolReturn(call_id="c")], create_ts=1, msg_id="t")
    msg.tool_reses = [BaseUser(uid="u")]  # type: ignore[list-item]
    with pytest.warns(UserWarning, match=UNEXPECTED):
        msg.model_dump(mode=mode)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(PydanticSerializationError):
            msg.model_dump_json(warnings="error")


def test_a_non_result_in_console_reses_warns() -> None:
    msg = BaseMessage(role="console", console_reses=[ConsoleResult(result="1")], create_ts=1, msg_id="c")
    msg.console_reses = [ToolReturn(call_id="c")]  # type: ignore[list-item]  # the other kind of result
    with pytest.warns(UserWarning, match=UNEXPECTED):
        msg.model_dump_json()


class _ReturnWithBlob(ToolReturn):
    blob: bytes = b""


def test_a_result_subclass_with_binary_bytes_is_stored_as_base64() -> None:
    """Results write bytes as base64, as messages do (review R19: a subclass's binary `bytes` field was refused as
    invalid UTF-8 once subclasses were written whole); it loads back as the base64 text, an extra field."""
    tool = BaseMessage(role="tool", tool_reses=[_ReturnWithBlob(call_id="c1", blob=b"\x89PNG\xff")], create_ts=1)
    stored = json.loads(tool.model_dump_json())
    assert stored["tool_reses"] == [{"call_id": "c1", "result": "", "blob": "iVBOR_8="}]  # (base64url, as messages)
    restored = TypeAdapter(BaseMessage).validate_json(tool.model_dump_json())
    assert restored.tool_reses is not None
    assert restored.tool_reses[0].model_extra == {"blob": "iVBOR_8="}  # type: ignore[union-attr]
