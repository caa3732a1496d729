"""Drive: the robot's tools. Typed Python callables become tools with JSON Schemas; calls run concurrently
and every outcome, failures included, comes back as a `ToolReturn` the LLM can read."""

from tfrobot.drive.drive import Drive
from tfrobot.drive.tool import Tool, ToolOutput, tool

__all__ = ["Drive", "Tool", "ToolOutput", "tool"]
