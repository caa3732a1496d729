"""Phase 4: flatten and merge."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter, ValidationError

from tfrobot.schema.message import (
    ImageUserMsgPart,
    LLMAssistantMessage,
    LLMMessage,
    LLMRequestMessages,
    LLMSystemMessage,
    LLMToolMessage,
    LLMUserMessage,
    TextUserMsgPart,
    ToolCall,
)

IMAGE = ImageUserMsgPart(url="https://example.com/a.png")


def test_to_list_flattens_and_merges_only_what_belongs_together() -> None:
    request = LLMRequestMessages(
        [
            LLMSystemMessage(content="a"),
            LLMSystemMessage(content="b"),
            LLMUserMessage(content="hi"),
            LLMUserMessage(content=[IMAGE]),
            [
                LLMToolMessage(tool_call_id="1", content="x"),
                LLMToolMessage(tool_call_id="2", content="y"),
                LLMUserMessage(content=[IMAGE], attachment_of="1"),
            ],
            LLMUserMessage(content=[IMAGE], attachment_of="2"),
        ]
    )
    out = request.to_list()
    assert out == [
        LLMSystemMessage(content="a\n\nb"),
        LLMUserMessage(content=[TextUserMsgPart(text="hi"), IMAGE]),
        LLMToolMessage(tool_call_id="1", content="x"),
        LLMToolMessage(tool_call_id="2", content="y"),
        LLMUserMessage(content=[IMAGE], attachment_of="1"),
        LLMUserMessage(content=[IMAGE], attachment_of="2"),
    ]
    assert LLMRequestMessages(out).to_list() == out


def test_neutral_messages_validate_and_dump_through_pydantic() -> None:
    adapter = TypeAdapter(LLMMessage)
    call = LLMAssistantMessage(content="hi", tool_calls=[ToolCall(id="c", name="f")])
    assert adapter.validate_python(call.model_dump()) == call
    assert adapter.validate_json(call.model_dump_json()) == call
    assert LLMUserMessage.model_validate({"content": [{"type": "image", "url": "https://example.com/a.png"}]}) == (
        LLMUserMessage(content=[IMAGE])
    )
    with pytest.raises(ValidationError):
        adapter.validate_python({"role": "user", "content": "x", "unknown": 1})
    assert call.model_copy(update={"content": None}) == LLMAssistantMessage(tool_calls=call.tool_calls)
    assert LLMSystemMessage(content="a").model_dump(mode="json") == {"role": "system", "content": "a"}
