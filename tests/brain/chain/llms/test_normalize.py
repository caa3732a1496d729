"""The shared normalization pass: each repair, each clear failure, and idempotency."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.brain.chain.llms.conftest import conversation, current_turn
from tfrobot.brain.chain.llms import InvalidConversationError, OpenAIChat, normalize
from tfrobot.brain.chain.llms.normalize import EMPTY_CONSOLE, MISSING_RESULT
from tfrobot.schema.brain.chain.prompt.context_vars import PromptContext
from tfrobot.schema.message import (
    LLMAssistantMessage,
    LLMSystemMessage,
    LLMTFLMessage,
    LLMToolMessage,
    LLMUserMessage,
    TextUserMsgPart,
    ToolCall,
)


def call(*ids: str) -> LLMAssistantMessage:
    return LLMAssistantMessage(tool_calls=[ToolCall(id=i, name="weather") for i in ids])


def test_results_move_right_after_their_call_in_call_order_with_names_filled() -> None:
    msgs = [
        LLMUserMessage(content="q"),
        call("a", "b"),
        LLMUserMessage(content=[TextUserMsgPart(text="media")], attachment_of="a"),
        LLMToolMessage(tool_call_id="b", content="B"),
        LLMUserMessage(content="next"),
        LLMToolMessage(tool_call_id="a", content="A"),
    ]
    out = normalize(msgs)
    assert [type(m) for m in out] == [
        LLMUserMessage,
        LLMAssistantMessage,
        LLMToolMessage,
        LLMToolMessage,
        LLMUserMessage,
        LLMUserMessage,
    ]
    assert [(m.tool_call_id, m.name) for m in out if isinstance(m, LLMToolMessage)] == [
        ("a", "weather"),
        ("b", "weather"),
    ]
    assert out[4] == LLMUserMessage(content=[TextUserMsgPart(text="media")], attachment_of="a")


def test_a_call_without_result_gets_an_error_result() -> None:
    out = normalize([LLMUserMessage(content="q"), call("a")])
    assert out[-1] == LLMToolMessage(tool_call_id="a", name="weather", content=MISSING_RESULT, is_error=True)


def test_an_orphan_result_becomes_user_text_with_its_content() -> None:
    out = normalize([LLMUserMessage(content="q"), LLMToolMessage(tool_call_id="gone", name="weather", content="18C")])
    assert len(out) == 1
    assert type(out[0]) is LLMUserMessage
    assert isinstance(out[0].content, list)
    texts = [p.text for p in out[0].content if isinstance(p, TextUserMsgPart)]
    assert "call gone" in texts[1]
    assert texts[1].endswith("\n18C")


def test_identical_duplicates_are_kept_once() -> None:
    result = LLMToolMessage(tool_call_id="a", name="weather", content="A")
    out = normalize([LLMUserMessage(content="q"), call("a"), result, call("a"), result])
    assert out == [LLMUserMessage(content="q"), call("a"), result]


def test_two_different_results_for_one_call_fail_clearly() -> None:
    with pytest.raises(InvalidConversationError, match=r"messages\[3\]: a second, different result for tool call 'a'"):
        normalize(
            [
                LLMUserMessage(content="q"),
                call("a"),
                LLMToolMessage(tool_call_id="a", content="A"),
                LLMToolMessage(tool_call_id="a", content="other"),
            ]
        )


def test_one_call_id_in_two_different_calls_fails_clearly() -> None:
    other = LLMAssistantMessage(content="again", tool_calls=[ToolCall(id="a", name="weather")])
    with pytest.raises(
        InvalidConversationError, match=r"tool call id 'a' \(weather\) was already used by messages\[1\]"
    ):
        normalize([LLMUserMessage(content="q"), call("a"), LLMToolMessage(tool_call_id="a", content="A"), other])


def test_empty_text_is_repaired_and_same_role_turns_merge() -> None:
    out = normalize(
        [
            LLMSystemMessage(content=" "),
            LLMUserMessage(content=[TextUserMsgPart(text=""), TextUserMsgPart(text="hi")]),
            LLMAssistantMessage(content="  "),
            LLMUserMessage(content="again"),
            LLMTFLMessage(content=""),
            LLMAssistantMessage(content="one"),
            LLMAssistantMessage(content="two", tool_calls=[ToolCall(id="c", name="f")]),
            LLMToolMessage(tool_call_id="c", content="done"),
        ]
    )
    assert out == [
        LLMUserMessage(content=[TextUserMsgPart(text="hi"), TextUserMsgPart(text="again")]),
        LLMTFLMessage(content=EMPTY_CONSOLE),
        LLMAssistantMessage(content="one\n\ntwo", tool_calls=[ToolCall(id="c", name="f")]),
        LLMToolMessage(tool_call_id="c", name="f", content="done"),
    ]


def test_normalization_is_idempotent_on_the_full_conversation(media_root: Path) -> None:
    turn, chain = current_turn()
    chat = OpenAIChat(media_roots=(media_root,))
    ctx = chat.construct_prompt_context(turn, conversation(media_root), chain)
    assert isinstance(ctx, PromptContext)
    once = normalize(chat.format_to_request_msgs(ctx).to_list())
    assert normalize(once) == once
