"""Provider-neutral LLM messages: the target of `to_llm_request()` and the input of provider adapters.

Closer to the APIs than `BaseMessage` (one message per tool result, console output in its own role,
attachments in user messages that say what they belong to) yet free of any provider's dict shape.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, RootModel

from tfrobot.schema.message.llms.llm_response import ReasoningBlock
from tfrobot.schema.message.msg_part import MsgPart, TextUserMsgPart
from tfrobot.schema.message.tool import ToolCall

LLMToolCall: TypeAlias = ToolCall
"""A tool call in a request is the same object the assistant message holds: nothing to convert."""


class BaseLLMMessage(BaseModel):
    """Common base of the neutral LLM messages."""

    model_config = ConfigDict(extra="forbid", ser_json_bytes="base64", val_json_bytes="base64")

    role: str


class LLMSystemMessage(BaseLLMMessage):
    """System instructions. Providers without a system role lift or degrade it."""

    role: Literal["system"] = "system"
    content: str


class LLMUserMessage(BaseLLMMessage):
    """User text or parts. `attachment_of` marks a message that only carries the media of a tool call or
    console run (its id), so a provider can fold it back into that result where the API allows."""

    role: Literal["user"] = "user"
    content: str | list[MsgPart]
    name: str | None = None
    attachment_of: str | None = None


class LLMAssistantMessage(BaseLLMMessage):
    """Assistant text, tool calls and reasoning; nothing of an `AssistantTextMessage` is left behind."""

    role: Literal["assistant"] = "assistant"
    content: str | None = None
    tool_calls: list[LLMToolCall] = Field(default_factory=list)
    reasoning_content: str | None = None
    reasoning_blocks: list[ReasoningBlock] = Field(default_factory=list)
    model: str | None = Field(
        default=None,
        description="'provider:model' that wrote it; reasoning text is replayed only to the provider that made it.",
    )


class LLMToolMessage(BaseLLMMessage):
    """The result of one tool call."""

    role: Literal["tool"] = "tool"
    tool_call_id: str
    content: str
    name: str | None = None
    is_error: bool = False


class LLMFunctionMessage(BaseLLMMessage):
    """The result of a legacy function call."""

    role: Literal["function"] = "function"
    name: str
    content: str


class LLMTFLMessage(BaseLLMMessage):
    """TFL console output. No provider has this role: OpenAI rewrites it to user, Anthropic to a user
    text block (seed: "console role → user text block（降级）")."""

    role: Literal["console"] = "console"
    content: str


LLMMessage: TypeAlias = Annotated[
    LLMSystemMessage | LLMUserMessage | LLMAssistantMessage | LLMToolMessage | LLMFunctionMessage | LLMTFLMessage,
    Field(discriminator="role"),
]
"""Any neutral LLM message, dispatched on `role`."""


class LLMRequestMessages(RootModel[list[LLMMessage | list[LLMMessage]]]):
    """The output of `format_to_request_msgs`: one entry per conversation message, some expanded to lists."""

    def to_list(self) -> list[BaseLLMMessage]:
        """Flatten, then merge neighbours that providers want as one message (seed Phase 4, "展平 & 归并").

        Adjacent system messages join their text; adjacent user messages join their parts when they carry
        the same thing (both plain turns, or attachments of the same result). Nothing else is merged, so
        every tool result stays addressable by its call id.
        """
        flat: list[BaseLLMMessage] = []
        for entry in self.root:
            flat.extend(entry if isinstance(entry, list) else (entry,))
        merged: list[BaseLLMMessage] = []
        for msg in flat:
            prev = merged[-1] if merged else None
            if isinstance(prev, LLMSystemMessage) and isinstance(msg, LLMSystemMessage):
                merged[-1] = LLMSystemMessage(content=f"{prev.content}\n\n{msg.content}")
            elif (
                isinstance(prev, LLMUserMessage)
                and isinstance(msg, LLMUserMessage)
                and prev.attachment_of == msg.attachment_of
                and prev.name == msg.name
            ):
                merged[-1] = prev.model_copy(update={"content": _parts(prev.content) + _parts(msg.content)})
            else:
                merged.append(msg)
        return merged


def _parts(content: str | list[MsgPart]) -> list[MsgPart]:
    return [TextUserMsgPart(text=content)] if isinstance(content, str) else list(content)
