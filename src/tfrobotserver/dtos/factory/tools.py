"""A robot's tools and tool sources as the console sees them (rows of the tools component's lists)."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import ConfigDict, Field

from tfrobotserver.dtos.base import HttpModel


class ToolItem(HttpModel):
    """One tool the robot's LLM may call; its `toolName` feeds the row's call actions."""

    name: str
    description: str
    source: str = Field(description="The robot file's entry it comes from (a module path or an MCP server's name).")
    input_schema: dict[str, Any] = Field(description="The JSON Schema of its arguments.")
    read_only: bool = Field(description="It changes nothing: a read token may call it (acall_read_tool).")
    confirm: bool = Field(description="Each call the LLM makes waits for the user's approval.")
    timeout: float = Field(description="Seconds a call may take.")

    model_config: ClassVar[ConfigDict] = ConfigDict(
        json_schema_extra={
            "x-namespace": {"toolName": "name", "toolSchema": "inputSchema"},
            "x-actions": ["acall_tool", "acall_read_tool"],
        }
    )


class ToolSourceItem(HttpModel):
    """One entry of the robot file's `tools:`, and whether it works now."""

    name: str
    kind: str = Field(description="python, mcp-stdio or mcp-http.")
    state: str = Field(description="ready, starting, reconnecting, failed or stopped.")
    tools: int
    error: str | None = Field(default=None, description="Why the last connection failed or ended.")
    optional: bool = Field(default=False, description="The robot started without it (a failure is reported only).")

    model_config: ClassVar[ConfigDict] = ConfigDict(json_schema_extra={"x-namespace": {"sourceName": "name"}})


class ToolCallResult(HttpModel):
    """What one call of a tool from the console returned (the `ToolReturn` the LLM would read)."""

    tool: str
    is_error: bool
    result: dict[str, Any] = Field(description="The ToolReturn as JSON: result text, attachments, is_error.")
