"""What the LLM component's actions take and return (`robot/factory/brain/llm.py`): the request a turn or a
stored step sends, the playground's messages and reply, and one real call's reply."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from tfrobotserver.dtos.base import HttpModel


class LLMRequest(HttpModel):
    """The request a turn's first thinking step would send, exactly as the provider SDK gets it."""

    provider: str
    model: str
    request: dict[str, Any]


class PlayToolCall(HttpModel):
    """A tool call an assistant message of the playground made (its result is a later `tool` message)."""

    id: str = Field(min_length=1, description="the call id its tool result names")
    name: str = Field(min_length=1)
    arguments: str = Field(default="{}", description="JSON object text of the arguments")


class PlayMessage(HttpModel):
    """One message of a playground conversation, as the user edited it: text, an assistant's tool calls, or
    a tool result (`tool_call_id` names the call it answers)."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str
    tool_calls: list[PlayToolCall] = Field(default_factory=list, description="assistant: the calls it made")
    tool_call_id: str | None = Field(default=None, description="tool: the call this is the result of")
    name: str | None = Field(default=None, description="tool: the tool that ran")
    is_error: bool = Field(default=False, description="tool: the result is the tool's error")
    reasoning: str | None = Field(default=None, description="assistant: its reasoning text, replayed as it came")
    model: str | None = Field(
        default=None, description="assistant: 'provider:model' that wrote it (reasoning goes back only to that one)"
    )


class StepRequest(HttpModel):
    """The request one LLM step of a stored turn sent, re-rendered from the stored history and trace."""

    provider: str
    model: str
    rendered: str = Field(
        default="re-rendered",
        description="How this request was obtained: rebuilt now by `construct_request_params` from what is "
        "stored, with the robot's current LLM, system prompt and tools (not a copy of the bytes sent then).",
    )
    request: dict[str, Any]
    messages: list[PlayMessage] = Field(
        default_factory=list,
        description="The step's messages as the playground edits them (what `aplay` rebuilds the same request "
        "from): text, tool calls and tool results; media and TFL console output are not among them.",
    )


class PlayReply(HttpModel):
    """A playground send: the exact request it sent (the same call builds both) and the reply, or the error.
    Nothing is stored."""

    provider: str
    model: str
    request: dict[str, Any]
    message: dict[str, Any] | None = None
    error: str | None = None


class LLMReply(HttpModel):
    """One real call's reply (not stored in the conversation), or why the provider refused or failed."""

    provider: str
    model: str
    message: dict[str, Any] | None = None
    error: str | None = None
    """The provider error (`LLMError` subclass name and message) when the call failed: a debugging result."""
