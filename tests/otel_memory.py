"""The SDK's in-memory exporter as the global tracer provider, for one test at a time (`in_memory_spans`).

The OpenTelemetry API lets a process set its global provider once; the fixture puts the API's globals
back afterwards, so the tests around these run untraced, as every process does by default.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.util._once import Once


def reset_global_provider() -> None:
    """What opentelemetry-test-utils' `reset_trace_globals` does: no provider set, settable again."""
    trace._TRACER_PROVIDER_SET_ONCE = Once()
    trace._TRACER_PROVIDER = None


@contextmanager
def in_memory_spans() -> Iterator[InMemorySpanExporter]:
    """The spans made inside the block, finished ones in `get_finished_spans()`."""
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    reset_global_provider()
    trace.set_tracer_provider(provider)
    try:
        yield memory
    finally:
        provider.shutdown()
        reset_global_provider()


def by_name(spans: tuple[ReadableSpan, ...] | list[ReadableSpan], name: str) -> list[ReadableSpan]:
    return [span for span in spans if span.name == name]


def parent_of(span: ReadableSpan) -> int | None:
    return span.parent.span_id if span.parent is not None else None
