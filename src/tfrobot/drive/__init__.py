"""Drive: the robot's tools. Typed Python callables (and other sources' tools, e.g. an MCP server's)
become tools with JSON Schemas; calls run concurrently, destructive ones after the user's approval, and
every outcome, failures and refusals included, comes back as a `ToolReturn` the LLM can read."""

from tfrobot.drive.builtins import word_count
from tfrobot.drive.confirm import Confirm
from tfrobot.drive.drive import Drive
from tfrobot.drive.tool import BaseTool, Tool, ToolArgumentsError, ToolFailure, ToolOutput, tool

__all__ = [
    "BaseTool",
    "Confirm",
    "Drive",
    "Tool",
    "ToolArgumentsError",
    "ToolFailure",
    "ToolOutput",
    "tool",
    "word_count",
]
