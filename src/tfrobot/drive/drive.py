"""The set of tools a robot has, and the concurrent execution of one assistant turn's tool calls."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from tfrobot.drive.confirm import DEFAULT_CONFIRM_TIMEOUT, Confirm, confirmation_refusal
from tfrobot.drive.tool import BaseTool, Tool
from tfrobot.schema.message import BaseMessage, ToolCall, ToolReturn
from tfrobot.schema.tool_definition import ToolDefinition
from tfrobot.telemetry import traced_tool


class Drive:
    """Registered tools by name. Unknown tools and failures become error results, never exceptions."""

    def __init__(
        self,
        tools: Iterable[BaseTool | Callable[..., Any]] = (),
        *,
        confirm_timeout: float = DEFAULT_CONFIRM_TIMEOUT,
    ) -> None:
        self._tools: dict[str, BaseTool] = {}
        self.confirm_timeout = confirm_timeout
        """Seconds a `confirm=True` call waits for the user's answer (then it counts as refused)."""
        for item in tools:
            self.register(item)

    def register(self, item: BaseTool | Callable[..., Any]) -> BaseTool:
        """Add a tool (or a plain callable, wrapped). Two tools with one name are an error, not a shadow."""
        added = item if isinstance(item, BaseTool) else Tool(item)
        if added.name in self._tools:
            raise ValueError(f"a tool named {added.name!r} is already registered; give one of them another name")
        self._tools[added.name] = added
        return added

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __getitem__(self, name: str) -> BaseTool:
        return self._tools[name]

    def names(self) -> list[str]:
        """The tools' names, in registration order."""
        return list(self._tools)

    @property
    def specs(self) -> list[ToolDefinition]:
        """The tools as the LLM should see them, in registration order."""
        return [t.spec for t in self._tools.values()]

    def needs_confirmation(self, calls: Sequence[ToolCall]) -> list[ToolCall]:
        """The calls among `calls` that wait for the user's approval before they run."""
        return [c for c in calls if c.name in self._tools and self._tools[c.name].confirm]

    async def acall(self, call: ToolCall, *, confirm: Confirm | None = None) -> ToolReturn:
        """Run one call (after the user's approval through `confirm` when the tool asks for it)."""
        found = self._tools.get(call.name)
        if found is None:
            known = ", ".join(self._tools) or "none"
            return ToolReturn(
                call_id=call.id, name=call.name, is_error=True, result=f"unknown tool {call.name!r}; tools: {known}"
            )
        if found.confirm:
            refusal = await confirmation_refusal(call, confirm, self.confirm_timeout)
            if refusal is not None:
                return ToolReturn(call_id=call.id, name=call.name, is_error=True, result=refusal)
        return await found.arun(call)

    async def aexecute(
        self,
        calls: Sequence[ToolCall],
        *,
        conversation_id: str | None = None,
        confirm: Confirm | None = None,
        call_ms: dict[str, int] | None = None,
    ) -> BaseMessage:
        """Run one turn's calls concurrently; results keep the calls' order (the seed's role="tool" message).

        `call_ms`, when given, receives each call's wall time in milliseconds by call id (the trace's timing:
        concurrent calls overlap, so the batch's duration alone does not say which call was slow)."""
        results = await asyncio.gather(*(self._timed(c, confirm, call_ms) for c in calls))
        return BaseMessage(role="tool", tool_reses=list(results), conversation_id=conversation_id)

    async def _timed(self, call: ToolCall, confirm: Confirm | None, call_ms: dict[str, int] | None) -> ToolReturn:
        started = time.perf_counter()
        try:
            return await traced_tool(call, self.acall(call, confirm=confirm))
        finally:
            if call_ms is not None:
                call_ms[call.id] = round((time.perf_counter() - started) * 1000)
