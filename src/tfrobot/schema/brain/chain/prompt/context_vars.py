"""The containers between memory and the LLM request (seed: "Conversation / PromptContext").

Every field that holds messages is typed `Message`, never a bare `BaseMessage` list, so a context that
crosses a JSON boundary (a prompt template, a debug dump, a queue) comes back with every subclass intact:
the seed's risk table lists each of these fields as a TFROB-299 hazard.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from tfrobot.schema.message.conversation.message_dto import Message


class Conversation(BaseModel):
    """The ordered messages the LLM sees: history with traces expanded, the current input, the chain's work."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    msgs: list[Message] = Field(default_factory=list, description="Messages in request order.")


class IntermediateTraceSnapshot(BaseModel):
    """A frozen copy of one turn's trace records, for prompt templates that render them."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    records: tuple[Message, ...] = Field(default=(), description="Trace records, ordered by `create_ts`.")


class PromptContext(BaseModel):
    """What `construct_prompt_context` hands to the later phases of `construct_request_params`."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    current_input: Message = Field(description="The user message this request answers.")
    conversation: Conversation = Field(default_factory=Conversation, description="Everything the LLM sees.")
    intermediate_msgs: list[Message] | None = Field(
        default=None, description="The running chain's messages of this turn (thinking, tool and console results)."
    )
