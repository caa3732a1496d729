"""The spans themselves: `Recorder` turns the agent loop's work into GenAI semantic-convention spans.

Only `hooks.py` imports this module, on first use: it needs the `otel` extra. A span is made current only
while the work it covers runs — around each step of an event stream, never across a `yield` — so the
context is attached and detached in the same step, whichever task consumes the stream, and spans the work
starts (an SDK's HTTP call, the tool calls' tasks) nest under it.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import AsyncIterator, Awaitable, Iterable, Sequence
from contextlib import AbstractContextManager
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Final, TypeVar

from opentelemetry import context, trace
from opentelemetry.context import Context
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
from opentelemetry.semconv.attributes import error_attributes
from opentelemetry.trace import NoOpTracer, NoOpTracerProvider, ProxyTracerProvider, Span, SpanKind, Status, StatusCode
from opentelemetry.util.types import AttributeValue

from tfrobot.schema.message import AssistantTextMessage, BaseMessage, ConsoleResult, ToolCall, ToolReturn, UserMessage
from tfrobot.schema.message.llms.llm_response import Usage
from tfrobot.telemetry.policy import ModelSettings, Redaction, capture_content

T = TypeVar("T")

SCOPE: Final = "tfrobot"
"""The instrumentation scope of every span here."""
PROVIDER_NAMES: Final = {"gemini": gen_ai.GenAiProviderNameValues.GCP_GEMINI.value}
"""Our provider names that the conventions spell otherwise (`gen_ai.provider.name` well-known values)."""
TFL_TOOL: Final = "tfl"
"""`gen_ai.tool.name` of a TFL script run: the model's code-execution tool."""
ERROR_KIND: Final = "tfrobot.error.kind"
"""The typed error's `kind` (what a failed turn is stored as: `rate_limit`, `auth`, …), beside `error.type`."""
TOOL_ERROR: Final = "tool_error"
"""`error.type` of a tool call whose result is an error (tools report failures as results, not exceptions)."""

_CHAT_SPAN: Final = context.create_key("tfrobot.chat_span")
"""The context key of the chat span while its LLM call runs (`Recorder.response_id` finds it there)."""
_USAGE: Final = (
    ("input_tokens", gen_ai.GEN_AI_USAGE_INPUT_TOKENS),
    ("output_tokens", gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS),
    ("cache_read_tokens", gen_ai.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS),
    ("cache_write_tokens", gen_ai.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS),
    ("reasoning_tokens", gen_ai.GEN_AI_USAGE_REASONING_OUTPUT_TOKENS),
)
"""`Usage` field -> attribute. Our `input_tokens` is the whole prompt, cached parts included, as the
conventions count it; cache and reasoning counts are parts of input and output."""


class Recorder:
    """Spans of one tracer (one tracer provider)."""

    def __init__(self, tracer: trace.Tracer) -> None:
        self.tracer = tracer

    async def turn(self, events: AsyncIterator[T], llm: ModelSettings, user_input: UserMessage) -> AsyncIterator[T]:
        """`invoke_agent`: the whole turn, with the tokens of all its LLM calls added up."""
        attributes: dict[str, AttributeValue] = {
            gen_ai.GEN_AI_OPERATION_NAME: gen_ai.GenAiOperationNameValues.INVOKE_AGENT.value,
            gen_ai.GEN_AI_PROVIDER_NAME: provider_name(llm.provider),
            gen_ai.GEN_AI_REQUEST_MODEL: llm.model,
        }
        if user_input.conversation_id:
            attributes[gen_ai.GEN_AI_CONVERSATION_ID] = user_input.conversation_id
        span = self.tracer.start_span("invoke_agent", kind=SpanKind.INTERNAL, attributes=attributes)
        totals: dict[str, int] = {}
        final: AssistantTextMessage | None = None
        ctx = trace.set_span_in_context(span)
        with _ending(span):
            try:
                while not isinstance(event := await _step(events, ctx), _End):
                    message = getattr(event, "message", None)
                    if isinstance(message, AssistantTextMessage):
                        final = message
                        if getattr(event, "type", None) == "assistant" and message.usage is not None:
                            _add_usage(totals, message.usage)
                    yield event
            finally:
                await _close(events, ctx)
            span.set_attributes(totals)
            if final is not None and capture_content():
                span.set_attribute(gen_ai.GEN_AI_OUTPUT_MESSAGES, _json([_output_message(final)]))

    async def chat(
        self, events: AsyncIterator[T], llm: ModelSettings, prompt: Iterable[Sequence[BaseMessage]]
    ) -> AsyncIterator[T]:
        """`chat {model}`: one LLM call; its reply (the event carrying the assistant message) gives the
        response attributes."""
        attributes: dict[str, AttributeValue] = {
            gen_ai.GEN_AI_OPERATION_NAME: gen_ai.GenAiOperationNameValues.CHAT.value,
            gen_ai.GEN_AI_PROVIDER_NAME: provider_name(llm.provider),
            gen_ai.GEN_AI_REQUEST_MODEL: llm.model,
        }
        if llm.temperature is not None:
            attributes[gen_ai.GEN_AI_REQUEST_TEMPERATURE] = llm.temperature
        if llm.max_tokens is not None:
            attributes[gen_ai.GEN_AI_REQUEST_MAX_TOKENS] = llm.max_tokens
        if capture_content():
            attributes[gen_ai.GEN_AI_INPUT_MESSAGES] = _json([_message(m) for msgs in prompt for m in msgs])
        span = self.tracer.start_span(f"chat {llm.model}", kind=SpanKind.CLIENT, attributes=attributes)
        ctx = context.set_value(_CHAT_SPAN, span, trace.set_span_in_context(span))
        with _ending(span):
            try:
                while not isinstance(event := await _step(events, ctx), _End):
                    message = getattr(event, "message", None)
                    if isinstance(message, AssistantTextMessage):
                        span.set_attributes(response_attributes(message))
                        if capture_content():
                            span.set_attribute(gen_ai.GEN_AI_OUTPUT_MESSAGES, _json([_output_message(message)]))
                    yield event
            finally:
                await _close(events, ctx)

    def response_id(self, response_id: str) -> None:
        """`gen_ai.response.id` on the chat span whose call is running (none outside one: an LLM called on
        its own leaves the caller's spans alone)."""
        span = context.get_value(_CHAT_SPAN)
        if isinstance(span, Span):
            span.set_attribute(gen_ai.GEN_AI_RESPONSE_ID, response_id)

    def _current(self, name: str, attributes: dict[str, AttributeValue]) -> AbstractContextManager[Span]:
        """A new internal span, current inside the block; `_ending` ends it and records its error, once."""
        return self.tracer.start_as_current_span(
            name,
            kind=SpanKind.INTERNAL,
            attributes=attributes,
            end_on_exit=False,
            record_exception=False,
            set_status_on_exception=False,
        )

    async def tool(self, call: ToolCall, job: Awaitable[ToolReturn]) -> ToolReturn:
        """`execute_tool {name}`: one tool call; an error result sets `error.type`."""
        attributes: dict[str, AttributeValue] = {
            gen_ai.GEN_AI_OPERATION_NAME: gen_ai.GenAiOperationNameValues.EXECUTE_TOOL.value,
            gen_ai.GEN_AI_TOOL_NAME: call.name,
            gen_ai.GEN_AI_TOOL_CALL_ID: call.id,
            gen_ai.GEN_AI_TOOL_TYPE: "function",
        }
        capture = capture_content()
        if capture:
            attributes[gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS] = call.arguments
        with self._current(f"execute_tool {call.name}", attributes) as span, _ending(span):
            returned = await job
            if capture:
                span.set_attribute(gen_ai.GEN_AI_TOOL_CALL_RESULT, returned.result)
            if returned.is_error:
                span.set_attribute(error_attributes.ERROR_TYPE, TOOL_ERROR)
                span.set_status(Status(StatusCode.ERROR, "the tool call returned an error result"))
            return returned

    async def script_tool(self, name: str, job: Awaitable[T]) -> T:
        """`execute_tool {name}` of a tool a TFL script called (no call id: the script called it, not the
        model); a failure is the exception the script sees (`ToolFailure`, bad arguments), recorded."""
        attributes: dict[str, AttributeValue] = {
            gen_ai.GEN_AI_OPERATION_NAME: gen_ai.GenAiOperationNameValues.EXECUTE_TOOL.value,
            gen_ai.GEN_AI_TOOL_NAME: name,
            gen_ai.GEN_AI_TOOL_TYPE: "function",
        }
        with self._current(f"execute_tool {name}", attributes) as span, _ending(span):
            return await job

    async def tfl(self, script: str, job: Awaitable[ConsoleResult]) -> ConsoleResult:
        """`execute_tool tfl`: one TFL script; a script error sets `error.type` to its kind (`name`, `syntax`,
        `timeout`, …)."""
        attributes: dict[str, AttributeValue] = {
            gen_ai.GEN_AI_OPERATION_NAME: gen_ai.GenAiOperationNameValues.EXECUTE_TOOL.value,
            gen_ai.GEN_AI_TOOL_NAME: TFL_TOOL,
            gen_ai.GEN_AI_TOOL_TYPE: "extension",
        }
        capture = capture_content()
        if capture:
            attributes[gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS] = script
        with self._current(f"execute_tool {TFL_TOOL}", attributes) as span, _ending(span):
            result = await job
            meta = result.trace_meta or {}
            span.set_attributes(
                {
                    f"tfrobot.tfl.{key}": value
                    for key in ("steps", "tool_calls", "duration_ms")
                    if isinstance(value := meta.get(key), int | float)
                }
            )
            if capture:
                span.set_attribute(gen_ai.GEN_AI_TOOL_CALL_RESULT, result.result)
            error = meta.get("error")
            if isinstance(error, dict):
                span.set_attribute(error_attributes.ERROR_TYPE, str(error.get("kind", "tfl_error")))
                span.set_status(Status(StatusCode.ERROR, "the TFL script failed"))
            return result


def active_recorder() -> Recorder | None:
    """The recorder of the global tracer provider; None when it cannot record (none set, or disabled)."""
    provider = trace.get_tracer_provider()
    cached = _Cache.entry
    if cached is not None and cached[0] is provider:
        return cached[1]
    recorder: Recorder | None = None
    if not isinstance(provider, ProxyTracerProvider | NoOpTracerProvider):
        tracer = provider.get_tracer(SCOPE, _version())
        recorder = None if isinstance(tracer, NoOpTracer) else Recorder(tracer)  # OTEL_SDK_DISABLED=true
    _Cache.entry = (provider, recorder)
    return recorder


class _Cache:
    """The last provider seen and its recorder: a provider is looked at once, not at every hook."""

    entry: tuple[trace.TracerProvider, Recorder | None] | None = None


def provider_name(provider: str) -> str:
    """`gen_ai.provider.name` of one of our providers."""
    return PROVIDER_NAMES.get(provider, provider)


def response_attributes(reply: AssistantTextMessage) -> dict[str, AttributeValue]:
    """The `gen_ai.response.*` and `gen_ai.usage.*` attributes of a reply, as far as the provider said."""
    attributes: dict[str, AttributeValue] = {}
    if reply.model:
        attributes[gen_ai.GEN_AI_RESPONSE_MODEL] = reply.model.split(":", 1)[-1]
    if reply.finish_reason:
        attributes[gen_ai.GEN_AI_RESPONSE_FINISH_REASONS] = (reply.finish_reason,)
    if reply.usage is not None:
        totals: dict[str, int] = {}
        _add_usage(totals, reply.usage)
        attributes.update(totals)
    return attributes


def _add_usage(totals: dict[str, int], usage: Usage) -> None:
    """Add `usage` to `totals` (attribute -> tokens); zero counts of cache and reasoning are left out."""
    for field, attribute in _USAGE:
        count: int = getattr(usage, field)
        if count or attribute in (gen_ai.GEN_AI_USAGE_INPUT_TOKENS, gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS):
            totals[attribute] = totals.get(attribute, 0) + count


class _End:
    """What `_step` returns once the stream is exhausted."""


_END: Final = _End()


async def _step(events: AsyncIterator[T], ctx: Context) -> T | _End:
    """The next of `events`, produced with `ctx` (its span) current: attached and detached in this one
    step, whichever task runs it; `_END` after the last."""
    token = context.attach(ctx)
    try:
        return await anext(events)
    except StopAsyncIteration:
        return _END
    finally:
        context.detach(token)


async def _close(events: AsyncIterator[T], ctx: Context) -> None:
    """Close `events` under `ctx` when its consumer stopped early (a no-op on an exhausted stream), so the
    code after its last `yield` (storing a turn) runs inside the span, before the span ends."""
    closing = getattr(events, "aclose", None)
    if closing is not None:
        token = context.attach(ctx)
        try:
            await closing()
        finally:
            context.detach(token)


class _ending:
    """Ends `span` when the block ends; an exception leaving it is recorded with its type (`error.type`, the
    class name, and the typed error's `kind`) and sets the span's status to error."""

    def __init__(self, span: Span) -> None:
        self.span = span

    def __enter__(self) -> Span:
        return self.span

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        if exc is not None:
            record_error(self.span, exc)
        self.span.end()


def record_error(span: Span, exc: BaseException) -> None:
    """`exc` on `span`: the exception event, `error.type`, the error's `kind` when typed, an error status;
    its message and stack trace cleaned by `Redaction.text` when one is set (the server's credential mask)."""
    redact = Redaction.text or str
    message = redact(str(exc))
    span.record_exception(
        exc,
        attributes={
            "exception.message": message,
            "exception.stacktrace": redact("".join(traceback.format_exception(exc))),
        },
    )
    span.set_attribute(error_attributes.ERROR_TYPE, type(exc).__qualname__)
    kind = getattr(exc, "kind", None)
    if isinstance(kind, str):
        span.set_attribute(ERROR_KIND, kind)
    span.set_status(Status(StatusCode.ERROR, f"{type(exc).__name__}: {message}"[:300]))


def _message(msg: BaseMessage) -> dict[str, Any]:
    """A message in the conventions' `gen_ai.input.messages` form: role and parts."""
    parts: list[dict[str, Any]] = []
    if msg.role == "tool":
        for res in msg.tool_reses or ():
            if isinstance(res, ToolReturn):
                parts.append({"type": "tool_call_response", "id": res.call_id, "response": res.result})
        return {"role": "tool", "parts": parts}
    text = msg.text()
    if text:
        parts.append({"type": "text", "content": text})
    for call in msg.tool_calls or ():
        parts.append({"type": "tool_call", "id": call.id, "name": call.name, "arguments": call.arguments})
    role = {"console": "user"}.get(msg.role, msg.role)  # console output goes to the model as user text
    return {"role": role, "parts": parts}


def _output_message(reply: AssistantTextMessage) -> dict[str, Any]:
    """A reply in the `gen_ai.output.messages` form, with its finish reason."""
    shown = _message(reply)
    shown["finish_reason"] = reply.finish_reason or "stop"
    return shown


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _version() -> str:
    try:
        return version("tfrobot")
    except PackageNotFoundError:
        return "0"
