"""Conversations and their messages as the console sees them (rows of two cursor-paged tables)."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import ConfigDict, Field

from tfrobotserver.dtos.base import HttpModel


class ConversationItem(HttpModel):
    """One conversation; its `conversationId` feeds the row's aget_messages / adelete_conversation."""

    conversation_id: str
    title: str | None = None
    created_ts: int
    updated_ts: int
    failed_turns: int = 0
    """How many of its turns failed: the trace explorer marks the conversation, so no one opens each to look."""

    model_config: ClassVar[ConfigDict] = ConfigDict(
        json_schema_extra={
            "x-namespace": {"conversationId": "conversationId", "conversationTitle": "title"},
            "x-actions": ["aget_messages", "adelete_conversation"],
        }
    )


class ChatMessageItem(HttpModel):
    """One stored message with its text and, for a user message, the trace of its turn."""

    msg_id: str
    role: str
    msg_type: str | None = None
    text: str
    create_ts: int
    message: dict[str, Any] = Field(
        description="The message as stored (its own class's JSON), a user message without its trace's records, "
        "which are `trace` (its `intermediate_trace.failure` stays)."
    )
    trace: list[dict[str, Any]] = Field(
        default_factory=list,
        description="The turn's thinking, tool calls, tool results and console results, in order (user messages).",
    )
    failed: str | None = Field(
        default=None,
        description="Why the turn ended without an answer, and the fix (the user message of a failed turn); the "
        "typed failure is `message.intermediate_trace.failure`.",
    )
