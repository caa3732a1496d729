"""TFSActions as MCP tools: one tool per action of a robot's components, called through `invoke`.

Names: `<component>__<action>` (`memory__aget_docs`). The MCP specification allows 1–128 characters
of `A-Z a-z 0-9 _ - .`, but the clients that hand tools to a model are stricter (the Anthropic and
OpenAI APIs take `^[a-zA-Z0-9_-]{1,64}$`, Gemini wants a letter or `_` first), so a name that does not
fit all of them is rewritten (other characters become `_`, a leading `_` is added, long names are cut)
and suffixed with a hash of the original, so that two components never share a tool.

Schemas: the input schema is `paramsSchema` and the output schema `retSchema`, both without their
`x-*` keys (console metadata, cleaned by the same `SchemaCleaner` the LLM layer uses). MCP requires an
object output schema, so any other return (a count, `null`, a list) is wrapped as `{"result": …}`, in
the schema and in `structuredContent` alike.

Calls go through `tfrobotserver.app.invoke.invoke`, the code of the HTTP route: the same scope check,
validation, injection, serialization and error bodies. An `ApiError` becomes a tool result with
`isError: true` whose text is the JSON error body the HTTP API would send. Arguments arrive already
decoded by the SDK, so what JSON bytes could never hold (a lone surrogate from a `\\ud800` escape) is
refused first, by `arguments_json`, with the 422 naming the field, before anything encodes them.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcp import types

from tfrobot.brain.chain.llms import SchemaCleaner
from tfrobotserver.actions.injected import Principal
from tfrobotserver.actions.registry import BoundAction
from tfrobotserver.app.errors import ApiError
from tfrobotserver.app.invoke import invoke
from tfrobotserver.app.runtime import Runtime
from tfrobotserver.app.storable_json import unstorable_values
from tfrobotserver.robot.base import Robot

_PORTABLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
_OTHER_CHARS = re.compile(r"[^A-Za-z0-9_-]")
_MAX_NAME = 64
_DESTRUCTIVE_OPS = frozenset({"update", "config", "delete"})
"""Operations that replace or remove what was there (MCP: `destructiveHint`); create and render only add."""

_cleaner = SchemaCleaner()


def tool_name(component: str, action: str) -> str:
    """The portable MCP tool name of `component`'s `action` (see the module docstring)."""
    name = f"{component}__{action}"
    if _PORTABLE_NAME.match(name):
        return name
    digest = hashlib.sha256(f"{component}/{action}".encode()).hexdigest()[:8]
    safe = _OTHER_CHARS.sub("_", name)
    if not (safe[0].isalpha() or safe[0] == "_"):
        safe = f"_{safe}"
    return f"{safe[: _MAX_NAME - len(digest) - 1]}_{digest}"


def error_result(err: ApiError) -> types.CallToolResult:
    """A tool error carrying the HTTP API's error body as its text (the model can read and fix it)."""
    body = json.dumps(err.body.model_dump(mode="json", exclude_none=True), ensure_ascii=False)
    return types.CallToolResult(content=[types.TextContent(type="text", text=body)], isError=True)


def arguments_json(arguments: Any, what: str) -> bytes:
    """A tool call's decoded arguments as the JSON body the HTTP route would get; a 422 naming each field that
    holds text no store keeps (NUL, a lone surrogate) or a number JSON has not, before it is encoded."""
    unstorable = unstorable_values(arguments)
    if unstorable:
        raise ApiError(
            422, "invalid_params", f"{len(unstorable)} invalid value(s) for {what}; see `errors`", unstorable
        )
    return json.dumps(arguments, ensure_ascii=False).encode()


def output_schema(ret_schema: Mapping[str, Any]) -> tuple[dict[str, Any], bool]:
    """The MCP output schema of a return schema, and whether results are wrapped as `{"result": …}`."""
    schema = _cleaner.clean(dict(ret_schema))
    if schema.get("type") == "object":
        return schema, False
    defs = schema.pop("$defs", None)  # `$ref`s point at the document root: keep the definitions there
    wrapped: dict[str, Any] = {"type": "object", "properties": {"result": schema}, "required": ["result"]}
    if defs is not None:
        wrapped["$defs"] = defs
    return wrapped, True


@dataclass(frozen=True)
class ActionTool:
    """One component action offered as an MCP tool."""

    component: str
    action: BoundAction
    tool: types.Tool
    wrapped: bool
    """The result is returned as `{"result": …}` (its return schema is not an object)."""

    @property
    def scope(self) -> str:
        """The scope a caller needs: read actions need `read`, everything else `write`."""
        return "read" if self.action.is_read else "write"

    async def call(self, runtime: Runtime, principal: Principal, robot: str, arguments: Any) -> types.CallToolResult:
        """Run the action as `POST …/actions/{action}` would, with `arguments` as the JSON body."""
        try:
            body = arguments_json(arguments, repr(self.action.name))
            raw = await invoke(runtime, principal, robot, self.component, self.action.name, body)
        except ApiError as err:
            return error_result(err)
        value = json.loads(raw)
        text = types.TextContent(type="text", text=raw.decode())
        return types.CallToolResult(content=[text], structuredContent={"result": value} if self.wrapped else value)


def _tool(component: str, action: BoundAction) -> ActionTool:
    op = action.alias.resource_op_type
    schema, wrapped = output_schema(action.ret_schema)
    annotations = types.ToolAnnotations(
        title=f"{component}.{action.name}",
        readOnlyHint=action.is_read,
        destructiveHint=None if action.is_read else op in _DESTRUCTIVE_OPS,
    )
    tool = types.Tool(
        name=tool_name(component, action.name),
        title=f"{component}.{action.name}",
        description=action.description or f"{op} {action.alias.resource} ({component}.{action.name})",
        inputSchema=_cleaner.clean(action.params_schema),
        outputSchema=schema,
        annotations=annotations,
    )
    return ActionTool(component=component, action=action, tool=tool, wrapped=wrapped)


def action_tools(robot: Robot) -> dict[str, ActionTool]:
    """tool name → tool for every action of every component of `robot`, in component order (a name that
    two actions would share is an error naming both: a tool must never shadow another)."""
    tools: dict[str, ActionTool] = {}
    for component, comp in robot.components.items():
        for action in type(comp).tfs_bound_actions().values():
            found = _tool(component, action)
            clash = tools.get(found.tool.name)
            if clash is not None:
                raise ValueError(
                    f"robot {robot.name!r}: {component}.{action.name} and {clash.component}.{clash.action.name} "
                    f"would both be the MCP tool {found.tool.name!r}; rename one of the components"
                )
            tools[found.tool.name] = found
    return tools
