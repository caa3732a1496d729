"""What a span may carry: the model settings it reads, whether message contents go on it, and how error texts
are cleaned. Shared by the hooks (which run without OpenTelemetry) and the spans (which need it), so that
neither imports the other for it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Final, Protocol

CAPTURE_CONTENT_ENV: Final = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The conventions' switch for message contents on spans (off unless true)."""
_CAPTURE_ON: Final = frozenset({"true", "1", "yes", "span_only", "span_and_event"})


class ModelSettings(Protocol):
    """What a span reads of the LLM it describes (a `ChatLLM`; this layer sits below the LLM layer)."""

    @property
    def provider(self) -> str: ...
    @property
    def model(self) -> str: ...
    @property
    def temperature(self) -> float | None: ...
    @property
    def max_tokens(self) -> int | None: ...


class Redaction:
    """How the text of an error is cleaned before it goes on a span (its message, status and stack trace):
    unchanged by default; `tfrobot serve` masks credentials as in its log lines (`redact_errors_with`)."""

    text: Callable[[str], str] | None = None


def redact_errors_with(redact: Callable[[str], str] | None) -> None:
    """Clean every error text put on a span with `redact` (None: leave it as it is)."""
    Redaction.text = redact


def capture_content() -> bool:
    """Whether spans carry message contents (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`)."""
    return os.environ.get(CAPTURE_CONTENT_ENV, "").strip().lower() in _CAPTURE_ON
