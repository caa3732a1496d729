"""The hooks the agent loop calls; each is a pass-through unless a tracer provider is set.

The OpenTelemetry packages are imported on the first hook call, not with `tfrobot`: a process that never
traces never loads them, and a process without the `otel` extra finds that out once.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Final, TypeVar

from tfrobot.schema.message import BaseMessage, ConsoleResult, ToolCall, ToolReturn, UserMessage
from tfrobot.telemetry.policy import ModelSettings

if TYPE_CHECKING:
    from tfrobot.telemetry.spans import Recorder

T = TypeVar("T")

PROVIDER_ENV: Final = "OTEL_PYTHON_TRACER_PROVIDER"
"""The API's variable naming a provider it builds on first use (the one way to have one without an import)."""


class _Loader:
    """The spans module's `active_recorder`, imported on the first hook call that may need it; `missing`
    once the `otel` extra turned out not to be installed."""

    active: Callable[[], Recorder | None] | None = None
    missing = False
    provider_env = PROVIDER_ENV in os.environ
    """Read at import, like the SDK's other variables that are set before a process starts: with it, the API
    builds a provider on first use without anyone importing OpenTelemetry first."""


def tracing() -> Recorder | None:
    """The recorder of the tracer provider in force, None when nothing traces (no extra, no provider set,
    or the SDK disabled by `OTEL_SDK_DISABLED`)."""
    active = _Loader.active
    if active is not None:
        return active()
    if _Loader.missing or ("opentelemetry.trace" not in sys.modules and not _Loader.provider_env):
        return None  # nothing in this process uses OpenTelemetry, so no provider can be set: not even an import
    try:
        from tfrobot.telemetry.spans import active_recorder
    except ImportError:  # the `otel` extra is not installed
        _Loader.missing = True
        return None
    _Loader.active = active_recorder
    return active_recorder()


def traced_turn(events: AsyncIterator[T], llm: ModelSettings, user_input: UserMessage) -> AsyncIterator[T]:
    """A chain's turn (`events`) inside an `invoke_agent` span, current while the turn works."""
    recorder = tracing()
    return events if recorder is None else recorder.turn(events, llm, user_input)


def traced_chat(
    events: AsyncIterator[T],
    llm: ModelSettings,
    history: Sequence[BaseMessage],
    user_input: UserMessage,
    intermediate_msgs: Sequence[BaseMessage],
) -> AsyncIterator[T]:
    """One LLM call (`events`, ending with its `AssistantStep`) inside a `chat {model}` span; the prompt
    (`history`, `user_input`, `intermediate_msgs`) is recorded only when contents are captured."""
    recorder = tracing()
    return events if recorder is None else recorder.chat(events, llm, (history, (user_input,), intermediate_msgs))


def traced_tool(call: ToolCall, job: Awaitable[ToolReturn]) -> Awaitable[ToolReturn]:
    """One tool call (`job`) inside an `execute_tool {name}` span."""
    recorder = tracing()
    return job if recorder is None else recorder.tool(call, job)


def traced_tfl(script: str, job: Awaitable[ConsoleResult]) -> Awaitable[ConsoleResult]:
    """One TFL script run (`job`) inside an `execute_tool tfl` span."""
    recorder = tracing()
    return job if recorder is None else recorder.tfl(script, job)


def traced_response_id(response_id: str | None) -> None:
    """The provider's id of the reply being received, on the LLM call's `chat` span (`gen_ai.response.id`);
    called by the LLM layer where it reads the id, nothing when no chat span is being recorded."""
    if response_id:
        recorder = tracing()
        if recorder is not None:
            recorder.response_id(response_id)


def traced_script_tool(name: str, job: Awaitable[T]) -> Awaitable[T]:
    """A tool call of a TFL script (`job`) inside an `execute_tool {name}` span, under the script's span."""
    recorder = tracing()
    return job if recorder is None else recorder.script_tool(name, job)
