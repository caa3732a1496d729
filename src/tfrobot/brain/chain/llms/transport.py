"""`SDKTransport`: a provider's settings and everything between a built request and the reply, the same
for every provider's official SDK.

The SDK is imported on first use (`import_sdk`; they are optional extras and slow to import) and its client
built and cached with the settings (`client`), which also finds a missing key before any call
(`readiness`, checked at start-up). A call (`_send`, `_asend`) and a stream (`_send_stream`,
`_asend_stream`) go through the SDK method the provider names (`sdk_create`); the provider maps the reply
(`parse_response`) and each streamed event (`_event_deltas`, `_finish_deltas`). Failures are typed where
they happen (`errors.py`): SDK errors around every call (`_sdk_errors`), without the keys they may quote,
and an answer that is not the provider's API (a web page at `base_url`) when it is parsed.
"""

from __future__ import annotations

import importlib
import inspect
import os
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue, PrivateAttr, SecretStr

from tfrobot.brain.chain.llms.errors import (
    SDK_RETRIED,
    LLMError,
    MissingAPIKeyError,
    ProviderError,
    ProviderNotInstalledError,
    ProviderResponseError,
    ProviderUnavailableError,
    mask_secrets,
    translate_sdk_error,
)
from tfrobot.brain.chain.llms.stream import FinishDelta, StreamDelta
from tfrobot.brain.chain.llms.wire import as_dict
from tfrobot.schema.message.conversation.message_dto import AssistantTextMessage
from tfrobot.schema.message.llms.llm_response import Usage
from tfrobot.telemetry import traced_response_id


def import_sdk(module: str, provider: str, extra: str) -> Any:
    """Import a provider SDK on first use (they are optional extras and slow to import)."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ProviderNotInstalledError(provider, extra, module) from exc


class SDKTransport(BaseModel):
    """A provider's settings, its SDK client, and the calls and streams through it (`ChatLLM` builds the
    requests on top)."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True, defer_build=True)

    provider: ClassVar[str] = ""
    """Registry name; empty on abstract bases."""
    sdk_module: ClassVar[str] = ""
    """The official SDK's module, imported on first use (`import_sdk`)."""
    sdk_extra: ClassVar[str] = ""
    """The pip extra that installs that SDK (named in the error when it is missing)."""
    sdk_clients: ClassVar[tuple[str, str]] = ("", "")
    """The SDK's sync and async client classes, built by `_make_client`."""
    sdk_create: ClassVar[str] = ""
    """The client's method that makes a call, as a dotted path (`chat.completions.create`); it streams with
    `stream=True` (`_stream_params`). Empty: the provider implements `_send` and the others itself."""
    sdk_stream_create: ClassVar[str] = ""
    """The client's method that streams a call, for an SDK that has one of its own (Gemini); else empty."""
    api_key_env: ClassVar[tuple[str, ...]] = ()
    """The environment variables the SDK reads its key from (named in the fix of a missing key)."""
    async_client: ClassVar[bool] = True
    """Whether the SDK has an async client (turns of a provider without one run its sync client in a thread)."""

    model: str = Field(description="The provider's model name, e.g. 'gpt-4o' or 'claude-sonnet-4-5'.")
    api_key: SecretStr | None = Field(default=None, description="API key; the SDK's environment variable if unset.")
    base_url: str | None = Field(default=None, description="Endpoint override (proxies, compatible servers).")
    temperature: float | None = Field(default=None, description="Sampling temperature; provider default if unset.")
    max_tokens: int | None = Field(default=None, description="Upper bound on generated tokens.")
    timeout: float | None = Field(default=None, description="Request timeout in seconds; SDK default if unset.")
    max_retries: int = Field(
        default=2,
        ge=0,
        description="Retries the provider's SDK makes itself on 429, 5xx, time-outs and connection errors, with "
        "back-off (0: none, the turn fails at once); a failed turn's error says how many were made (`retries`).",
    )
    media_roots: tuple[Path, ...] = Field(default=(), description="Folders whose files media parts may reference.")
    extra_params: dict[str, JsonValue] = Field(
        default_factory=dict, description="Vendor-specific request parameters, passed to the SDK call as they are."
    )
    http_client: Any = Field(
        default=None, exclude=True, description="An HTTP client for the SDK (proxies, tests with a mock transport)."
    )
    async_http_client: Any = Field(
        default=None, exclude=True, description="The async HTTP client for the SDK's async client."
    )

    _client: Any = PrivateAttr(default=None)
    _aclient: Any = PrivateAttr(default=None)

    # ----------------------------------------------------------------------------------- client
    def client(self, *, is_async: bool = False) -> Any:
        """The (cached) SDK client. Building it finds a missing key (`MissingAPIKeyError`) before any call."""
        cached = self._aclient if is_async else self._client
        if cached is None:
            sdk = import_sdk(self.sdk_module, self.provider, self.sdk_extra)
            try:
                cached = self._make_client(sdk, is_async)
            except NotImplementedError:
                raise
            except Exception as exc:
                raise self._client_error(exc) from exc
            if is_async:
                self._aclient = cached
            else:
                self._client = cached
        return cached

    async def aclose(self) -> None:
        """Close the SDK clients built so far (their connection pools); the next call builds new ones."""
        built, self._client, self._aclient = [c for c in (self._client, self._aclient) if c is not None], None, None
        for client in built:
            await self._close_client(client)

    async def _close_client(self, client: Any) -> None:
        """Provider hook: close one SDK client (`close()`, awaited when the SDK's is a coroutine)."""
        closing = client.close()
        if inspect.isawaitable(closing):
            await closing

    def _make_client(self, sdk: Any, is_async: bool) -> Any:
        """One of `sdk_clients` with the settings; override for an SDK whose client takes others."""
        sync_class, async_class = self.sdk_clients
        cls = getattr(sdk, async_class if is_async else sync_class)
        return cls(**self._client_kwargs(self.async_http_client if is_async else self.http_client))

    def _client_kwargs(self, http_client: Any) -> dict[str, Any]:
        """The settings as the keyword arguments the OpenAI-style SDK clients take."""
        kwargs: dict[str, Any] = {"max_retries": self.max_retries}
        if self.api_key is not None:
            kwargs["api_key"] = self.api_key.get_secret_value()
        if self.base_url is not None:
            kwargs["base_url"] = self.base_url
        if self.timeout is not None:
            kwargs["timeout"] = self.timeout
        if http_client is not None:
            kwargs["http_client"] = http_client
        return kwargs

    def _no_key(self) -> bool:
        """Neither the settings nor any of the provider's key variables hold a key."""
        return self.api_key is None and not any(os.environ.get(name) for name in self.api_key_env)

    def _held_keys(self) -> list[str]:
        """The keys this LLM may send: its `api_key` and the values of its provider's key variables."""
        held = [os.environ.get(name, "") for name in self.api_key_env]
        return [*held, self.api_key.get_secret_value()] if self.api_key is not None else held

    def readiness(self) -> LLMError | None:
        """The error every turn would fail with before reaching the provider (a missing key or SDK), else None.

        Builds the SDK client a turn uses and looks for the key, without any network: what a server checks at
        start-up (an SDK that builds its client without a key fails only on the call)."""
        if not self.sdk_module:
            return None
        try:
            self.client(is_async=self.async_client)
        except LLMError as exc:
            return exc
        if self.api_key_env and self._no_key():
            return MissingAPIKeyError(self.provider, self.api_key_env)
        return None

    # ----------------------------------------------------------------------------------- calls
    def _send(self, params: dict[str, Any]) -> Any:
        """The SDK's answer to one call of `params` (the request `ChatLLM` built)."""
        return self._sdk_method(is_async=False, stream=False)(**params)

    async def _asend(self, params: dict[str, Any]) -> Any:
        """`_send` on the SDK's async client."""
        return await self._sdk_method(is_async=True, stream=False)(**params)

    def _send_stream(self, params: dict[str, Any]) -> Iterator[StreamDelta]:
        """The typed deltas of one streamed call: each event the SDK yields, mapped by the provider."""
        state = self._stream_state()
        stream = self._sdk_method(is_async=False, stream=True)(**self._stream_params(params))
        self._expect_event_stream(stream)
        for event in stream:
            yield from self._event_deltas(self._event_dict(event), state)
        yield from self._finish_deltas(state)

    async def _asend_stream(self, params: dict[str, Any]) -> AsyncIterator[StreamDelta]:
        """`_send_stream` on the SDK's async client."""
        state = self._stream_state()
        stream = await self._sdk_method(is_async=True, stream=True)(**self._stream_params(params))
        self._expect_event_stream(stream)
        async for event in stream:
            for delta in self._event_deltas(self._event_dict(event), state):
                yield delta
        for delta in self._finish_deltas(state):
            yield delta

    def _sdk_method(self, *, is_async: bool, stream: bool) -> Any:
        """The SDK method a call goes through (`sdk_create`, or `sdk_stream_create` for a stream)."""
        path = (self.sdk_stream_create if stream else "") or self.sdk_create
        if not path:
            raise NotImplementedError(
                f"{type(self).__name__} names no SDK method (`sdk_create`) and does not implement "
                f"{'streaming' if stream else 'calls'} itself"
            )
        target = self._api_client(is_async=is_async)
        for name in path.split("."):
            target = getattr(target, name)
        return target

    def _api_client(self, *, is_async: bool) -> Any:
        """Provider hook: the object `sdk_create` is looked up on (the SDK client; Gemini's async side is
        `client().aio`)."""
        return self.client(is_async=is_async)

    def _stream_params(self, params: dict[str, Any]) -> dict[str, Any]:
        """Provider hook: the keyword arguments of a streamed call (`stream=True`, unless the SDK streams
        through a method of its own)."""
        return params if self.sdk_stream_create else {**params, "stream": True}

    def _event_dict(self, event: Any) -> dict[str, Any]:
        """Provider hook: one streamed event of the SDK as a dict (`as_dict`)."""
        return as_dict(event)

    def _stream_state(self) -> Any:
        """Provider hook: what a stream's mapping keeps between events (model, finish reason, usage, ...)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement streaming")

    def _event_deltas(self, event: dict[str, Any], state: Any) -> Iterator[StreamDelta]:
        """Provider hook: the deltas one streamed event says."""
        raise NotImplementedError(f"{type(self).__name__} does not implement streaming")

    def _finish_deltas(self, state: Any) -> Iterator[StreamDelta]:
        """Provider hook: the deltas once the stream has ended, the `FinishDelta` (`_stream_end`) last."""
        raise NotImplementedError(f"{type(self).__name__} does not implement streaming")

    # ----------------------------------------------------------------------------------- replies and errors
    def parse_response(self, raw: Any) -> AssistantTextMessage:
        """Provider hook: the SDK's response -> one `AssistantTextMessage`."""
        raise NotImplementedError(f"{type(self).__name__} must implement parse_response")

    def _parsed(self, raw: Any) -> AssistantTextMessage:
        """`parse_response(raw)`; an answer it cannot read is the provider's fault, said with what came back."""
        traced_response_id(self._response_id(raw))
        try:
            return self.parse_response(raw)
        except LLMError:
            raise
        except Exception as exc:
            shown = raw if isinstance(raw, str) else type(raw).__name__
            raise ProviderResponseError(
                self.provider, f"the answer of {self._endpoint()} is not {self.provider}'s API: {str(shown)[:300]!r}"
            ) from exc

    def _response_id(self, raw: Any) -> str | None:
        """Provider hook: the provider's id of a whole reply (its `id`, as most APIs name it), for traces."""
        found = raw.get("id") if isinstance(raw, dict) else getattr(raw, "id", None)
        return found if isinstance(found, str) else None

    def _endpoint(self) -> str:
        return self.base_url or f"{self.provider}'s API"

    def _expect_event_stream(self, stream: Any) -> None:
        """Refuse a streamed answer that is not server-sent events (a web page at `base_url`): read as events
        it would look like a stream cut short, and send the user after the wrong cause."""
        response = getattr(stream, "response", None)
        content_type = str(getattr(response, "headers", {}).get("content-type", ""))
        if content_type and "event-stream" not in content_type:
            raise ProviderResponseError(
                self.provider,
                f"the answer of {self._endpoint()} is {content_type.split(';')[0]}, not a stream of events",
            )

    @contextmanager
    def _sdk_errors(self) -> Iterator[None]:
        """Around an SDK call: our own errors pass (without the keys they may quote), any other becomes an
        `errors.py` type (`_client_error`)."""
        try:
            yield
        except LLMError as exc:
            mask_secrets(exc, self._held_keys())
            raise
        except Exception as exc:
            raise self._client_error(exc) from exc

    def _client_error(self, exc: Exception) -> Exception:
        """`exc` of the SDK, translated, without the keys it may quote (`mask_secrets`); one that is not a
        provider answer while there is no key anywhere is the missing key (each SDK says it in its own words,
        some when the client is built, some on the call)."""
        translated = self._translate_error(exc)
        if not isinstance(translated, LLMError) and self._no_key():
            translated = MissingAPIKeyError(self.provider, self.api_key_env, (str(exc).strip().splitlines() or [""])[0])
        elif isinstance(translated, ProviderError) and translated.kind in SDK_RETRIED:
            translated.retries = self.max_retries
        mask_secrets(exc, self._held_keys())
        if translated is not exc:
            mask_secrets(translated, self._held_keys())
        return translated

    def _translate_error(self, exc: Exception) -> Exception:
        """Provider hook: an SDK exception -> an `errors.py` exception (unknown ones pass through); by
        default judged by HTTP status and message, which every SDK here exposes the same way."""
        return translate_sdk_error(
            self.provider, exc, key_env=self.api_key_env, model=self.model, endpoint=self.base_url
        )

    def _stream_end(
        self,
        reason: str | None,
        finish_reason: str | None,
        usage: Usage | None,
        model: str | None,
        response_id: str | None = None,
    ) -> FinishDelta:
        """The last delta of a stream whose provider said why it stopped (`reason`, as the provider wrote
        it). Without a reason the stream was cut short and what arrived is half an answer: failing the
        turn keeps its trace, whereas returning it would store it as complete. `response_id`, the
        provider's id of the reply, goes to the trace (`traced_response_id`)."""
        traced_response_id(response_id)
        if reason is None:
            raise ProviderUnavailableError(
                self.provider, "the stream ended before the response was complete (no finish reason); retry the turn"
            )
        return FinishDelta(finish_reason=finish_reason, usage=usage, model=self._model_tag(model))

    def _model_tag(self, model: str | None) -> str:
        return f"{self.provider}:{model or self.model}"
