"""One tool: a typed Python callable, its JSON Schema, and a safe way to run it from LLM arguments."""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Awaitable, Callable
from functools import cached_property
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from tfrobot.schema.message import MediaPart, MsgPart, ToolCall, ToolReturn
from tfrobot.schema.tool_definition import ToolDefinition


class ToolOutput(BaseModel):
    """What a tool may return when it has media to show: text for the LLM plus attachments."""

    result: Any = ""
    attachments: list[MsgPart] = Field(default_factory=list)


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


def _render(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    return json.dumps(value, ensure_ascii=False, default=str)


class ToolFailure(Exception):
    """A tool call that raised or timed out; its text is what the LLM (or the script) is told."""


class Tool:
    """A callable the LLM may call. Arguments are validated against the signature before the call."""

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        timeout: float = 30.0,
    ) -> None:
        self.fn = fn
        self.name = name or fn.__name__
        self.description = description if description is not None else _description(fn)
        self.timeout = timeout
        self.arguments = _arguments_model(fn, self.name)

    @cached_property
    def spec(self) -> ToolDefinition:
        """The tool as the LLM sees it (provider adapters clean and convert it)."""
        schema = self.arguments.model_json_schema()
        schema.pop("title", None)
        return ToolDefinition(name=self.name, description=self.description, parameters=schema)

    async def run(self, call: ToolCall) -> ToolReturn:
        """Run one call; never raises: bad arguments, exceptions and time-outs become error results."""
        try:
            value = await self.invoke(self.arguments.model_validate_json(call.arguments or "{}"))
        except (ValidationError, ToolFailure) as exc:
            return ToolReturn(call_id=call.id, name=self.name, is_error=True, result=self.failure_text(exc))
        return self._to_return(call, value)

    async def invoke(self, arguments: BaseModel) -> Any:
        """Call the tool with validated `arguments` (an instance of `self.arguments`) and return what it
        returned, as it returned it; its exceptions and the time-out become a `ToolFailure`."""
        values = {key: getattr(arguments, key) for key in type(arguments).model_fields}
        try:
            pending: Awaitable[Any]
            if inspect.iscoroutinefunction(self.fn):
                pending = self.fn(**values)
            else:
                pending = asyncio.to_thread(self.fn, **values)
            return await asyncio.wait_for(pending, timeout=self.timeout)
        except TimeoutError:
            raise ToolFailure(f"{self.name} timed out after {self.timeout:g} s") from None
        except Exception as exc:  # the LLM must see the failure, the turn must go on
            raise ToolFailure(f"{self.name} failed: {type(exc).__name__}: {exc}") from exc

    def failure_text(self, exc: ValidationError | ToolFailure) -> str:
        """What the caller is told of invalid arguments or a failed call."""
        if isinstance(exc, ToolFailure):
            return str(exc)
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors())
        return f"invalid arguments for {self.name}: {problems}"

    def _to_return(self, call: ToolCall, value: Any) -> ToolReturn:
        if isinstance(value, ToolReturn):
            return value.model_copy(update={"call_id": call.id, "name": self.name})
        if isinstance(value, ToolOutput):
            return ToolReturn(
                call_id=call.id, name=self.name, result=_render(value.result), attachments=value.attachments
            )
        if isinstance(value, MediaPart):
            return ToolReturn(call_id=call.id, name=self.name, result="[attachment]", attachments=[value])
        return ToolReturn(call_id=call.id, name=self.name, result=_render(value))


def tool(fn: Callable[..., Any] | None = None, *, name: str | None = None, timeout: float = 30.0) -> Any:
    """Decorator: ``@tool`` or ``@tool(name=..., timeout=...)`` turns a function into a `Tool`."""

    def wrap(f: Callable[..., Any]) -> Tool:
        return Tool(f, name=name, timeout=timeout)

    return wrap(fn) if fn is not None else wrap
