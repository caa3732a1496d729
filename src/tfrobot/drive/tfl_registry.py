"""The Drive's tools as TFL sees them: one set of tools for both JSON tool calls and TFL scripts."""

from __future__ import annotations

from collections.abc import Collection
from itertools import count
from typing import Any

from pydantic import ValidationError

from tfrobot.drive.drive import Drive
from tfrobot.drive.tool import ToolFailure, ToolOutput
from tfrobot.schema.message import ToolReturn
from tfrobot.tfl import TFLToolSignature, ToolResult


class DriveToolRegistry:
    """Implements `tfrobot.tfl.TFLToolRegistry` over a `Drive`: same validation, same time-outs."""

    def __init__(self, drive: Drive) -> None:
        self.drive = drive
        self._ids = count(1)

    def names(self) -> Collection[str]:
        return self.drive.names()

    def signature(self, name: str) -> TFLToolSignature | None:
        if name not in self.drive:
            return None
        tool = self.drive[name]
        fields = tool.arguments.model_fields
        return TFLToolSignature(
            name=name,
            parameters=tuple(fields),
            required=frozenset(key for key, field in fields.items() if field.is_required()),
            description=tool.description,
        )

    async def acall(self, name: str, arguments: dict[str, Any]) -> object:
        """Run the tool with the same validation and time-out as a JSON tool call, and hand TFL what it
        returned as it returned it: the string "75001" stays a string (not text re-read as JSON, which
        made it a number). Failures are the same error `ToolReturn` an LLM would see."""
        tool = self.drive[name]
        try:
            value = await tool.invoke(tool.arguments.model_validate(arguments))
        except (ValidationError, ToolFailure) as exc:
            call_id = f"tfl_{next(self._ids)}"
            return ToolReturn(call_id=call_id, name=name, is_error=True, result=tool.failure_text(exc))
        if isinstance(value, ToolOutput):  # TFL's own form of a value with attachments
            return ToolResult(value.result, tuple(value.attachments))
        return value
