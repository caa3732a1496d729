"""Names say sync or async: a public coroutine or async-iterator method is `a`-prefixed, its sync twin is not.

The rule (issue 16) covers the classes a caller drives a turn through — `Brain`, `Chain`, `ChatLLM`, tools
(`BaseTool`, the `Drive`, TFL tool registries) and `TFLInterpreter` — and every subclass of them in
`tfrobot`, so `arun` next to `run` reads as a pair and `await brain.run(...)` cannot be written by habit.
The walk imports every module of `tfrobot`, so a new subclass anywhere is checked without being listed.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from functools import cached_property

import tfrobot
from tfrobot.brain import Brain
from tfrobot.brain.chain.base import Chain
from tfrobot.brain.chain.llms import ChatLLM
from tfrobot.drive import BaseTool, Drive
from tfrobot.tfl import TFLInterpreter, TFLToolRegistry

FAMILIES: tuple[type, ...] = (Brain, Chain, ChatLLM, BaseTool, Drive, TFLInterpreter)

ASYNC_RETURNS = ("AsyncIterator", "AsyncIterable", "AsyncGenerator", "Awaitable", "Coroutine")
"""Return annotations of a plain `def` that hands back something to await or `async for` (`Chain.astream`)."""

ASYNC_VERBS = frozenset({"run", "stream", "generate", "execute", "invoke", "call", "history", "plan", "close"})
"""`a` + one of these on a sync method reads as an async name even when the class has no bare twin."""


def _is_async(fn: object) -> bool:
    if inspect.iscoroutinefunction(fn) or inspect.isasyncgenfunction(fn):
        return True
    returns = str(getattr(fn, "__annotations__", {}).get("return", ""))
    return returns.rsplit(".", 1)[-1].startswith(ASYNC_RETURNS)


def _methods(cls: type) -> dict[str, object]:
    """The public functions `cls` has from tfrobot code (its own and inherited), properties left out."""
    found: dict[str, object] = {}
    for klass in reversed(cls.__mro__):
        if not klass.__module__.startswith("tfrobot"):
            continue
        for name, value in vars(klass).items():
            if name.startswith("_") or isinstance(value, (property, cached_property)):
                continue
            fn = value.__func__ if isinstance(value, (staticmethod, classmethod)) else value
            if inspect.isfunction(fn):
                found[name] = fn
    return found


def misnamed(cls: type) -> list[str]:
    """`Class.method: why` for each method of `cls` whose name does not say whether it is async."""
    methods = _methods(cls)
    problems = []
    for name, fn in sorted(methods.items()):
        prefixed = name.startswith("a") and (name[1:] in methods or name[1:] in ASYNC_VERBS)
        if _is_async(fn) and not prefixed:
            problems.append(f"{cls.__qualname__}.{name}: async, so name it a{name}")
        elif not _is_async(fn) and prefixed:
            problems.append(f"{cls.__qualname__}.{name}: sync, so drop the `a` prefix (or make it async)")
    return problems


def _public_classes() -> list[type]:
    """Every public class defined in a public module of `tfrobot` (Alembic's env script is not a module)."""
    classes: dict[str, type] = {}
    for info in pkgutil.walk_packages(tfrobot.__path__, "tfrobot."):
        if any(part.startswith("_") for part in info.name.split(".")) or ".migrations" in info.name:
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if inspect.isclass(value) and not name.startswith("_") and value.__module__ == info.name:
                classes[f"{info.name}.{name}"] = value
    return list(classes.values())


def _in_rule(cls: type) -> bool:
    return issubclass(cls, FAMILIES) or issubclass(cls, TFLToolRegistry)


def test_every_turn_class_names_its_async_methods_with_an_a_prefix() -> None:
    checked = [cls for cls in _public_classes() if _in_rule(cls)]
    names = {cls.__name__ for cls in checked}
    assert {"Brain", "DCBrain", "Chain", "DCChains", "ScriptedChat", "Tool", "MCPTool", "Drive"} <= names
    assert {"TFLInterpreter", "CallableToolRegistry", "DriveToolRegistry"} <= names
    assert [problem for cls in checked for problem in misnamed(cls)] == []


def test_the_check_flags_both_ways_of_getting_it_wrong() -> None:
    class Wrong:
        async def run(self) -> None: ...

        def aexecute(self) -> None: ...

        def astream(self) -> int:
            return 0

        def stream(self) -> int:
            return 0

    class Right:
        async def arun(self) -> None: ...

        def run(self) -> None: ...

        def add(self) -> None: ...

        def apply(self) -> None: ...

    Wrong.__module__ = Right.__module__ = "tfrobot.example"
    assert misnamed(Wrong) == [
        "test_the_check_flags_both_ways_of_getting_it_wrong.<locals>.Wrong.aexecute: sync, so drop the `a`"
        " prefix (or make it async)",
        "test_the_check_flags_both_ways_of_getting_it_wrong.<locals>.Wrong.astream: sync, so drop the `a`"
        " prefix (or make it async)",
        "test_the_check_flags_both_ways_of_getting_it_wrong.<locals>.Wrong.run: async, so name it arun",
    ]
    assert misnamed(Right) == []
