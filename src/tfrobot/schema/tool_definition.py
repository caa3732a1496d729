"""`ToolDefinition`: a tool as an LLM sees it, in no provider's shape.

It lives in the schema layer because both sides of a tool need it and neither may import the other's
layer for it: the drive describes its tools with it, and the LLM layer turns it into each provider's
tool format (cleaning the schema per provider with `tfrobot.brain.chain.llms.SchemaCleaner`).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["ToolDefinition"]


class ToolDefinition(BaseModel):
    """A tool as the LLM sees it: name, purpose, and a JSON Schema of its arguments object."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    name: str = Field(description="Tool name; the LLM calls it by this.")
    description: str = Field(default="", description="What the tool does and when to use it.")
    parameters: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object", "properties": {}},
        description="JSON Schema of the arguments object; `x-*` keys are stripped before any provider sees it.",
    )
