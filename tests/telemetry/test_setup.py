"""`configure_sdk` against the SDK's own variables: every exporter `OTEL_TRACES_EXPORTER` lists gets the
spans, and what we do not ship (other exporters, OTLP over gRPC) is refused at start-up, naming the fix."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import ConsoleSpanExporter

from tests.otel_memory import reset_global_provider
from tfrobot.telemetry.setup import configure_sdk


@pytest.fixture(autouse=True)
def _untraced_afterwards(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_TRACES_EXPORTER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
    reset_global_provider()
    yield
    reset_global_provider()


def _exporter_types(provider: TracerProvider) -> list[type]:
    """The exporters behind the provider's batch processors (the SDK keeps them one level down)."""
    processors = provider._active_span_processor._span_processors
    return [type(processor._batch_processor._exporter) for processor in processors]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("exporters", "expected"),
    [
        ("", [OTLPSpanExporter]),
        ("otlp,console", [OTLPSpanExporter, ConsoleSpanExporter]),
        ("console, otlp", [ConsoleSpanExporter, OTLPSpanExporter]),
        ("console,console", [ConsoleSpanExporter]),
    ],
)
def test_each_listed_exporter_gets_the_spans(
    monkeypatch: pytest.MonkeyPatch, exporters: str, expected: list[type]
) -> None:
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", exporters)
    provider = configure_sdk()
    try:
        assert _exporter_types(provider) == expected
    finally:
        provider.shutdown()


def test_an_exporter_we_do_not_ship_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "otlp,zipkin")
    with pytest.raises(ValueError, match=r"OTEL_TRACES_EXPORTER='otlp,zipkin': zipkin not supported"):
        configure_sdk()


@pytest.mark.parametrize("name", ["OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"])
def test_otlp_over_grpc_is_refused_at_start_up(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """We ship the HTTP/protobuf exporter only: a gRPC setting would otherwise be ignored silently, the
    spans posted over HTTP to a gRPC port."""
    monkeypatch.setenv(name, "grpc")
    with pytest.raises(ValueError, match=rf"{name}='grpc'.*http/protobuf"):
        configure_sdk()


def test_http_protobuf_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
    configure_sdk().shutdown()
