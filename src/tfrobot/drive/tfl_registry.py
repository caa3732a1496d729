"""The Drive's tools as TFL sees them: one set of tools for both JSON tool calls and TFL scripts."""

from __future__ import annotations

from collections.abc import Collection
from itertools import count
from typing import Any

from pydantic_core import to_json

from tfrobot.drive.drive import Drive
from tfrobot.schema.message import ToolCall
from tfrobot.tfl import TFLToolSignature


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
        """Run the tool; its `ToolReturn` as it is (TFL stops a script at an error result, with its text)."""
        call = ToolCall(id=f"tfl_{next(self._ids)}", name=name, arguments=to_json(arguments).decode())
        return await self.drive.call(call)
