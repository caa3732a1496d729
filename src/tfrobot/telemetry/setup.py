"""Setting up the OpenTelemetry SDK for a process that exports its traces (`tfrobot serve --otel`).

The SDK's own environment variables configure it — `OTEL_EXPORTER_OTLP_ENDPOINT` (or
`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_SERVICE_NAME`,
`OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER`, `OTEL_BSP_*` — read by the SDK classes built here, not
by us. `OTEL_TRACES_EXPORTER` picks `otlp` (the default: OTLP over HTTP/protobuf), `console` or `none`.
Applications with their own OpenTelemetry setup do not call this: the hooks use whatever tracer provider
is set.
"""

from __future__ import annotations

import os
from typing import Final

from opentelemetry import trace
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter

DEFAULT_SERVICE: Final = "tfrobot"
"""`service.name` when neither `OTEL_SERVICE_NAME` nor `OTEL_RESOURCE_ATTRIBUTES` names one."""


def configure_sdk(exporter: SpanExporter | None = None) -> TracerProvider:
    """Build the SDK's tracer provider from the environment, export its spans in batches (to `exporter`,
    default from `OTEL_TRACES_EXPORTER`), and make it the global provider; returns it (`shutdown()` flushes,
    which the SDK also does at exit)."""
    resource = Resource.create()
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: DEFAULT_SERVICE}))
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(exporter or _exporter()))
    trace.set_tracer_provider(provider)
    return provider


def _exporter() -> SpanExporter:
    """The exporter `OTEL_TRACES_EXPORTER` names: `otlp` (HTTP/protobuf, the default) or `console`."""
    name = os.environ.get("OTEL_TRACES_EXPORTER", "otlp").strip().lower() or "otlp"
    if name == "console":
        return ConsoleSpanExporter()
    if name != "otlp":
        raise ValueError(
            f"OTEL_TRACES_EXPORTER={name!r} is not supported here; use otlp (OTLP over HTTP), console or none"
        )
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter()
