"""The caller as a DTO: the usual x-fetch target for parameters that default to "me"."""

from __future__ import annotations

from typing import ClassVar

from pydantic import ConfigDict, Field

from tfrobotserver.dtos.base import HttpModel


class CurrentUser(HttpModel):
    """Who is calling; its root x-namespace fills `userId` / `userName` after an x-fetch."""

    user_id: str
    display_name: str
    scopes: list[str] = Field(default_factory=list)

    model_config: ClassVar[ConfigDict] = ConfigDict(
        json_schema_extra={"x-namespace": {"userId": "userId", "userName": "displayName"}}
    )
