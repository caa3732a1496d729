"""Requests traced by the FastAPI instrumentation join the turns they start: one trace per chat call, the
turn's `invoke_agent` span a child of the request's server span (the turn runs in a task of its own)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from tests.otel_memory import by_name, in_memory_spans, parent_of
from tfrobot.telemetry.switch import ENABLE_ENV
from tfrobotserver.app.factory import create_app
from tfrobotserver.app.settings import ServerSettings
from tfrobotserver.app.telemetry import enable_tracing
from tfrobotserver.robot.demo import build_demo_robot

WEATHER = "weather in Paris and Tokyo, chart it"


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    with in_memory_spans() as memory:
        yield memory


@pytest.fixture
async def traced(tmp_path: Path, exporter: InMemorySpanExporter) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(ServerSettings(data_dir=tmp_path), robots=[build_demo_robot()])
    FastAPIInstrumentor.instrument_app(app, exclude_spans=["receive", "send"])
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as client:
            yield client
    finally:
        FastAPIInstrumentor.uninstrument_app(app)
        await app.state.runtime.aclose()


@pytest.mark.parametrize("accept", ["application/json", "text/event-stream"])
async def test_a_chat_request_and_the_turn_it_started_are_one_trace(
    traced: httpx.AsyncClient, exporter: InMemorySpanExporter, accept: str
) -> None:
    response = await traced.post("/api/robots/demo/chat", json={"message": WEATHER}, headers={"Accept": accept})
    assert response.status_code == 200, response.text
    spans = exporter.get_finished_spans()
    (request,) = [span for span in spans if span.kind is SpanKind.SERVER]
    assert request.name == "POST /api/robots/{robot}/chat"
    (turn,) = by_name(spans, "invoke_agent demo")
    assert parent_of(turn) == request.context.span_id
    assert {span.context.trace_id for span in spans} == {request.context.trace_id}
    assert len(_under(spans, turn)) == 6  # three LLM calls, two tool calls, one TFL script


def _under(spans: tuple[ReadableSpan, ...], parent: ReadableSpan) -> list[ReadableSpan]:
    return [span for span in spans if parent_of(span) == parent.context.span_id]


def test_serving_without_the_switch_leaves_the_app_untraced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (ENABLE_ENV, "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    app = FastAPI()
    assert enable_tracing(app) is False
    assert enable_tracing(app, False) is False
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
    monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
    assert enable_tracing(app, True) is False  # the SDK's own off switch wins over --otel
    assert not getattr(app, "_is_instrumented_by_opentelemetry", False)
