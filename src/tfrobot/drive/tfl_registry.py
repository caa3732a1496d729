"""The Drive's tools as TFL sees them: one set of tools for both JSON tool calls and TFL scripts.

A tool's name is whatever its author chose (`my-tool`, `drive.weather`, `3d_view`, `天气`): function
calling takes it as it is (each provider maps it to what its API accepts). TFL names are the grammar's
ASCII `NAME`, so a script calls a tool by its *TFL name* (`tfl_name`): each `-`, `.`, `/`, `:` or space
becomes `_`, and a name starting with a digit gets a leading `_` (`my-tool` → `my_tool`, `drive.weather`
→ `drive_weather`, `3d_view` → `_3d_view`). A tool whose TFL name is still not a name (`天气`), is a TFL
keyword or builtin, or is another tool's TFL name is left out of TFL (`left_out` says why; the server
shows it in the robot's readiness), never an error: the robot's turns and function calls go on.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from itertools import count
from typing import Any

from tfrobot.drive.drive import Drive
from tfrobot.drive.tool import BaseTool, ToolArgumentsError, ToolFailure, ToolOutput
from tfrobot.schema.message import ToolReturn
from tfrobot.telemetry import traced_script_tool
from tfrobot.tfl import TFLToolSignature, ToolResult, tool_name_problem

_SEPARATORS = re.compile(r"[-./: ]")


def tfl_name(name: str) -> str | None:
    """The name a TFL script calls the tool `name` by (see the module's rule); None when there is none."""
    mapped = _SEPARATORS.sub("_", name)
    if mapped[:1].isdigit():
        mapped = f"_{mapped}"
    return mapped if tool_name_problem(mapped) is None else None


class DriveToolRegistry:
    """Implements `tfrobot.tfl.TFLToolRegistry` over a `Drive`: same validation, same time-outs.

    Tools that need the user's confirmation are refused inside scripts: a script may call a tool in a
    loop, and the user approves calls one by one, as the LLM's own tool calls."""

    def __init__(self, drive: Drive) -> None:
        self.drive = drive
        self._ids = count(1)
        self.tool_names: dict[str, str] = {n: n for n in drive.names() if tool_name_problem(n) is None}
        """TFL name → the tool's own name, for every tool a script can call (a name TFL can write keeps it)."""
        self.left_out: dict[str, str] = {}
        """Tool name → why no script can call it (function calls still can)."""
        for name in drive.names():
            if name in self.tool_names:
                continue
            mapped = tfl_name(name)
            if mapped is None:
                self.left_out[name] = tool_name_problem(_SEPARATORS.sub("_", name)) or "not a TFL name"
            elif mapped in self.tool_names:
                self.left_out[name] = f"its TFL name {mapped!r} is taken by the tool {self.tool_names[mapped]!r}"
            else:
                self.tool_names[mapped] = name

    def names(self) -> Collection[str]:
        return tuple(self.tool_names)

    def signature(self, name: str) -> TFLToolSignature | None:
        if name not in self.tool_names:
            return None
        tool = self.drive[self.tool_names[name]]
        return TFLToolSignature(
            name=name, parameters=tool.parameter_names, required=tool.required, description=tool.description
        )

    async def acall(self, name: str, arguments: dict[str, Any]) -> object:
        """Run the tool with the same validation and time-out as a JSON tool call, and hand TFL what it
        returned as it returned it: the string "75001" stays a string (not text re-read as JSON, which
        made it a number). Failures are the same error `ToolReturn` an LLM would see."""
        tool = self.drive[self.tool_names[name]]
        value = await traced_script_tool(name, self._checked_call(tool, name, arguments))
        if isinstance(value, ToolOutput):  # TFL's own form of a value with attachments
            return ToolResult(value.result, tuple(value.attachments))
        return value

    async def _checked_call(self, tool: BaseTool, name: str, arguments: dict[str, Any]) -> object:
        """The whole call as its span covers it — the confirmation refusal, the argument check, the tool —
        with a failure as the error `ToolReturn` (what the span records as `tool_error`)."""
        try:
            if tool.confirm:
                raise ToolFailure(
                    f"{name} needs the user's confirmation, which a TFL script cannot ask for; "
                    "call it as a tool call instead"
                )
            return await tool.ainvoke(tool.validate(arguments))
        except (ToolArgumentsError, ToolFailure) as exc:
            return ToolReturn(call_id=f"tfl_{next(self._ids)}", name=name, is_error=True, result=str(exc))
