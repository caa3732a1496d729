"""Phase 4: flatten and merge."""

from __future__ import annotations

from tfrobot.schema.message import (
    ImageUserMsgPart,
    LLMRequestMessages,
    LLMSystemMessage,
    LLMToolMessage,
    LLMUserMessage,
    TextUserMsgPart,
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
