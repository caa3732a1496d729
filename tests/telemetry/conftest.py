"""Each test here records its spans with the SDK's in-memory exporter."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tests.otel_memory import in_memory_spans


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    with in_memory_spans() as memory:
        yield memory
