"""`tfrobot mcp ROBOT`: one robot as an MCP server on standard input and output.

The server's own configuration decides what the robot is and where its data lives (the same
`--config` directory as `tfrobot serve`); only the chosen robot is started. The caller is the local
user, with both scopes or, with `--read-only`, the read scope only: then the tools are the read
actions and nothing can be changed. Nothing but MCP messages is written to standard output.
"""

from __future__ import annotations

from collections.abc import Sequence

from mcp.server.stdio import stdio_server

from tfrobotserver.actions.injected import Principal
from tfrobotserver.app.auth import LOCAL
from tfrobotserver.app.runtime import Runtime
from tfrobotserver.app.settings import ServerSettings
from tfrobotserver.mcp.server import build_server
from tfrobotserver.robot.base import Robot

READ_ONLY = Principal(name="local", scopes=frozenset({"read"}))


def local_principal(read_only: bool) -> Principal:
    """The local user: read and write, or read only."""
    return READ_ONLY if read_only else LOCAL


def pick_robot(robots: Sequence[Robot], name: str) -> Robot:
    """The robot called `name`, or a ValueError listing the configured ones."""
    for robot in robots:
        if robot.name == name:
            return robot
    raise ValueError(f"no robot {name!r} in this configuration; configured robots: {sorted(r.name for r in robots)}")


async def serve_stdio(settings: ServerSettings, robot: Robot, principal: Principal) -> None:
    """Start `robot` on `settings`' database and answer MCP messages on stdin/stdout until stdin closes."""
    runtime = Runtime(settings, [robot])
    try:
        await runtime.ensure_started()
        server = build_server(runtime, robot.name, lambda _request: principal)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
    finally:
        await runtime.aclose()
