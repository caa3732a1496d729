"""TFL, TFRobot's small and safe scripting language: the assistant writes scripts (`tfl_scripts`), the
interpreter runs them against registered tools and reports a `ConsoleResult` (role="console").

    from tfrobot.tfl import TFLInterpreter
    console = TFLInterpreter({"search": search}).run('hits = search(query="cats")\\nprint(len(hits))')

The grammar is `grammar.lark` in this package; docs/tfl.md documents the language.
"""

from __future__ import annotations

from tfrobot.tfl.checker import BUILTINS, tool_name_problem
from tfrobot.tfl.errors import ErrorKind, TFLError, TFLScriptError
from tfrobot.tfl.interpreter import TFLInterpreter, seconds_of
from tfrobot.tfl.limits import TFLLimits
from tfrobot.tfl.parser import grammar_text, parse
from tfrobot.tfl.tool_registry import CallableToolRegistry, TFLToolRegistry, TFLToolSignature
from tfrobot.tfl.values import ToolResult

__all__ = [
    "BUILTINS",
    "CallableToolRegistry",
    "ErrorKind",
    "TFLError",
    "TFLInterpreter",
    "TFLLimits",
    "TFLScriptError",
    "TFLToolRegistry",
    "TFLToolSignature",
    "ToolResult",
    "grammar_text",
    "parse",
    "seconds_of",
    "tool_name_problem",
]
