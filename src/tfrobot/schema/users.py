"""Who wrote a message and where it was said."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from tfrobot.schema.omission import IS_EMPTY, IS_NONE
from tfrobot.schema.types import AttributeValue


class BaseUser(BaseModel):
    """A participant: a person, the robot itself, or a tool acting on someone's behalf.

    Extra keys are kept so that user records from integrations (IM platforms, SSO) survive a round trip.
    """

    model_config = ConfigDict(extra="allow", defer_build=True)

    uid: str = Field(description="Stable id of the user in the platform that created the message.")
    name: str | None = Field(
        default=None, exclude_if=IS_NONE, description="Display name, shown to the LLM in group chats."
    )
    meta: dict[str, AttributeValue] = Field(
        default_factory=dict, exclude_if=IS_EMPTY, description="Free-form platform data."
    )


class BaseGroup(BaseModel):
    """A conversation space shared by several users (a group chat, a channel)."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    gid: str = Field(description="Stable id of the group.")
    name: str | None = Field(default=None, exclude_if=IS_NONE, description="Display name of the group.")
    meta: dict[str, AttributeValue] = Field(
        default_factory=dict, exclude_if=IS_EMPTY, description="Free-form platform data."
    )
