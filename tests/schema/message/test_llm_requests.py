"""Phase 4: flatten and merge."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from tfrobot.schema.message import (
    ImageUserMsgPart,
    LLMAssistantMessage,
    LLMFunctionMessage,
    LLMMessage,
    LLMRequestMessages,
    LLMSystemMessage,
    LLMTFLMessage,
    LLMToolMessage,
    LLMUserMessage,
    ReasoningBlock,
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


def test_flat_flattens_without_merging() -> None:
    first, second = LLMSystemMessage(content="a"), LLMSystemMessage(content="b")
    result = LLMToolMessage(tool_call_id="1", content="x")
    assert LLMRequestMessages.model_construct([first, [second, result]]).flat() == [first, second, result]


def test_fields_but_role_may_be_passed_by_position_in_the_declared_order() -> None:
    """The conversions build every neutral message by position (binding keywords costs more than building
    the object): this order is what they rely on."""
    call, block = ToolCall(id="c", name="f"), ReasoningBlock(text="why", provider="anthropic")
    assert LLMSystemMessage("s") == LLMSystemMessage(content="s")
    assert LLMUserMessage("u", "ann", "c") == LLMUserMessage(content="u", name="ann", attachment_of="c")
    assert LLMAssistantMessage("a", [call], "r", [block], "openai:gpt-4o") == LLMAssistantMessage(
        content="a", tool_calls=[call], reasoning_content="r", reasoning_blocks=[block], model="openai:gpt-4o"
    )
    assert LLMToolMessage("c", "x", "f", True) == LLMToolMessage(tool_call_id="c", content="x", name="f", is_error=True)
    assert LLMFunctionMessage("f", "x") == LLMFunctionMessage(name="f", content="x")
    assert LLMTFLMessage("out") == LLMTFLMessage(content="out")
    untyped: Any = LLMUserMessage
    with pytest.raises(TypeError):
        untyped("u", None, None, "user")  # `role` is keyword-only
