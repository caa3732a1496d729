"""What a running chain reports while it works: the stream the CLI and the console's chat render."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field

from tfrobot.schema.message import AssistantTextMessage, ConsoleResult, ToolCall, ToolReturn
from tfrobot.schema.types import WrittenByOwnClass


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    step: int = Field(description="Which thinking/doing round of the turn produced it (0-based).")


class TokenDelta(_Event):
    """A piece of the assistant's text as it is generated."""

    type: Literal["token"] = "token"
    text: str


class ReasoningToken(_Event):
    """A piece of the assistant's reasoning as it is generated."""

    type: Literal["reasoning"] = "reasoning"
    text: str


class AssistantStep(_Event):
    """One complete assistant message of the turn (thinking): may call tools or run scripts."""

    type: Literal["assistant"] = "assistant"
    message: AssistantTextMessage


class ToolCallStarted(_Event):
    """A tool call is about to run."""

    type: Literal["tool_call"] = "tool_call"
    call: ToolCall


class ConfirmationRequested(_Event):
    """A call of a `confirm=True` tool waits for the user's approval (the chain's `confirm` hook asks)."""

    type: Literal["confirm"] = "confirm"
    call: ToolCall


class ToolCallFinished(_Event):
    """A tool call returned (or failed: `result.is_error`)."""

    type: Literal["tool_result"] = "tool_result"
    result: Annotated[ToolReturn, WrittenByOwnClass]  # a tool source's subclass is sent whole, as it is stored


class ConsoleOutput(_Event):
    """A TFL script ran; its console output."""

    type: Literal["console"] = "console"
    result: Annotated[ConsoleResult, WrittenByOwnClass]


class FinalMessage(_Event):
    """The turn's answer. Always the last event of a turn that did not fail."""

    type: Literal["final"] = "final"
    message: AssistantTextMessage


ChainEvent: TypeAlias = Annotated[
    TokenDelta
    | ReasoningToken
    | AssistantStep
    | ToolCallStarted
    | ConfirmationRequested
    | ToolCallFinished
    | ConsoleOutput
    | FinalMessage,
    Field(discriminator="type"),
]
"""Any chain event, dispatched on `type` (JSON-ready for server-sent events)."""


async def final_message(events: AsyncIterator[ChainEvent]) -> AssistantTextMessage:
    """The answer of a turn's events (consumed to the end): its `FinalMessage`, which ends every turn that
    did not fail."""
    final: AssistantTextMessage | None = None
    async for event in events:
        if isinstance(event, FinalMessage):
            final = event.message
    if final is None:
        raise RuntimeError("the turn ended without an answer")
    return final
