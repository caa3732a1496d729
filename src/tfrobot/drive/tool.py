"""Tools: what the LLM may call, its JSON Schema, and a safe way to run it from LLM arguments.

`BaseTool` holds what every tool shares — name, description, time-out, whether a call needs the
user's confirmation (`confirm`) and whether it only reads (`read_only`) — and the one way a call runs:
validate the arguments, call under the time-out, turn failures into error results. `Tool` is a typed
Python callable (its signature is the schema); other sources (an MCP server's tools,
`tfrobot.drive.mcp`) subclass `BaseTool` with their own schema and call.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import json
import logging
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from functools import cached_property
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic_core import PydanticSerializationError

from tfrobot.schema.message import MediaPart, MsgPart, ToolCall, ToolReturn
from tfrobot.schema.tool_definition import ToolDefinition

_log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 30.0
"""Seconds a tool call may take unless the tool says otherwise."""


class ToolOutput(BaseModel):
    """What a tool may return when it has media to show: text for the LLM plus attachments."""

    result: Any = ""
    attachments: list[MsgPart] = Field(default_factory=list)


class ToolFailure(Exception):
    """A tool call that raised or timed out; its text is what the LLM (or the script) is told."""


class ToolArgumentsError(ValueError):
    """Arguments that do not fit the tool's schema; its text names every problem, for the LLM to fix."""


def _description(fn: Callable[..., Any]) -> str:
    return inspect.cleandoc(fn.__doc__ or "").split("\n\n")[0].replace("\n", " ").strip()


def _arguments_model(fn: Callable[..., Any], name: str) -> type[BaseModel]:
    """A pydantic model of the callable's parameters: the source of both the schema and the validation."""
    hints = get_type_hints(fn, include_extras=True)
    fields: dict[str, Any] = {}
    for param in inspect.signature(fn).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise TypeError(f"tool {name}: *args/**kwargs cannot be described to an LLM; name every parameter")
        annotation = hints.get(param.name, Any)
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (annotation, default)
    model: type[BaseModel] = create_model(f"{name}_arguments", __config__=ConfigDict(extra="forbid"), **fields)
    return model


def render(value: Any) -> str:
    """A tool's value as the text of its `ToolReturn`: strings as they are, anything else as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    return json.dumps(value, ensure_ascii=False, default=str)


class BaseTool(ABC):
    """A tool the LLM may call. Arguments are validated before the call; a call never raises."""

    def __init__(
        self,
        name: str,
        description: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        confirm: bool = False,
        read_only: bool = False,
    ) -> None:
        if timeout <= 0:
            raise ValueError(f"tool {name}: timeout must be positive seconds, got {timeout}")
        self.name = name
        self.description = description
        self.timeout = timeout
        self.confirm = confirm
        """True: the user must approve each call before it runs (destructive tools)."""
        self.read_only = read_only
        """True: the tool changes nothing (a console may let a read-only token call it)."""

    @property
    @abstractmethod
    def parameters(self) -> dict[str, Any]:
        """The JSON Schema (an object schema) of the arguments."""

    @property
    def parameter_names(self) -> tuple[str, ...]:
        """The argument names, in schema order (TFL binds positional arguments to them)."""
        return tuple(self.parameters.get("properties", {}))

    @property
    def required(self) -> frozenset[str]:
        """The arguments a call must give."""
        return frozenset(self.parameters.get("required", ()))

    @property
    def spec(self) -> ToolDefinition:
        """The tool as the LLM sees it (provider adapters clean and convert it)."""
        return ToolDefinition(name=self.name, description=self.description, parameters=self.parameters)

    @abstractmethod
    def validate(self, arguments: dict[str, Any]) -> Any:
        """The arguments checked against the schema, in the form `_call` takes; `ToolArgumentsError` if not."""

    @abstractmethod
    async def _call(self, arguments: Any) -> Any:
        """Make the call with validated arguments and return the tool's value."""

    def with_options(self, **options: Any) -> BaseTool:
        """A copy with other `name`, `description`, `timeout`, `confirm` or `read_only` (the original stays)."""
        unknown = sorted(set(options) - {"name", "description", "timeout", "confirm", "read_only"})
        if unknown:
            raise TypeError(f"tool {self.name}: unknown options {unknown}")
        if options.get("timeout", self.timeout) <= 0:
            raise ValueError(f"tool {self.name}: timeout must be positive seconds, got {options['timeout']}")
        changed = copy.copy(self)
        for key, value in options.items():
            setattr(changed, key, value)
        return changed

    def validate_json(self, text: str) -> Any:
        """`validate` on the JSON text of an LLM's tool call."""
        try:
            arguments = json.loads(text or "{}")
        except ValueError as exc:
            raise ToolArgumentsError(f"invalid arguments for {self.name}: Invalid JSON: {exc}") from None
        if not isinstance(arguments, dict):
            raise ToolArgumentsError(f"invalid arguments for {self.name}: a JSON object is needed, got {text[:80]}")
        return self.validate(arguments)

    async def arun(self, call: ToolCall) -> ToolReturn:
        """Run one call; never raises: bad arguments, exceptions and time-outs become error results."""
        try:
            value = await self.ainvoke(self.validate_json(call.arguments))
        except (ToolArgumentsError, ToolFailure) as exc:
            return ToolReturn(call_id=call.id, name=self.name, is_error=True, result=str(exc))
        return self._to_return(call, value)

    async def ainvoke(self, arguments: Any) -> Any:
        """Call the tool with validated `arguments` and return what it returned, as it returned it; its
        exceptions and the time-out become a `ToolFailure`."""
        try:
            return await asyncio.wait_for(self._call(arguments), timeout=self.timeout)
        except TimeoutError:
            self._timed_out()
            raise ToolFailure(f"{self.name} timed out after {self.timeout:g} s") from None
        except ToolFailure:  # already says what happened (a source's own failure)
            raise
        except Exception as exc:  # the LLM must see the failure, the turn must go on
            raise ToolFailure(f"{self.name} failed: {type(exc).__name__}: {exc}") from exc

    def _storable_result(self, value: ToolReturn) -> ToolReturn:
        """`value` (a source's own `ToolReturn` subclass, stored whole with its fields), or, when one of its fields
        cannot be written as JSON, a plain `ToolReturn` of what every result holds, with a warning naming the
        class and the fix: the turn goes on and is stored, where the store would refuse the whole turn."""
        try:
            value.model_dump_json()
        except (PydanticSerializationError, ValueError, TypeError) as exc:
            _log.warning(
                "tool %s returned a %s that cannot be stored as JSON (%s); it is kept as a plain ToolReturn without "
                "its own fields. Fix: make those fields JSON-serializable, or mark them `Field(exclude=True)`",
                self.name,
                type(value).__name__,
                exc,
            )
            return ToolReturn(
                call_id=value.call_id, result=value.result, attachments=value.attachments, is_error=value.is_error
            )
        return value

    def _timed_out(self) -> None:  # noqa: B027 - an optional hook, not an abstract one
        """Hook: a call just timed out (a remote tool may check that its server still answers)."""

    def _to_return(self, call: ToolCall, value: Any) -> ToolReturn:
        if isinstance(value, ToolReturn):
            result = value if type(value) is ToolReturn else self._storable_result(value)
            return result.model_copy(update={"call_id": call.id, "name": self.name})
        if isinstance(value, ToolOutput):
            return ToolReturn(
                call_id=call.id, name=self.name, result=render(value.result), attachments=value.attachments
            )
        if isinstance(value, MediaPart):
            return ToolReturn(call_id=call.id, name=self.name, result="[attachment]", attachments=[value])
        return ToolReturn(call_id=call.id, name=self.name, result=render(value))


class Tool(BaseTool):
    """A typed Python callable (sync or async) as a tool: its signature is the schema and the validation."""

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        confirm: bool = False,
        read_only: bool = False,
    ) -> None:
        name = name or fn.__name__
        description = description if description is not None else _description(fn)
        super().__init__(name, description, timeout=timeout, confirm=confirm, read_only=read_only)
        self.fn = fn
        self.arguments = _arguments_model(fn, name)

    @cached_property
    def parameters(self) -> dict[str, Any]:
        """Derived once from the signature: chains built per turn share it."""
        schema = self.arguments.model_json_schema()
        schema.pop("title", None)
        return schema

    def validate(self, arguments: dict[str, Any]) -> BaseModel:
        try:
            return self.arguments.model_validate(arguments)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors())
            raise ToolArgumentsError(f"invalid arguments for {self.name}: {problems}") from None

    async def _call(self, arguments: BaseModel) -> Any:
        values = {key: getattr(arguments, key) for key in type(arguments).model_fields}
        pending: Awaitable[Any]
        pending = self.fn(**values) if inspect.iscoroutinefunction(self.fn) else asyncio.to_thread(self.fn, **values)
        return await pending


def tool(
    fn: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    confirm: bool = False,
    read_only: bool = False,
) -> Any:
    """Decorator: ``@tool`` or ``@tool(name=..., timeout=..., confirm=..., read_only=...)`` makes a `Tool`."""

    def wrap(f: Callable[..., Any]) -> Tool:
        return Tool(f, name=name, timeout=timeout, confirm=confirm, read_only=read_only)

    return wrap(fn) if fn is not None else wrap
