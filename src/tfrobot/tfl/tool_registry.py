"""How the interpreter sees tools: a name, a signature it can check without running, and an async call.

The interpreter depends only on the `TFLToolRegistry` protocol, so the Drive (the tool layer) can adapt
its own tools to it without TFL importing the Drive. `CallableToolRegistry` builds a registry from plain
Python callables, for tests, demos and small robots.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True)
class TFLToolSignature:
    """What `validate()` needs to know about a tool to check a call without making it.

    Positional arguments in a script are bound to `parameters` in order (when `positional` allows),
    so a tool itself always receives keyword arguments: the same shape as an LLM's JSON tool call.
    """

    name: str
    parameters: tuple[str, ...] = ()
    required: frozenset[str] = field(default_factory=frozenset)
    positional: bool = True
    any_keyword: bool = False
    description: str = ""


@runtime_checkable
class TFLToolRegistry(Protocol):
    """The tools a script may call. `acall` may raise or time out: the interpreter reports either."""

    def names(self) -> Collection[str]:
        """Every callable tool name."""
        ...

    def signature(self, name: str) -> TFLToolSignature | None:
        """The signature of `name`, or None when there is no such tool."""
        ...

    async def acall(self, name: str, arguments: dict[str, Any]) -> object:
        """Run a tool with keyword arguments and return a JSON-like value, a media part, a `ToolReturn`
        or a `tfrobot.tfl.values.ToolResult`."""
        ...


def signature_of(fn: Callable[..., Any], name: str) -> TFLToolSignature:
    """Read a callable's parameters; positional-only ones are refused (TFL binds by name)."""
    params: list[str] = []
    required: set[str] = set()
    any_keyword = False
    for param in inspect.signature(fn).parameters.values():
        if param.kind is param.VAR_KEYWORD:
            any_keyword = True
        elif param.kind is param.VAR_POSITIONAL:
            raise TypeError(f"tool {name}: *args cannot be called by keyword; name every parameter")
        elif param.kind is param.POSITIONAL_ONLY:
            raise TypeError(f"tool {name}: positional-only parameter {param.name!r}; TFL passes keywords")
        else:
            params.append(param.name)
            if param.default is param.empty:
                required.add(param.name)
    doc = inspect.getdoc(fn) or ""
    return TFLToolSignature(
        name=name,
        parameters=tuple(params),
        required=frozenset(required),
        any_keyword=any_keyword,
        description=doc.split("\n\n")[0],
    )


class CallableToolRegistry:
    """A registry of Python callables, sync or async. Sync ones run in a worker thread, so that the
    interpreter's time-outs hold even for a tool that blocks."""

    def __init__(
        self,
        tools: Mapping[str, Callable[..., Any]] | Iterable[Callable[..., Any]] = (),
        *,
        positional: bool = True,
    ) -> None:
        self._tools: dict[str, Callable[..., Any]] = {}
        self._signatures: dict[str, TFLToolSignature] = {}
        items = tools.items() if isinstance(tools, Mapping) else ((fn.__name__, fn) for fn in tools)
        for name, fn in items:
            self.register(fn, name=name, positional=positional)

    def register(self, fn: Callable[..., Any], *, name: str | None = None, positional: bool = True) -> None:
        """Add a tool; a second tool with the same name is an error rather than a silent replacement."""
        key = name or fn.__name__
        if not key.isidentifier():
            raise ValueError(f"tool name {key!r} is not a TFL name (letters, digits and _)")
        if key in self._tools:
            raise ValueError(f"a tool named {key!r} is already registered")
        sig = signature_of(fn, key)
        self._tools[key] = fn
        self._signatures[key] = replace(sig, positional=positional)

    def names(self) -> Collection[str]:
        return tuple(self._tools)

    def signature(self, name: str) -> TFLToolSignature | None:
        return self._signatures.get(name)

    async def acall(self, name: str, arguments: dict[str, Any]) -> object:
        fn = self._tools[name]
        if inspect.iscoroutinefunction(fn):
            result: object = await fn(**arguments)
            return result
        value = await asyncio.get_running_loop().run_in_executor(None, lambda: fn(**arguments))
        if inspect.isawaitable(value):  # a sync wrapper returning a coroutine (functools.partial of async)
            awaited: object = await value
            return awaited
        return value
