"""Errors of the LLM layer: one tree for every provider, so callers never catch an SDK's exception.

::

    LLMError
     ├── ProviderError                   the provider answered with an error (status, provider message kept)
     │    ├── AuthenticationError        bad or missing key, no permission (401/403)
     │    ├── RateLimitError             429 / quota; `retry_after` seconds when the provider said
     │    ├── ContextTooLongError        the request does not fit the model's context window
     │    ├── InvalidRequestError        any other 4xx: the provider's own message says what is wrong
     │    └── ProviderUnavailableError   5xx, timeouts, connection failures: worth a retry
     ├── UnsupportedContentError         content this provider cannot take and that has no `detail` text
     ├── InvalidConversationError        a conversation the normalization pass cannot repair
     └── ProviderNotInstalledError       the provider's SDK extra is not installed

`ModalityDegradedWarning` is emitted when a part is sent as its `detail` text instead of its media.
"""

from __future__ import annotations


class LLMError(Exception):
    """Base of every error raised by `tfrobot.brain.chain.llms`."""


class ProviderError(LLMError):
    """The provider rejected or failed the call. `status` and `provider_message` are the provider's own."""

    def __init__(self, provider: str, message: str, *, status: int | None = None, provider_message: str = "") -> None:
        super().__init__(f"{provider}: {message}" + (f" (HTTP {status})" if status is not None else ""))
        self.provider = provider
        self.status = status
        self.provider_message = provider_message or message


class AuthenticationError(ProviderError):
    """The key is missing, wrong, or lacks permission. Fix the provider's `api_key` setting."""


class RateLimitError(ProviderError):
    """Too many requests or quota exhausted; retry after `retry_after` seconds when it is not None."""

    def __init__(
        self,
        provider: str,
        message: str,
        *,
        status: int | None = None,
        provider_message: str = "",
        retry_after: float | None = None,
    ) -> None:
        super().__init__(provider, message, status=status, provider_message=provider_message)
        self.retry_after = retry_after


class ContextTooLongError(ProviderError):
    """The prompt exceeds the model's context window: trim the conversation or pick a larger model."""


class InvalidRequestError(ProviderError):
    """The provider refused the request as malformed; `provider_message` says what it objected to."""


class ProviderUnavailableError(ProviderError):
    """Server error, timeout or connection failure: the request itself may be fine; retrying may help."""


class UnsupportedContentError(LLMError, ValueError):
    """A part of a modality the provider cannot take, with no `detail` text to send instead."""


class InvalidConversationError(LLMError, ValueError):
    """The conversation breaks a rule that no repair can fix without guessing (e.g. one call id used twice)."""


class ProviderNotInstalledError(LLMError, ImportError):
    """The provider's SDK is an optional extra that is not installed."""

    def __init__(self, provider: str, extra: str, module: str) -> None:
        super().__init__(
            f"provider {provider!r} needs the {module!r} package, which is not installed. "
            f"Fix: pip install 'tfrobot[{extra}]'"
        )


class ModalityDegradedWarning(UserWarning):
    """A media part was sent as its `detail` text because the provider cannot take its modality there."""


def retry_after_seconds(headers: object) -> float | None:
    """`retry-after-ms` or `retry-after` (seconds) from response headers, if present and numeric."""
    get = getattr(headers, "get", None)
    if get is None:
        return None
    for key, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = get(key)
        if value is None:
            continue
        try:
            return float(value) * scale
        except (TypeError, ValueError):
            continue
    return None


_CONTEXT_SIGNS = (
    "context_length_exceeded",
    "context length",
    "context window",
    "prompt is too long",
    "too many tokens",
    "input is too long",
    "maximum context",
)


def _provider_message(exc: Exception) -> str:
    body = getattr(exc, "body", None)
    for node in (body, body.get("error") if isinstance(body, dict) else None):
        if isinstance(node, dict) and isinstance(node.get("message"), str):
            return str(node["message"])
    message = getattr(exc, "message", None)
    if isinstance(message, str) and message:
        return message
    response = getattr(exc, "response", None)
    text = getattr(response, "text", None) if response is not None else None
    return text if isinstance(text, str) and text else str(exc)


def translate_sdk_error(provider: str, exc: Exception) -> Exception:
    """An SDK exception as one of ours, judged by HTTP status and message (every SDK here exposes
    `status_code` and `response` on status errors); connection errors and timeouts become
    `ProviderUnavailableError`; anything else is returned unchanged."""
    status = getattr(exc, "status_code", None) or getattr(exc, "code", None)
    status = status if isinstance(status, int) else None
    name = type(exc).__name__
    if status is None:
        if "Connection" in name or "Timeout" in name:
            return ProviderUnavailableError(provider, f"{name}: {exc}")
        return exc
    detail = _provider_message(exc)
    if status in (401, 403):
        return AuthenticationError(
            provider, f"authentication failed: {detail}. Fix: check the api_key", status=status, provider_message=detail
        )
    if status == 429:
        headers = getattr(getattr(exc, "response", None), "headers", None)
        return RateLimitError(
            provider,
            f"rate limited: {detail}",
            status=status,
            provider_message=detail,
            retry_after=retry_after_seconds(headers),
        )
    lowered = detail.lower()
    if status == 413 or (400 <= status < 500 and any(sign in lowered for sign in _CONTEXT_SIGNS)):
        return ContextTooLongError(provider, f"context too long: {detail}", status=status, provider_message=detail)
    if 400 <= status < 500:
        return InvalidRequestError(provider, f"invalid request: {detail}", status=status, provider_message=detail)
    return ProviderUnavailableError(provider, f"server error: {detail}", status=status, provider_message=detail)
