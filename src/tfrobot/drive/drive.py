"""The set of tools a robot has, and the concurrent execution of one assistant turn's tool calls."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from tfrobot.drive.tool import Tool
from tfrobot.schema.message import BaseMessage, ToolCall, ToolReturn
from tfrobot.schema.tool_definition import ToolDefinition


class Drive:
    """Registered tools by name. Unknown tools and failures become error results, never exceptions."""

    def __init__(self, tools: Iterable[Tool | Callable[..., Any]] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for item in tools:
            self.register(item)

    def register(self, item: Tool | Callable[..., Any]) -> Tool:
        """Add a tool (or a plain callable, wrapped). Two tools with one name are an error, not a shadow."""
        added = item if isinstance(item, Tool) else Tool(item)
        if added.name in self._tools:
            raise ValueError(f"a tool named {added.name!r} is already registered; give one of them another name")
        self._tools[added.name] = added
        return added

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __getitem__(self, name: str) -> Tool:
        return self._tools[name]

    def names(self) -> list[str]:
        """The tools' names, in registration order."""
        return list(self._tools)

    @property
    def specs(self) -> list[ToolDefinition]:
        """The tools as the LLM should see them, in registration order."""
        return [t.spec for t in self._tools.values()]

    async def call(self, call: ToolCall) -> ToolReturn:
        found = self._tools.get(call.name)
        if found is None:
            known = ", ".join(self._tools) or "none"
            return ToolReturn(
                call_id=call.id, name=call.name, is_error=True, result=f"unknown tool {call.name!r}; tools: {known}"
            )
        return await found.run(call)

    async def execute(self, calls: Sequence[ToolCall], *, conversation_id: str | None = None) -> BaseMessage:
        """Run one turn's calls concurrently; results keep the calls' order (the seed's role="tool" message)."""
        results = await asyncio.gather(*(self.call(c) for c in calls))
        return BaseMessage(role="tool", tool_reses=list(results), conversation_id=conversation_id)
