"""A turn of the demo robot as OpenTelemetry spans (GenAI semantic conventions), read back from the SDK's
in-memory exporter: the span tree, the attributes, the tool and TFL spans, and the error spans."""

from __future__ import annotations

import json

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from tests.fake_provider import ANSWER, MODEL, base_url, fake_provider, with_fault
from tests.otel_memory import by_name, parent_of
from tfrobot.brain import Brain
from tfrobot.brain.chain.llms import (
    AnthropicChat,
    OpenAIChat,
    ProviderConnectionError,
    RateLimitError,
    ScriptedCall,
    ScriptedChat,
    ScriptRule,
)
from tfrobot.brain.demo import demo_chain
from tfrobot.brain.memory import SQLMessageStore
from tfrobot.schema.message import TextMessage
from tfrobot.telemetry import CAPTURE_CONTENT_ENV, redact_errors_with, traced_response_id, traced_turn, tracing
from tfrobot.telemetry.spans import record_error
from tfrobotserver.redaction import redact_text

WEATHER = "weather in Paris and Tokyo, chart it"


async def test_a_demo_turn_is_one_invoke_agent_span_over_its_llm_tool_and_tfl_spans(
    exporter: InMemorySpanExporter,
) -> None:
    user = TextMessage(content=WEATHER, conversation_id="conv-1")
    answer = await demo_chain().arun(user)
    spans = exporter.get_finished_spans()
    names = sorted(span.name for span in spans)
    assert names == sorted(
        [
            "invoke_agent",
            *["chat scripted-1"] * 3,
            *["execute_tool weather"] * 2,
            "execute_tool tfl",
            "execute_tool chart",  # called by the script
        ]
    )
    (root,) = by_name(spans, "invoke_agent")
    assert root.parent is None
    assert root.kind is SpanKind.INTERNAL
    (tfl,) = by_name(spans, "execute_tool tfl")
    (chart,) = by_name(spans, "execute_tool chart")
    assert parent_of(chart) == tfl.context.span_id  # from the script's worker thread, back on the loop
    assert {parent_of(span) for span in spans if span not in (root, chart)} == {root.context.span_id}
    assert len({span.context.trace_id for span in spans}) == 1
    assert root.attributes is not None
    assert dict(root.attributes) == {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.provider.name": "scripted",
        "gen_ai.request.model": "scripted-1",
        "gen_ai.conversation.id": "conv-1",
        "gen_ai.usage.input_tokens": sum(
            _attr(s, "gen_ai.usage.input_tokens") for s in by_name(spans, "chat scripted-1")
        ),
        "gen_ai.usage.output_tokens": sum(
            _attr(s, "gen_ai.usage.output_tokens") for s in by_name(spans, "chat scripted-1")
        ),
    }
    chats = sorted(by_name(spans, "chat scripted-1"), key=lambda s: s.start_time or 0)
    assert [_attr(chat, "gen_ai.response.finish_reasons") for chat in chats] == [("tool_calls",), ("stop",), ("stop",)]
    for chat in chats:
        assert chat.kind is SpanKind.CLIENT
        assert _attr(chat, "gen_ai.operation.name") == "chat"
        assert _attr(chat, "gen_ai.provider.name") == "scripted"
        assert _attr(chat, "gen_ai.request.model") == "scripted-1"
        assert _attr(chat, "gen_ai.response.model") == "scripted-1"
        assert _attr(chat, "gen_ai.usage.input_tokens") > 0
        assert _attr(chat, "gen_ai.usage.output_tokens") > 0
    calls = user.intermediate_trace.records[0].tool_calls or []
    tools = sorted(by_name(spans, "execute_tool weather"), key=lambda s: str(_attr(s, "gen_ai.tool.call.id")))
    assert [_attr(tool, "gen_ai.tool.call.id") for tool in tools] == sorted(call.id for call in calls)
    for tool in tools:
        assert _attr(tool, "gen_ai.operation.name") == "execute_tool"
        assert _attr(tool, "gen_ai.tool.name") == "weather"
        assert tool.status.status_code is StatusCode.UNSET
        assert chats[0].end_time is not None
        assert tool.start_time is not None
        assert chats[0].end_time <= tool.start_time <= (chats[1].start_time or 0)  # between the two LLM calls
    assert _attr(tfl, "gen_ai.tool.name") == "tfl"
    assert _attr(chart, "gen_ai.tool.name") == "chart"
    assert chart.status.status_code is StatusCode.UNSET
    assert _attr(tfl, "tfrobot.tfl.tool_calls") == 1  # the chart
    assert tfl.status.status_code is StatusCode.UNSET
    assert "chart" in answer.content


async def test_message_contents_stay_off_the_spans_unless_captured(
    exporter: InMemorySpanExporter, monkeypatch: pytest.MonkeyPatch
) -> None:
    await demo_chain().arun(TextMessage(content=WEATHER))
    content_keys = {"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments"}
    content_keys |= {"gen_ai.tool.call.result"}
    for span in exporter.get_finished_spans():
        assert not content_keys & set(span.attributes or {}), span.name
        assert "Paris" not in json.dumps(dict(span.attributes or {}))
    exporter.clear()

    monkeypatch.setenv(CAPTURE_CONTENT_ENV, "true")
    await demo_chain().arun(TextMessage(content=WEATHER))
    spans = exporter.get_finished_spans()
    first = min(by_name(spans, "chat scripted-1"), key=lambda s: s.start_time or 0)
    sent = json.loads(str(_attr(first, "gen_ai.input.messages")))
    assert sent == [{"role": "user", "parts": [{"type": "text", "content": WEATHER}]}]
    said = json.loads(str(_attr(first, "gen_ai.output.messages")))
    assert said[0]["role"] == "assistant"
    assert said[0]["finish_reason"] == "tool_calls"
    assert [part["name"] for part in said[0]["parts"] if part["type"] == "tool_call"] == ["weather", "weather"]
    tool = by_name(spans, "execute_tool weather")[0]
    assert json.loads(str(_attr(tool, "gen_ai.tool.call.arguments")))["city"] in {"Paris", "Tokyo"}
    assert "C" in str(_attr(tool, "gen_ai.tool.call.result"))
    (tfl,) = by_name(spans, "execute_tool tfl")
    assert "chart(" in str(_attr(tfl, "gen_ai.tool.call.arguments"))
    assert "chart ready for 2" in str(_attr(tfl, "gen_ai.tool.call.result"))


async def test_a_provider_failure_is_an_error_span_with_the_typed_error(
    exporter: InMemorySpanExporter, tmp_path: object
) -> None:
    with fake_provider() as root:
        llm = OpenAIChat(model="gpt-4o", api_key="sk-test", base_url=base_url(root, "openai"), max_retries=0)
        try:
            with pytest.raises(RateLimitError):
                await demo_chain(llm).arun(TextMessage(content=with_fault("weather in Paris", "429")))
        finally:
            await llm.aclose()
    spans = exporter.get_finished_spans()
    (chat,) = by_name(spans, "chat gpt-4o")
    (turn,) = by_name(spans, "invoke_agent")
    assert parent_of(chat) == turn.context.span_id
    for span in (chat, turn):
        assert span.status.status_code is StatusCode.ERROR
        assert _attr(span, "error.type") == "RateLimitError"
        assert _attr(span, "tfrobot.error.kind") == RateLimitError.kind
        assert [event.name for event in span.events] == ["exception"]
    assert _attr(chat, "gen_ai.provider.name") == "openai"
    assert _attr(chat, "gen_ai.request.model") == "gpt-4o"


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
@pytest.mark.parametrize(("provider", "response_id"), [("openai", "chatcmpl-1"), ("anthropic", "msg_1")])
async def test_each_chat_span_carries_the_providers_response_id(
    exporter: InMemorySpanExporter, provider: str, response_id: str, stream: bool
) -> None:
    with fake_provider() as root:
        settings = {"api_key": "sk-test", "base_url": base_url(root, provider), "max_retries": 0}
        llm = OpenAIChat(model=MODEL["openai"], **settings) if provider == "openai" else AnthropicChat(
            model=MODEL["anthropic"], max_tokens=1024, **settings
        )  # fmt: skip
        try:
            answer = await demo_chain(llm, stream=stream).arun(TextMessage(content="weather in Paris"))
        finally:
            await llm.aclose()
    assert answer.content == ANSWER
    chats = by_name(exporter.get_finished_spans(), f"chat {llm.model}")
    assert len(chats) == 2  # the tool call, then the answer
    assert [_attr(chat, "gen_ai.response.id") for chat in chats] == [response_id, response_id]
    assert {_attr(chat, "gen_ai.provider.name") for chat in chats} == {provider}


def test_a_reply_id_outside_a_chat_span_touches_no_span(exporter: InMemorySpanExporter) -> None:
    tracer = trace.get_tracer("test")
    with tracer.start_as_current_span("the caller's own span"):
        traced_response_id("chatcmpl-elsewhere")
    (own,) = exporter.get_finished_spans()
    assert "gen_ai.response.id" not in (own.attributes or {})


def test_error_texts_leave_through_the_servers_credential_mask(exporter: InMemorySpanExporter) -> None:
    redact_errors_with(redact_text)  # what `tfrobot serve --otel` sets
    try:
        span = trace.get_tracer("test").start_span("failing")
        record_error(span, ProviderConnectionError("openai", "cannot reach postgresql://app:hunter2@db/prod"))
        span.end()
    finally:
        redact_errors_with(None)
    (failed,) = exporter.get_finished_spans()
    (event,) = failed.events
    shown = [str((event.attributes or {})[key]) for key in ("exception.message", "exception.stacktrace")]
    shown.append(failed.status.description or "")
    for text in shown:
        assert "hunter2" not in text
        assert "app:***@db" in text


async def test_a_failed_tool_call_and_a_failed_script_are_error_spans(exporter: InMemorySpanExporter) -> None:
    rules = [
        ScriptRule(user="go", reply="Trying.", tool_calls=[ScriptedCall(name="nowhere", arguments={})]),
        ScriptRule(after="tool:nowhere", reply="A script.", tfl_scripts=["print(undefined_name)"]),
        ScriptRule(after="console", reply="Done."),
    ]
    await demo_chain(rules=rules).arun(TextMessage(content="go"))
    spans = exporter.get_finished_spans()
    (tool,) = by_name(spans, "execute_tool nowhere")
    assert tool.status.status_code is StatusCode.ERROR
    assert _attr(tool, "error.type") == "tool_error"
    (tfl,) = by_name(spans, "execute_tool tfl")
    assert tfl.status.status_code is StatusCode.ERROR
    assert _attr(tfl, "error.type") == "name"  # the kind the stored trace gives it
    (turn,) = by_name(spans, "invoke_agent")
    assert turn.status.status_code is StatusCode.UNSET  # the turn itself answered


async def test_a_turn_the_brain_stores_is_traced_to_its_end(exporter: InMemorySpanExporter, tmp_path: object) -> None:
    store = await SQLMessageStore.open(f"sqlite+aiosqlite:///{tmp_path}/t.db")
    try:
        brain = Brain(demo_chain(), store)
        events = brain.astream(TextMessage(content=WEATHER))
        async for _ in events:
            break  # the consumer hangs up after the first event: the turn is stored as interrupted
        await events.aclose()
    finally:
        await store.aclose()
    (turn,) = by_name(exporter.get_finished_spans(), "invoke_agent")
    assert turn.status.status_code is StatusCode.ERROR
    assert _attr(turn, "error.type") == "GeneratorExit"


def test_without_a_tracer_provider_the_hooks_hand_back_what_they_got() -> None:
    assert tracing() is None
    events = demo_chain().astream(TextMessage(content="hi"))
    assert type(events).__name__ == "async_generator"
    assert events.__qualname__ == "Chain._astream"
    stream = ScriptedChat(rules=[]).astream(TextMessage(content="hi"))
    assert traced_turn(stream, ScriptedChat(rules=[]), TextMessage(content="hi")) is stream


def _attr(span: ReadableSpan, key: str) -> object:
    attributes = dict(span.attributes or {})
    assert key in attributes, (span.name, key, attributes)
    return attributes[key]
