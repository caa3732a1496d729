"""The Drive's tools as TFL sees them: one set of tools for both JSON tool calls and TFL scripts."""

from __future__ import annotations

from collections.abc import Collection
from itertools import count
from typing import Any

from tfrobot.drive.drive import Drive
from tfrobot.drive.tool import ToolArgumentsError, ToolFailure, ToolOutput
from tfrobot.schema.message import ToolReturn
from tfrobot.telemetry import traced_script_tool
from tfrobot.tfl import TFLToolSignature, ToolResult


class DriveToolRegistry:
    """Implements `tfrobot.tfl.TFLToolRegistry` over a `Drive`: same validation, same time-outs.

    Tools that need the user's confirmation are refused inside scripts: a script may call a tool in a
    loop, and the user approves calls one by one, as the LLM's own tool calls."""

    def __init__(self, drive: Drive) -> None:
        self.drive = drive
        self._ids = count(1)

    def names(self) -> Collection[str]:
        return self.drive.names()

    def signature(self, name: str) -> TFLToolSignature | None:
        if name not in self.drive:
            return None
        tool = self.drive[name]
        return TFLToolSignature(
            name=name, parameters=tool.parameter_names, required=tool.required, description=tool.description
        )

    async def acall(self, name: str, arguments: dict[str, Any]) -> object:
        """Run the tool with the same validation and time-out as a JSON tool call, and hand TFL what it
        returned as it returned it: the string "75001" stays a string (not text re-read as JSON, which
        made it a number). Failures are the same error `ToolReturn` an LLM would see."""
        tool = self.drive[name]
        try:
            if tool.confirm:
                raise ToolFailure(
                    f"{name} needs the user's confirmation, which a TFL script cannot ask for; "
                    "call it as a tool call instead"
                )
            value = await traced_script_tool(name, tool.invoke(tool.validate(arguments)))
        except (ToolArgumentsError, ToolFailure) as exc:
            return ToolReturn(call_id=f"tfl_{next(self._ids)}", name=name, is_error=True, result=str(exc))
        if isinstance(value, ToolOutput):  # TFL's own form of a value with attachments
            return ToolResult(value.result, tuple(value.attachments))
        return value
