"""`ChainContext`: where a running chain collects the messages it produces before they enter the trace."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from tfrobot.schema.message.conversation.message_dto import Message


class ChainContext(BaseModel):
    """Run-time state of one chain run. `intermediate_msgs` is typed `Message` (seed: the collection source
    of the trace; written in-process, but typed like every other container so its meaning is one)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    intermediate_msgs: list[Message] = Field(
        default_factory=list, description="AssistantTextMessage, tool and console messages, in production order."
    )
