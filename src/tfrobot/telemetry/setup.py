"""Setting up the OpenTelemetry SDK for a process that exports its traces (`tfrobot serve --otel`).

The SDK's own environment variables configure it — `OTEL_EXPORTER_OTLP_ENDPOINT` (or
`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_SERVICE_NAME`,
`OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER`, `OTEL_BSP_*` — read by the SDK classes built here, not
by us. `OTEL_TRACES_EXPORTER` picks `otlp` (the default: OTLP over HTTP/protobuf), `console`, both
(`otlp,console`) or `none`.
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
OTLP_PROTOCOL: Final = "http/protobuf"
"""The OTLP transport of the exporter we ship."""
PROTOCOL_ENVS: Final = ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")
"""The SDK's variables choosing the OTLP transport (the traces' own first)."""


def configure_sdk(exporter: SpanExporter | None = None) -> TracerProvider:
    """Build the SDK's tracer provider from the environment, export its spans in batches (to `exporter`,
    default from `OTEL_TRACES_EXPORTER`), and make it the global provider; returns it (`shutdown()` flushes,
    which the SDK also does at exit)."""
    resource = Resource.create()
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: DEFAULT_SERVICE}))
    provider = TracerProvider(resource=resource)
    for each in [exporter] if exporter is not None else _exporters():
        provider.add_span_processor(BatchSpanProcessor(each))
    trace.set_tracer_provider(provider)
    return provider


def _exporters() -> list[SpanExporter]:
    """The exporters `OTEL_TRACES_EXPORTER` names, a comma-separated list as the specification has it:
    `otlp` (HTTP/protobuf, the default) and `console`, each once (`none` alone switches telemetry off)."""
    value = os.environ.get("OTEL_TRACES_EXPORTER", "")
    names = dict.fromkeys(name.strip().lower() for name in value.split(",") if name.strip()) or {"otlp": None}
    unknown = [name for name in names if name not in ("otlp", "console")]
    if unknown:
        raise ValueError(
            f"OTEL_TRACES_EXPORTER={value!r}: {', '.join(unknown)} not supported here; "
            "use otlp (OTLP over HTTP), console, both (otlp,console) or none"
        )
    return [ConsoleSpanExporter() if name == "console" else _otlp() for name in names]


def _otlp() -> SpanExporter:
    """The OTLP exporter over HTTP/protobuf, the one we ship: a protocol variable asking for another
    (`grpc`, `http/json`) is refused here, at start-up, rather than ignored with the spans sent where no
    one reads them."""
    for name in PROTOCOL_ENVS:
        protocol = os.environ.get(name, "").strip().lower()
        if protocol and protocol != OTLP_PROTOCOL:
            raise ValueError(
                f"{name}={protocol!r}: TFRobot exports OTLP over {OTLP_PROTOCOL} only (the exporter the `otel` "
                f"extra installs); unset it or set it to {OTLP_PROTOCOL}, and point OTEL_EXPORTER_OTLP_ENDPOINT "
                "at the receiver's HTTP port (4318 by default)"
            )
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter()
