"""`TurnFailure`: why a turn ended without an answer, stored with the turn that failed.

A failed turn keeps its user message and the part of its trace that was produced (seed: the trace is
the turn's whole execution record); `IntermediateTrace.failure` says what stopped it, typed, so that
the console's history, the chat endpoint and the terminal all show the same thing: what kind of
failure, from which provider, the provider's own words, and what to do about it. A record written
before this field existed loads with `failure=None`; a kind added later loads as its string.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["TurnFailure"]


class TurnFailure(BaseModel):
    """What ended a turn early (`kind` is one of the documented kinds, kept as a string for newer ones)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    kind: str = Field(
        description="missing_key, auth, model_not_found, rate_limited, context_too_long, invalid_request, "
        "unavailable, timeout, connection, bad_response, not_installed, unsupported_content, "
        "invalid_conversation, interrupted or internal."
    )
    message: str = Field(description="One sentence: what failed (no stack trace, no secret).")
    provider: str | None = Field(default=None, description="The LLM provider that failed, when one did.")
    provider_message: str | None = Field(default=None, description="The provider's own error message.")
    fix: str | None = Field(default=None, description="What to do about it, e.g. 'set OPENAI_API_KEY'.")
    status: int | None = Field(default=None, description="The provider's HTTP status, when it answered.")
    retry_after: float | None = Field(default=None, description="Seconds to wait before retrying, when known.")
    retries: int | None = Field(
        default=None,
        description="How often the provider's SDK retried before this failure (the LLM's `max_retries`), for the "
        "kinds it retries (rate_limited, unavailable, timeout, connection); None for the others.",
        exclude_if=lambda value: value is None,  # left out when unset: records stored before it round-trip as they are
    )
    error_type: str = Field(default="", description="The error's class name, e.g. 'RateLimitError'.")

    def summary(self) -> str:
        """`message`, then the fix: the one or two lines a terminal prints."""
        return self.message if not self.fix else f"{self.message}\nFix: {self.fix}"
