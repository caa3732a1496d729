"""Errors of the LLM layer: one tree for every provider, so callers never catch an SDK's exception.

::

    LLMError
     ├── ProviderError                   the provider answered with an error (status, provider message kept)
     │    ├── AuthenticationError        bad key, no permission (401/403)
     │    │    └── MissingAPIKeyError    no key at all: found when the SDK client is built, before any call
     │    ├── RateLimitError             429 / quota; `retry_after` seconds when the provider said
     │    ├── ContextTooLongError        the request does not fit the model's context window
     │    ├── InvalidRequestError        any other 4xx: the provider's own message says what is wrong
     │    │    └── ModelNotFoundError    404: the model (or the endpoint path) does not exist there
     │    ├── ProviderResponseError      an answer that is not the provider's API (HTML, not JSON): check base_url
     │    └── ProviderUnavailableError   5xx, timeouts, connection failures: worth a retry
     │         ├── ProviderTimeoutError      no answer within the timeout
     │         └── ProviderConnectionError   the endpoint cannot be reached (refused, DNS, reset)
     ├── UnsupportedContentError         content this provider cannot take and that has no `detail` text
     ├── InvalidConversationError        a conversation the normalization pass cannot repair
     └── ProviderNotInstalledError       the provider's SDK extra is not installed

Every class has a `kind` (the `TurnFailure.kind` it is stored as) and every error a `fix`: what a user
does about it. `describe(exc)` turns any exception into the `TurnFailure` that the brain stores with a
failed turn and the server answers with (`internal` for an exception that is not ours). `mask_secrets` takes
the caller's keys out of an error a provider made by quoting them.
`ModalityDegradedWarning` is emitted when a part is sent as its `detail` text instead of its media.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from typing import ClassVar

from tfrobot.schema.message.conversation.failure import TurnFailure


class LLMError(Exception):
    """Base of every error raised by `tfrobot.brain.chain.llms`."""

    kind: ClassVar[str] = "internal"
    """How a failed turn records this error (`TurnFailure.kind`)."""

    @property
    def fix(self) -> str | None:
        """What to do about it, when there is something to say."""
        return None


class ProviderError(LLMError):
    """The provider rejected or failed the call. `status` and `provider_message` are the provider's own;
    `retries` is how often the SDK retried before (set by `ChatLLM` for the kinds in `SDK_RETRIED`)."""

    kind: ClassVar[str] = "invalid_request"
    default_fix: ClassVar[str | None] = None
    retries: int | None = None

    def __init__(
        self,
        provider: str,
        message: str,
        *,
        status: int | None = None,
        provider_message: str = "",
        fix: str | None = None,
    ) -> None:
        super().__init__(f"{provider}: {message}" + (f" (HTTP {status})" if status is not None else ""))
        self.provider = provider
        self.status = status
        self.provider_message = provider_message or message
        self._fix = fix

    @property
    def fix(self) -> str | None:
        return self._fix or self.default_fix


class AuthenticationError(ProviderError):
    """The key is wrong or lacks permission. Fix the provider's key (its environment variable)."""

    kind: ClassVar[str] = "auth"
    default_fix: ClassVar[str | None] = "check the provider's API key: it was refused, or it lacks access"


class MissingAPIKeyError(AuthenticationError):
    """No key: neither the settings nor the provider's environment variable give one."""

    kind: ClassVar[str] = "missing_key"

    def __init__(self, provider: str, key_env: tuple[str, ...], detail: str = "") -> None:
        names = " or ".join(key_env) or "the provider's key variable"
        super().__init__(
            provider,
            f"no API key: {names} is not set" + (f" ({detail})" if detail else ""),
            provider_message=detail,
            fix=f"set {names} in the environment of the server (`tfrobot serve`) or of `tfrobot chat`",
        )
        self.key_env = key_env


class RateLimitError(ProviderError):
    """Too many requests or quota exhausted; retry after `retry_after` seconds when it is not None."""

    kind: ClassVar[str] = "rate_limited"

    def __init__(
        self,
        provider: str,
        message: str,
        *,
        status: int | None = None,
        provider_message: str = "",
        retry_after: float | None = None,
    ) -> None:
        wait = f"retry in {retry_after:g} s" if retry_after is not None else "retry later"
        super().__init__(
            provider,
            message,
            status=status,
            provider_message=provider_message,
            fix=f"{wait}, or raise the provider's rate limit or quota",
        )
        self.retry_after = retry_after


class ContextTooLongError(ProviderError):
    """The prompt exceeds the model's context window: trim the conversation or pick a larger model."""

    kind: ClassVar[str] = "context_too_long"
    default_fix: ClassVar[str | None] = (
        "start a new conversation, recall fewer turns (memory.recall_turns), or use a model with a larger context"
    )


class InvalidRequestError(ProviderError):
    """The provider refused the request as malformed; `provider_message` says what it objected to."""

    default_fix: ClassVar[str | None] = "the provider's message says what it refused; check the robot's LLM settings"


class ModelNotFoundError(InvalidRequestError):
    """The model does not exist at this endpoint (or the endpoint's path is wrong)."""

    kind: ClassVar[str] = "model_not_found"


class ProviderResponseError(ProviderError):
    """The endpoint answered, but not as the provider's API does (an HTML page, a body that is not JSON)."""

    kind: ClassVar[str] = "bad_response"
    default_fix: ClassVar[str | None] = (
        "check base_url: it must point at the provider's API, not at a web page or proxy"
    )


class ProviderUnavailableError(ProviderError):
    """Server error, timeout or connection failure: the request itself may be fine; retrying may help."""

    kind: ClassVar[str] = "unavailable"
    default_fix: ClassVar[str | None] = "the provider failed; retry in a moment"


class ProviderTimeoutError(ProviderUnavailableError):
    """The provider did not answer in time."""

    kind: ClassVar[str] = "timeout"
    default_fix: ClassVar[str | None] = "retry; if it keeps happening, raise the LLM's `timeout` setting"


class ProviderConnectionError(ProviderUnavailableError):
    """The provider's endpoint could not be reached."""

    kind: ClassVar[str] = "connection"
    default_fix: ClassVar[str | None] = (
        "check the network and the LLM's base_url (is the endpoint up and reachable from the server?)"
    )


class UnsupportedContentError(LLMError, ValueError):
    """A part of a modality the provider cannot take, with no `detail` text to send instead."""

    kind: ClassVar[str] = "unsupported_content"


class InvalidConversationError(LLMError, ValueError):
    """The conversation breaks a rule that no repair can fix without guessing (e.g. one call id used twice)."""

    kind: ClassVar[str] = "invalid_conversation"

    @property
    def fix(self) -> str | None:
        return "start a new conversation (this one holds messages no provider accepts)"


class ProviderNotInstalledError(LLMError, ImportError):
    """The provider's SDK is an optional extra that is not installed."""

    kind: ClassVar[str] = "not_installed"

    def __init__(self, provider: str, extra: str, module: str) -> None:
        super().__init__(
            f"provider {provider!r} needs the {module!r} package, which is not installed. "
            f"Fix: pip install 'tfrobot[{extra}]'"
        )
        self.provider = provider
        self.extra = extra

    @property
    def fix(self) -> str | None:
        return f"pip install 'tfrobot[{self.extra}]'"


class ModalityDegradedWarning(UserWarning):
    """A media part was sent as its `detail` text because the provider cannot take its modality there."""


SDK_RETRIED = frozenset({"rate_limited", "unavailable", "timeout", "connection"})
"""The failure kinds every provider SDK here retries itself (429, 5xx, time-outs, connection errors), with
back-off, up to the LLM's `max_retries`: the time a failing turn takes grows with it."""


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
_KEY_SIGNS = ("api key not valid", "api_key_invalid", "invalid api key", "incorrect api key")
"""How a provider that answers a bad key with a plain 400 says so (Gemini: INVALID_ARGUMENT)."""
_BAD_RESPONSE_NAMES = ("ResponseValidation", "UnknownApiResponse")
"""SDK errors for an answer that is not the API's (openai: APIResponseValidationError; google-genai)."""
_SHOWN = 300
"""How much of an unexpected body an error quotes."""
_ERROR_TYPE_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "server_error": 500,
    "overloaded_error": 529,
}
"""The HTTP status each error type of an error body stands for (Anthropic's documented types, OpenAI's
`server_error`): an error sent inside a stream arrives after the 200, so its body alone says what it is."""


def _provider_message(exc: Exception) -> str:
    """The provider's own words: `error.message` of its JSON error body (parsed from the text when the SDK
    kept only that), else the SDK's message, else the body's first characters."""
    body = getattr(exc, "body", None)
    response = getattr(exc, "response", None)
    text = getattr(response, "text", None) if response is not None else None
    if not isinstance(body, dict) and isinstance(text, str):
        try:
            body = json.loads(text)
        except ValueError:
            body = None
    for node in (body, body.get("error") if isinstance(body, dict) else None):
        if isinstance(node, dict) and isinstance(node.get("message"), str):
            return str(node["message"])
    message = getattr(exc, "message", None)
    if isinstance(message, str) and message:
        return message
    return text[:_SHOWN] if isinstance(text, str) and text else str(exc)


def _body_status(exc: Exception) -> int | None:
    """The status an error body names, for an error that came inside a stream (the response said 200): its
    `status_code` or numeric `code` (OpenAI-compatible endpoints: Groq, OpenRouter), else its `type`
    (`overloaded_error`, …); None when the exception carries no error body."""
    body = getattr(exc, "body", None)
    node = body.get("error", body) if isinstance(body, dict) else None
    if not isinstance(node, dict):
        return None
    for key in ("status_code", "code"):
        value = node.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and 400 <= value < 600:
            return value
    kind = node.get("type")
    return _ERROR_TYPE_STATUS.get(kind) if isinstance(kind, str) else None


def translate_sdk_error(
    provider: str,
    exc: Exception,
    *,
    key_env: tuple[str, ...] = (),
    model: str | None = None,
    endpoint: str | None = None,
) -> Exception:
    """An SDK exception as one of ours, judged by HTTP status and message (every SDK here exposes
    `status_code` or `code` and `response` on status errors); timeouts, connection failures and answers
    that are not the API's get their own types; anything else is returned unchanged. `key_env`, `model` and
    `endpoint` (the settings in use) go into the fixes."""
    status = getattr(exc, "status_code", None) or getattr(exc, "code", None)
    status = status if isinstance(status, int) and not isinstance(status, bool) else None
    if status is None or status < 400:  # an error event inside a stream that began with 200
        status = _body_status(exc) or status
    name = type(exc).__name__
    where = endpoint or f"{provider}'s API"
    if status is None:
        if isinstance(exc, json.JSONDecodeError) or any(sign in name for sign in _BAD_RESPONSE_NAMES):
            return ProviderResponseError(provider, f"the answer of {where} is not {provider}'s API: {_short(exc)}")
        if "Timeout" in name or isinstance(exc, TimeoutError | asyncio.TimeoutError):
            return ProviderTimeoutError(provider, f"no answer from {where} in time ({name})")
        if "Connect" in name or isinstance(exc, ConnectionError):
            return ProviderConnectionError(provider, f"cannot reach {where} ({name}: {_short(exc)})")
        return exc
    detail = _provider_message(exc)
    key = " or ".join(key_env) or "the API key"
    lowered = detail.lower()
    if status in (401, 403) or (status == 400 and any(sign in lowered for sign in _KEY_SIGNS)):
        return AuthenticationError(
            provider,
            f"authentication failed: {detail}",
            status=status,
            provider_message=detail,
            fix=f"check {key}: {provider} refused it"
            + (" (or it lacks access to this model)" if status == 403 else ""),
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
    if status == 413 or (400 <= status < 500 and any(sign in lowered for sign in _CONTEXT_SIGNS)):
        return ContextTooLongError(provider, f"context too long: {detail}", status=status, provider_message=detail)
    if status == 404:
        return ModelNotFoundError(
            provider,
            f"not found: {detail}",
            status=status,
            provider_message=detail,
            fix=f"check the model name ({model!r}) and the base_url ({where}): {provider} has no such model there",
        )
    if 400 <= status < 500:
        return InvalidRequestError(provider, f"invalid request: {detail}", status=status, provider_message=detail)
    if status < 400:
        return ProviderResponseError(
            provider, f"the answer of {where} is not {provider}'s API: {detail}", status=status, provider_message=detail
        )
    return ProviderUnavailableError(provider, f"server error: {detail}", status=status, provider_message=detail)


MASK = "***"
_MIN_SECRET = 8
"""Shorter values are not masked: they would match ordinary words (no provider key is this short)."""


def mask_secrets(exc: BaseException, secrets: Iterable[str]) -> BaseException:
    """`exc`, its causes and contexts with every occurrence of each of `secrets` (the keys the caller holds) replaced
    by `MASK` in their messages, in place, and returned. A provider may quote the key it refused ("Incorrect API key
    provided: sk-…"): that text becomes the typed error's message, the stored failed turn, the HTTP and MCP error
    bodies and the log line, so the key is taken out here, where the error is made, once for all of them."""
    known = sorted({s for s in secrets if len(s) >= _MIN_SECRET}, key=len, reverse=True)
    if not known:
        return exc

    def masked(text: str) -> str:
        for secret in known:
            text = text.replace(secret, MASK)
        return text

    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        current.args = tuple(masked(a) if isinstance(a, str) else a for a in current.args)
        for attribute in ("provider_message", "message"):
            value = current.__dict__.get(attribute)
            if isinstance(value, str):
                setattr(current, attribute, masked(value))
        current = current.__cause__ or current.__context__
    return exc


def _short(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "…"


_INTERRUPTED = (asyncio.CancelledError, GeneratorExit, KeyboardInterrupt)


def describe(exc: BaseException) -> TurnFailure:
    """The `TurnFailure` a turn that ended with `exc` is stored with (and answered with): ours are typed,
    an interruption is `interrupted`, anything else `internal`, named by its class only (its text may hold
    internals; the log of the process has them)."""
    if isinstance(exc, LLMError):
        return TurnFailure(
            kind=exc.kind,
            message=str(exc),
            provider=getattr(exc, "provider", None),
            provider_message=getattr(exc, "provider_message", None),
            fix=exc.fix,
            status=getattr(exc, "status", None),
            retry_after=getattr(exc, "retry_after", None),
            retries=getattr(exc, "retries", None),
            error_type=type(exc).__name__,
        )
    if isinstance(exc, _INTERRUPTED):
        return TurnFailure(
            kind="interrupted",
            message="the turn was interrupted before it finished (the process stopped, or its caller gave up)",
            fix="send the message again",
            error_type=type(exc).__name__,
        )
    return TurnFailure(
        kind="internal",
        message=f"the turn failed with {type(exc).__name__}; the log of the process that ran it has the details",
        error_type=type(exc).__name__,
    )
