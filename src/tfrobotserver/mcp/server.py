"""One robot as an MCP server (the SDK's low-level `Server`), whatever the transport.

The handlers are registered as typed request handlers rather than through the SDK's decorators: the
decorators validate tool arguments with `jsonschema` first, and here arguments are validated by the
action's params model inside `invoke`, exactly as over HTTP, so that errors are the HTTP API's 422
bodies. Who is calling comes from `principal_of(request)`: over HTTP the request carries the principal
its bearer token authenticated (`tfrobotserver.mcp.endpoint`), over stdio it is the local user.

`tools/list` shows only the tools the caller may call: a read token sees the read actions and no
`chat`. Calling a tool that is not shown is refused with the HTTP API's 403 body all the same. Every
caller is `unattended`: the client's model picks the calls, so no call is a person's confirmation (the
tools component then refuses `confirm` tools, as the `chat` tool's turn does).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from mcp import types
from mcp.server.lowlevel import Server

import tfrobot
from tfrobotserver.actions.injected import Principal
from tfrobotserver.app.errors import ApiError
from tfrobotserver.app.runtime import Runtime
from tfrobotserver.mcp.chat import CHAT_TOOL, call_chat, chat_tool
from tfrobotserver.mcp.resources import RobotResources
from tfrobotserver.mcp.tools import action_tools, error_result

PrincipalOf = Callable[[Any], Principal]
"""The transport's request (a Starlette `Request` over HTTP, None over stdio) → the caller."""


def build_server(runtime: Runtime, robot: str, principal_of: PrincipalOf) -> Server[Any, Any]:
    """The MCP server of `runtime`'s robot `robot`: its actions and `chat` as tools, its stores as resources."""
    found = runtime.robots[robot]
    tools = action_tools(found)
    chat = chat_tool(robot) if found.agent is not None else None
    resources = RobotResources(runtime, found)
    server: Server[Any, Any] = Server(
        f"tfrobot-{robot}", version=tfrobot.__version__, instructions=found.description or None
    )

    def caller() -> Principal:
        return replace(principal_of(server.request_context.request), unattended=True)  # a model may be calling

    async def list_tools(request: types.ListToolsRequest) -> types.ServerResult:
        principal = caller()
        shown = [t.tool for t in tools.values() if t.scope in principal.scopes]
        if chat is not None and "write" in principal.scopes:
            shown.append(chat)
        return types.ServerResult(types.ListToolsResult(tools=shown))

    async def call_tool(request: types.CallToolRequest) -> types.ServerResult:
        name, arguments = request.params.name, request.params.arguments or {}
        principal = caller()
        try:
            if chat is not None and name == CHAT_TOOL:
                return types.ServerResult(await call_chat(runtime, principal, robot, arguments))
            tool = tools.get(name)
            if tool is None:
                known = sorted([*tools, *([CHAT_TOOL] if chat is not None else [])])
                raise ApiError(404, "not_found", f"robot {robot!r} has no tool {name!r}; it has {known}")
            return types.ServerResult(await tool.call(runtime, principal, robot, arguments))
        except ApiError as err:
            return types.ServerResult(error_result(err))

    async def list_templates(request: types.ListResourceTemplatesRequest) -> types.ServerResult:
        return types.ServerResult(types.ListResourceTemplatesResult(resourceTemplates=resources.templates()))

    async def list_resources(request: types.ListResourcesRequest) -> types.ServerResult:
        cursor = request.params.cursor if request.params is not None else None
        return types.ServerResult(await resources.list(caller(), cursor))

    async def read_resource(request: types.ReadResourceRequest) -> types.ServerResult:
        return types.ServerResult(await resources.read(caller(), str(request.params.uri)))

    server.request_handlers.update(
        {
            types.ListToolsRequest: list_tools,
            types.CallToolRequest: call_tool,
            types.ListResourceTemplatesRequest: list_templates,
            types.ListResourcesRequest: list_resources,
            types.ReadResourceRequest: read_resource,
        }
    )
    return server
