"""One tool of an MCP server: its listed `inputSchema` validates the arguments before anything is sent."""

from __future__ import annotations

from typing import Any, Protocol

from jsonschema import SchemaError
from jsonschema.validators import validator_for
from mcp import types

from tfrobot.drive.mcp.results import tool_return
from tfrobot.drive.tool import DEFAULT_TIMEOUT, BaseTool, ToolArgumentsError
from tfrobot.schema.message import ToolReturn


class ToolServer(Protocol):
    """What a tool needs of its server's connection (`MCPToolSource` is one)."""

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult: ...

    def check_alive(self) -> None: ...


class MCPTool(BaseTool):
    """A tool listed by an MCP server. `confirm` and `read_only` default to its annotations'
    `destructiveHint` and `readOnlyHint` (hints from the server: the robot's configuration may override)."""

    def __init__(
        self,
        source: ToolServer,
        listed: types.Tool,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        confirm: bool = False,
        read_only: bool = False,
    ) -> None:
        super().__init__(listed.name, listed.description or "", timeout=timeout, confirm=confirm, read_only=read_only)
        self.source = source
        self.remote_name = listed.name
        """The name the server knows it by (`name` may carry a prefix)."""
        self.listed = listed
        schema = {"type": "object", **listed.inputSchema}
        try:
            self._validator = validator_for(schema)(schema)
            self._validator.check_schema(schema)
        except SchemaError as exc:
            raise ValueError(f"its inputSchema is not a valid JSON Schema: {exc.message}") from None
        self._schema = schema

    @classmethod
    def from_listing(cls, source: ToolServer, listed: types.Tool, *, timeout: float) -> MCPTool:
        """The tool with its annotations' defaults: destructive ones ask first, read-only ones are marked."""
        hints = listed.annotations or types.ToolAnnotations()
        read_only = hints.readOnlyHint is True
        confirm = hints.destructiveHint is True and not read_only
        return cls(source, listed, timeout=timeout, confirm=confirm, read_only=read_only)

    @property
    def parameters(self) -> dict[str, Any]:
        return self._schema

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        problems = [
            f"{'.'.join(map(str, error.absolute_path)) or 'arguments'}: {error.message}"
            for error in sorted(self._validator.iter_errors(arguments), key=lambda e: list(map(str, e.absolute_path)))
        ]
        if problems:
            raise ToolArgumentsError(f"invalid arguments for {self.name}: {'; '.join(problems)}")
        return arguments

    def _timed_out(self) -> None:
        self.source.check_alive()

    async def _call(self, arguments: dict[str, Any]) -> ToolReturn:
        result = await self.source.call_tool(self.remote_name, arguments)
        return tool_return(result, call_id=f"mcp:{self.remote_name}", name=self.name)  # `run` sets the call's id
