"""Robots as MCP servers: each TFSAction a tool, `chat` a tool, stored conversations and documents resources.

`tfrobot serve` answers MCP at `/api/robots/{robot}/mcp` (streamable HTTP, under the server's bearer
tokens); `tfrobot mcp ROBOT` serves one robot over stdio. Both run the same `build_server`, and every
call goes through the code of the HTTP API (`tfrobotserver.app.invoke`).
"""

from tfrobotserver.mcp.chat import CHAT_TOOL
from tfrobotserver.mcp.endpoint import MCP_PATH, McpEndpoint
from tfrobotserver.mcp.resources import SCHEME, resource_uri
from tfrobotserver.mcp.server import build_server
from tfrobotserver.mcp.stdio import local_principal, pick_robot, serve_stdio
from tfrobotserver.mcp.tools import action_tools, output_schema, tool_name

__all__ = [
    "CHAT_TOOL",
    "MCP_PATH",
    "SCHEME",
    "McpEndpoint",
    "action_tools",
    "build_server",
    "local_principal",
    "output_schema",
    "pick_robot",
    "resource_uri",
    "serve_stdio",
    "tool_name",
]
