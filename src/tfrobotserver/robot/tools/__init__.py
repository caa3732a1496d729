"""A robot's tools: the robot file's entries (`entries`), the catalog that builds them from built-ins,
Python callables and MCP servers (`catalog`), and the tools component that serves them (`component`)."""

from tfrobotserver.robot.tools.catalog import SourceInfo, ToolCatalog
from tfrobotserver.robot.tools.component import ToolsComponent
from tfrobotserver.robot.tools.entries import MCPTools, PythonTools, ToolEntry, ToolOptions
from tfrobotserver.robot.tools.python import BUILTIN_TOOLS, import_object, python_tools

__all__ = [
    "BUILTIN_TOOLS",
    "MCPTools",
    "PythonTools",
    "SourceInfo",
    "ToolCatalog",
    "ToolEntry",
    "ToolOptions",
    "ToolsComponent",
    "import_object",
    "python_tools",
]
