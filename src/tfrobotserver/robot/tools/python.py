"""Python tools named in a robot file: a built-in name, `module:function`, or `module:*`.

Built-ins are a small registry of names for tools that ship with TFRobot (the demo's `weather` and
`chart`, and `word_count` from `tfrobot.drive.builtins`); the demo robot is only the configuration that
uses the first two. `module:*` takes the names in
the module's `__all__` that are callables or `Tool`s, or — without `__all__` — the module's `Tool`
objects (functions decorated with `@tool`). Anything that cannot be imported or called is an error that
names the entry and the fix.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from tfrobot.drive import BaseTool, Tool

BUILTIN_TOOLS: dict[str, str] = {
    "weather": "tfrobot.brain.demo:weather",
    "chart": "tfrobot.brain.demo:chart",
    "word_count": "tfrobot.drive.builtins:word_count",
}
"""Built-in tool names and the callables they stand for."""


def import_object(path: str) -> Any:
    """The object `module:attribute` names; a clear `ValueError` when it is not there."""
    module_name, sep, attr = path.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"{path!r} is not `module:attribute` (e.g. myapp.tools:lookup_order)")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(
            f"cannot import module {module_name!r} ({exc}); put {module_name.split('.')[0]}.py (or the package) "
            "next to the robot file, install it, or put it on the server's PYTHONPATH"
        ) from None
    if attr == "*":
        return module
    if not hasattr(module, attr):
        raise ValueError(f"module {module_name!r} has no {attr!r}; check the name after the colon")
    return getattr(module, attr)


def _as_tool(obj: Any, where: str) -> BaseTool:
    if isinstance(obj, BaseTool):
        return obj
    if inspect.isclass(obj) or not callable(obj):
        raise ValueError(f"{where} is a {type(obj).__name__}, not a function or a Tool; name a function")
    try:
        return Tool(obj)
    except TypeError as exc:
        raise ValueError(f"{where}: {exc}") from None


def python_tools(reference: str) -> list[BaseTool]:
    """The tools `reference` names: a built-in name, `module:function` or `module:*`."""
    if ":" not in reference:
        if reference not in BUILTIN_TOOLS:
            raise ValueError(
                f"unknown built-in tool {reference!r}; built-ins: {sorted(BUILTIN_TOOLS)}, or name a Python "
                "callable as module:function"
            )
        reference = BUILTIN_TOOLS[reference]
    found = import_object(reference)
    if not reference.endswith(":*"):
        return [_as_tool(found, reference)]
    exported = getattr(found, "__all__", None)
    if exported is not None:
        objects = {name: getattr(found, name) for name in exported}
        tools = [
            _as_tool(obj, f"{reference} ({name})")
            for name, obj in objects.items()
            if isinstance(obj, BaseTool) or (callable(obj) and not inspect.isclass(obj))
        ]
    else:
        tools = [obj for obj in vars(found).values() if isinstance(obj, BaseTool)]
    if not tools:
        raise ValueError(
            f"{reference} gives no tools: list the module's tool functions in its __all__, or decorate them "
            "with tfrobot.drive.tool"
        )
    return tools
