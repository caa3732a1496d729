"""The to_llm_request() contract: subclasses convert without loss, base user/assistant refuse."""

from __future__ import annotations

import pytest

from tfrobot.schema.message import (
    AssistantTextMessage,
    BaseMessage,
    ConsoleResult,
    FunctionReturn,
    HistoryMessage,
    ImageUserMsgPart,
    LLMAssistantMessage,
    LLMFunctionMessage,
    LLMSystemMessage,
    LLMTFLMessage,
    LLMToolMessage,
    LLMUserMessage,
    MessageContractError,
    ReasoningBlock,
    TextMessage,
    ToolCall,
    ToolReturn,
    UserMessage,
)

IMAGE = ImageUserMsgPart(url="https://example.com/chart.png")


@pytest.mark.parametrize("role", ["user", "assistant"])
def test_user_and_assistant_base_instances_refuse(role: str) -> None:
    with pytest.raises(MessageContractError, match="must be a subclass that implements to_llm_request"):
        BaseMessage(role=role, content="x").to_llm_request()  # type: ignore[arg-type]


def test_every_subclass_converts(messages: list[BaseMessage]) -> None:
    for msg in messages:
        converted = msg.to_llm_request()
        if isinstance(msg, UserMessage):
            assert type(converted) is LLMUserMessage, type(msg)
        elif isinstance(msg, AssistantTextMessage):
            assert type(converted) is LLMAssistantMessage, type(msg)
        elif msg.role == "system":
            assert type(converted) is LLMSystemMessage, type(msg)
        elif msg.role == "function":
            assert type(converted) is LLMFunctionMessage, type(msg)
        else:  # tool and console messages: intermediate messages, plus attachment carriers
            assert isinstance(converted, list), type(msg)
            assert converted, type(msg)


def test_assistant_keeps_tool_calls_reasoning_and_scripts() -> None:
    calls = [ToolCall(id="a", name="t", arguments="{}"), ToolCall(id="b", name="t", arguments='{"x": 1}')]
    block = ReasoningBlock(text="hm", signature="sig")
    msg = AssistantTextMessage(
        content="", reasoning_content="hm", reasoning_blocks=[block], tool_calls=calls, tfl_scripts=["print(1)"]
    )
    out = msg.to_llm_request()
    assert type(out) is LLMAssistantMessage
    assert out.tool_calls == calls
    assert (out.reasoning_content, out.reasoning_blocks) == ("hm", [block])
    assert out.content is not None
    assert "print(1)" in out.content


def test_system_function_console_and_tool_expand() -> None:
    assert BaseMessage(role="system", content="rules").to_llm_request() == LLMSystemMessage(content="rules")
    function = BaseMessage(role="function", function_res=FunctionReturn(name="f", result="r"))
    assert function.to_llm_request() == LLMFunctionMessage(name="f", content="r")

    console = BaseMessage(role="console", console_reses=[ConsoleResult(result="done", attachments=[IMAGE]), "plain"])
    out = console.to_llm_request()
    assert isinstance(out, list)
    assert [type(m) for m in out] == [LLMTFLMessage, LLMTFLMessage, LLMUserMessage]
    assert out[2] == LLMUserMessage(content=[IMAGE], attachment_of=console.msg_id)

    tool = BaseMessage(
        role="tool",
        tool_reses=[ToolReturn(call_id="a", result="1", attachments=[IMAGE]), ToolReturn(call_id="b", result="2")],
    )
    out = tool.to_llm_request()
    assert isinstance(out, list)
    assert [(type(m), getattr(m, "tool_call_id", None)) for m in out] == [
        (LLMToolMessage, "a"),
        (LLMToolMessage, "b"),
        (LLMUserMessage, None),
    ]
    assert out[2] == LLMUserMessage(content=[IMAGE], attachment_of="a")


def test_tool_result_without_call_id_is_refused_not_dropped() -> None:
    with pytest.raises(MessageContractError, match="bare string without a call id"):
        BaseMessage(role="tool", tool_reses=["orphan"]).to_llm_request()


def test_history_keeps_nested_media() -> None:
    from tfrobot.schema.message import ImageMessage

    msg = HistoryMessage(content=[TextMessage(content="see"), ImageMessage(content=IMAGE)])
    out = msg.to_llm_request()
    assert isinstance(out.content, list)
    assert IMAGE in out.content
    assert any(getattr(p, "text", "") == "user: see" for p in out.content)


def test_history_keeps_the_results_of_forwarded_tool_and_console_messages() -> None:
    from tfrobot.schema.message import ConsoleResult, ToolReturn

    tool = BaseMessage(role="tool", tool_reses=[ToolReturn(call_id="c1", name="weather", result="12C")])
    console = BaseMessage(role="console", console_reses=[ConsoleResult(result="printed 3")])
    out = HistoryMessage(content=[tool, console]).to_llm_request()
    assert isinstance(out.content, list)
    assert [getattr(p, "text", "") for p in out.content][1:] == ["tool: 12C", "console: printed 3"]
    assert HistoryMessage(content=[tool, console]).text() == "12C\nprinted 3"
