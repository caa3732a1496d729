"""Messages shaped like real turns, for the memory tests (the store fixtures live in tests/conftest.py)."""

from __future__ import annotations

from tests.conftest import pg_execute, run_sync
from tfrobot.schema.message import (
    AssistantTextMessage,
    BaseMessage,
    ConsoleResult,
    TextMessage,
    ToolCall,
    ToolReturn,
)

__all__ = ["pg_execute", "run_sync"]


def trace_turn(conversation_id: str, text: str = "weather in Paris?", *, create_ts: int | None = None) -> TextMessage:
    """The TFROB-299 shape: a user message whose trace holds assistant thinking, a tool and a console result."""
    extra = {} if create_ts is None else {"create_ts": create_ts}
    turn = TextMessage(content=text, conversation_id=conversation_id, **extra)
    turn.intermediate_trace.append(
        AssistantTextMessage(
            reasoning_content="I should look it up",
            tool_calls=[ToolCall(id="c1", name="weather", arguments='{"city": "Paris"}')],
            tfl_scripts=["print(weather('Paris'))"],
        ),
        source="thinking",
        step=1,
    )
    turn.intermediate_trace.append(
        BaseMessage(role="tool", tool_reses=[ToolReturn(call_id="c1", name="weather", result="18C")]), source="doing"
    )
    turn.intermediate_trace.append(
        BaseMessage(role="console", console_reses=[ConsoleResult(result="18C", script="print(weather('Paris'))")])
    )
    return turn


def reply(conversation_id: str, text: str = "18C and sunny", *, create_ts: int | None = None) -> AssistantTextMessage:
    extra = {} if create_ts is None else {"create_ts": create_ts}
    return AssistantTextMessage(content=text, conversation_id=conversation_id, finish_reason="stop", **extra)
