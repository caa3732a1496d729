"""Outside review of the `otel` branch: `tfrobot serve`'s SDK setup against the SDK's own environment
variables, which docs/telemetry.md says it follows (`OTEL_TRACES_EXPORTER` is a comma-separated list)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.otel_memory import reset_global_provider
from tfrobot.telemetry.setup import configure_sdk


@pytest.fixture(autouse=True)
def _untraced_afterwards() -> Iterator[None]:
    reset_global_provider()
    yield
    reset_global_provider()


@pytest.mark.parametrize("exporters", ["otlp,console", "console, otlp"])
def test_a_list_of_trace_exporters_is_taken_as_the_sdk_takes_it(
    monkeypatch: pytest.MonkeyPatch, exporters: str
) -> None:
    """`OTEL_TRACES_EXPORTER=otlp,console` (the spec's list form) makes the server refuse to start."""
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", exporters)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
    provider = configure_sdk()
    provider.shutdown()
