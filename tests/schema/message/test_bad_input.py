"""Bad input gets a ValidationError that names the field path and says what is accepted."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

from tfrobot.schema.message import ImageUserMsgPart, Message, TextMessage, ToolReturn

MESSAGES = TypeAdapter(list[Message])


def _errors(data: Any) -> list[dict[str, Any]]:
    with pytest.raises(ValidationError) as info:
        MESSAGES.validate_json(data) if isinstance(data, str) else MESSAGES.validate_python(data)
    return [dict(e) for e in info.value.errors()]


def test_malformed_json() -> None:
    errors = _errors('[{"role": "user", "content": "x"')
    assert errors[0]["type"] == "json_invalid"


def test_unknown_role_names_the_path_and_the_accepted_roles() -> None:
    errors = _errors([{"role": "user", "content": "ok"}, {"role": "robot", "content": "x"}])
    assert errors[0]["loc"] == (1, "default", "role")  # item 1, validated by the fallback branch
    assert "'system', 'user', 'assistant', 'function', 'tool' or 'console'" in errors[0]["msg"]


def test_part_without_a_source() -> None:
    errors = _errors([{"role": "user", "msg_type": "multipart", "content": [{"type": "image", "detail": "x"}]}])
    assert errors[0]["loc"][:3] == (0, "user:multipart", "content")
    assert "needs exactly one source: `url`, `path` or `data`" in errors[0]["msg"]
    with pytest.raises(ValidationError, match="needs `media_type`"):
        ImageUserMsgPart(data=b"x")


def test_tool_return_without_call_id() -> None:
    errors = _errors([{"role": "tool", "tool_reses": [{"result": "r"}]}])
    assert any(e["loc"][-1] == "call_id" and e["type"] == "missing" for e in errors)
    with pytest.raises(ValidationError, match="call_id"):
        ToolReturn(call_id="", result="r")


def test_wrong_content_type_for_a_known_class() -> None:
    errors = _errors([{"role": "user", "msg_type": "text", "content": {"not": "text"}}])
    assert errors[0]["loc"] == (0, "user:text", "content")
    assert errors[0]["type"] == "string_type"


def test_bad_input_in_a_nested_trace_names_the_whole_path() -> None:
    record = {"role": "user", "msg_type": "text", "content": "x"}
    record["intermediate_trace"] = {"records": [{"role": "assistant", "msg_type": "text", "tool_calls": [{"id": 1}]}]}
    with pytest.raises(ValidationError) as info:
        TextMessage.model_validate(record)
    locs = [e["loc"] for e in info.value.errors()]
    assert ("intermediate_trace", "records", 0, "assistant:text", "tool_calls", 0, "id") in locs
    assert ("intermediate_trace", "records", 0, "assistant:text", "tool_calls", 0, "name") in locs


def test_deep_nesting_and_huge_strings_are_fine_or_clear() -> None:
    class Box(BaseModel):
        items: list[Message]

    deep: dict[str, Any] = {"role": "user", "msg_type": "text", "content": "leaf"}
    for _ in range(40):
        deep = {"role": "user", "msg_type": "history", "content": [deep]}
    assert type(Box.model_validate({"items": [deep]}).items[0]).__name__ == "HistoryMessage"
    big = "x" * 5_000_000
    assert TextMessage(content=big).content == big
