"""`ChatLLM`: the request pipeline every provider shares, and the registry of providers by name.

`construct_request_params` builds, without any network, exactly the keyword arguments the provider's
official SDK `create` call takes, in the seed's phases ("七段式请求组装"):

1. `construct_prompt_context`   history + current input + the chain's messages; traces expanded in place
2. `_configure_api_params`      provider hook: model parameters (Anthropic/Gemini lift the system prompt)
3. `format_to_request_msgs`     `msg.to_llm_request()` per message -> `LLMRequestMessages`
4. `normalize_request`         `normalize(to_list())`: flatten and merge, then the shared repair pass
                                (`normalize.py`); one scan when there is nothing to merge or repair
5. `reformat_request_msg_to_api` provider hook: neutral messages -> the SDK's message dicts
6. `_assemble_api_request`      provider hook: tools (cleaned of `x-*` keys) and parameters

A provider is one module with one subclass that sets `provider` and implements the hooks and the
response mapping; it registers itself by being defined, so adding one changes nothing else.

Failures are typed where they happen (`errors.py`): a missing key when the SDK client is built
(`client`, also checked at start-up by `readiness`), SDK errors around every call, and an answer that
is not the provider's API (a web page at `base_url`) when it is parsed.
"""

from __future__ import annotations

import importlib
import inspect
import os
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue, PrivateAttr, SecretStr

from tfrobot.brain.chain.llms.errors import (
    SDK_RETRIED,
    InvalidConversationError,
    LLMError,
    MissingAPIKeyError,
    ProviderError,
    ProviderNotInstalledError,
    ProviderResponseError,
    ProviderUnavailableError,
    mask_secrets,
    translate_sdk_error,
)
from tfrobot.brain.chain.llms.media import Capabilities, Position, ResolvedMedia, degrade, resolve
from tfrobot.brain.chain.llms.normalize import normalize_request
from tfrobot.brain.chain.llms.output_schema import OutputSchema
from tfrobot.brain.chain.llms.portable import named_back, portable_id, restore_tool_names
from tfrobot.brain.chain.llms.request_builder import RequestBuilder
from tfrobot.brain.chain.llms.stream import FinishDelta, MessageAssembler, StreamDelta
from tfrobot.brain.chain.llms.tools import SchemaCleaner
from tfrobot.schema.brain.chain.prompt.context_vars import Conversation, PromptContext
from tfrobot.schema.message.base import BaseMessage
from tfrobot.schema.message.conversation.message_dto import AssistantTextMessage, UserMessage
from tfrobot.schema.message.errors import MessageContractError
from tfrobot.schema.message.llms.llm_requests import LLMAssistantMessage, LLMMessage, LLMRequestMessages
from tfrobot.schema.message.llms.llm_response import Usage
from tfrobot.schema.message.msg_part import MediaPart
from tfrobot.schema.tool_definition import ToolDefinition
from tfrobot.telemetry import traced_response_id


def clean_nones(value: Any) -> Any:
    """`value` without None entries, recursively: the raw usage we keep, identical streamed or not."""
    if isinstance(value, dict):
        return {k: clean_nones(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [clean_nones(v) for v in value]
    return value


def as_dict(raw: Any) -> dict[str, Any]:
    """An SDK response object (pydantic) or an already-decoded dict, as a dict with the keys the provider
    sent and no others (`exclude_unset`: the SDK's defaults for absent fields are not added), under the names
    the provider sent (`by_alias`: the SDK calls a key that is a Python keyword `from_`), so that a block kept
    for replay goes back exactly as it came. A block type newer than the SDK is kept by the SDK
    in another block class with its fields as extras, which dump right but make pydantic warn that the
    value does not fit the declared union: expected here, so not warned about."""
    if isinstance(raw, dict):
        return raw
    dumped: dict[str, Any] = raw.model_dump(exclude_unset=True, by_alias=True, warnings=False)
    return dumped


def assistant_text(msg: LLMAssistantMessage) -> str | None:
    """What the assistant said, for APIs without a refusal field: its text, and its refusal after it."""
    if msg.refusal is None:
        return msg.content
    return f"{msg.content}\n\n{msg.refusal}" if msg.content else msg.refusal


_PROVIDERS: dict[str, type[ChatLLM]] = {}

CONSOLE_LABEL = "[TFL console output]"
"""First line of console output sent as user text: no provider has a console role (seed: 降级)."""
SYSTEM_LABEL = "[system]"
"""First line of a system message in the middle of a conversation, sent as user text where needed."""


def attachment_label(owner: str, is_call: bool) -> str:
    """The text that introduces media returned by a tool call or a console run, so the model links them."""
    return f"[attachments of the result of tool call {owner}]" if is_call else "[attachments of the console output]"


def move_to_extra_body(request: dict[str, Any], native: frozenset[str]) -> dict[str, Any]:
    """`request` with every key its SDK's create call does not take (`native` are those it does) moved
    into `extra_body`, which the SDK sends as part of the JSON body: vendor parameters reach the API."""
    extra = {key: request.pop(key) for key in list(request) if key not in native}
    if extra:
        request["extra_body"] = {**request.get("extra_body", {}), **extra}
    return request


def import_sdk(module: str, provider: str, extra: str) -> Any:
    """Import a provider SDK on first use (they are optional extras and slow to import)."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ProviderNotInstalledError(provider, extra, module) from exc


def provider_of(model_tag: str | None) -> str | None:
    """'openai' of 'openai:gpt-4o'; None when unknown."""
    return model_tag.split(":", 1)[0] if model_tag else None


def register_provider(cls: type[ChatLLM]) -> None:
    """Make `cls` reachable by its `provider` name; a second class claiming a taken name is refused."""
    taken = _PROVIDERS.get(cls.provider)
    if taken is not None and taken is not cls:
        raise TypeError(
            f"provider name {cls.provider!r} of {cls.__qualname__} is already taken by {taken.__qualname__}. "
            "Fix: give the new class its own `provider` ClassVar."
        )
    _PROVIDERS[cls.provider] = cls


def provider_class(name: str) -> type[ChatLLM]:
    """The ChatLLM class configured as `name` ("openai", "anthropic", "scripted", …)."""
    try:
        return _PROVIDERS[name]
    except KeyError:
        known = ", ".join(sorted(_PROVIDERS))
        raise LLMError(f"unknown LLM provider {name!r}; known providers: {known}") from None


def create_llm(name: str, **settings: Any) -> ChatLLM:
    """An instance of the provider configured as `name`, validated from `settings`."""
    return provider_class(name).model_validate(settings)


def providers() -> dict[str, type[ChatLLM]]:
    """A snapshot of the registry: provider name -> class."""
    return dict(_PROVIDERS)


def _first_of_each_id(msgs: list[BaseMessage]) -> list[BaseMessage]:
    """`msgs` without the messages whose `msg_id` came earlier."""
    present: set[str] = set()
    kept: list[BaseMessage] = []
    for msg in msgs:
        if msg.msg_id not in present:
            present.add(msg.msg_id)
            kept.append(msg)
    return kept


class ChatLLM(BaseModel):
    """Base of every chat provider: settings, the request pipeline, and the call/stream entry points."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True, defer_build=True)

    provider: ClassVar[str] = ""
    """Registry name; empty on abstract bases."""
    capabilities: ClassVar[Capabilities] = Capabilities()
    """Which modalities go natively where (`media.py`)."""
    schema_cleaner: ClassVar[SchemaCleaner] = SchemaCleaner()
    """How tool schemas are cleaned for this provider."""
    max_tokens_key: ClassVar[str] = "max_tokens"
    """The request parameter that `max_tokens` is sent as."""
    sdk_module: ClassVar[str] = ""
    """The official SDK's module, imported on first use (`import_sdk`)."""
    sdk_extra: ClassVar[str] = ""
    """The pip extra that installs that SDK (named in the error when it is missing)."""
    sdk_clients: ClassVar[tuple[str, str]] = ("", "")
    """The SDK's sync and async client classes, built by `_make_client`."""
    api_key_env: ClassVar[tuple[str, ...]] = ()
    """The environment variables the SDK reads its key from (named in the fix of a missing key)."""
    async_client: ClassVar[bool] = True
    """Whether the SDK has an async client (turns of a provider without one run its sync client in a thread)."""
    tool_name_rule: ClassVar[tuple[str, int] | None] = None
    """The API's rule for tool names (a pattern every name must match, the longest allowed), or None when it
    takes any name. Other names are mapped per request (`api_tool_name`) and mapped back in replies."""

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

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        if cls.provider:
            register_provider(cls)

    # ----------------------------------------------------------------------------------- Phase 1
    def construct_prompt_context(
        self,
        current_input: BaseMessage,
        conversation: Sequence[BaseMessage] | None = None,
        intermediate_msgs: Sequence[BaseMessage] | None = None,
    ) -> PromptContext:
        """History with every trace expanded, then the current input (and its trace), then the chain's
        own messages of this turn. A message already present (same `msg_id`: a trace record is a copy of
        the chain message it records, and callers may pass the current input in the history too) is
        kept once, at its first place."""
        msgs: list[BaseMessage] = []
        expand = self._expand_trace_for_msg
        for msg in conversation or ():
            expand(msg, msgs)
        expand(current_input, msgs)
        if intermediate_msgs:
            msgs += intermediate_msgs
        if len({msg.msg_id for msg in msgs}) != len(msgs):  # one set of the ids tells; usually nothing to drop
            msgs = _first_of_each_id(msgs)
        # Every message here is a validated message instance (its attributes were just read): the containers
        # are built without validating each message a second time, and stay `Message`-typed for dumps.
        return PromptContext.model_construct(
            current_input=current_input,
            conversation=Conversation.model_construct(msgs=msgs),
            intermediate_msgs=list(intermediate_msgs) if intermediate_msgs is not None else None,
        )

    @staticmethod
    def _expand_trace_for_msg(msg: BaseMessage, into: list[BaseMessage] | None = None) -> list[BaseMessage]:
        """A user message with its trace around it: records before its `create_ts`, it, records after.

        Appended to `into` when given (`construct_prompt_context` passes its list: no list per message),
        else to a new list; returns that list."""
        out = [] if into is None else into
        if not isinstance(msg, UserMessage) or not (trace := msg.intermediate_trace).records:
            out.append(msg)
            return out
        records, cut = trace.ordered_cut(msg.create_ts)
        if cut:
            out += records[:cut]
        out.append(msg)
        out += records[cut:] if cut else records
        return out

    # ----------------------------------------------------------------------------------- Phase 2
    def _configure_api_params(self, ctx: PromptContext, options: dict[str, Any]) -> dict[str, Any]:
        """Model parameters from the settings, then `extra_params`, then the call's own `options`."""
        params: dict[str, Any] = {"model": self.model}
        if self.temperature is not None:
            params["temperature"] = self.temperature
        if self.max_tokens is not None:
            params[self.max_tokens_key] = self.max_tokens
        params.update(self.extra_params)
        params.update(options)
        return params

    @staticmethod
    def _lift_leading_system(ctx: PromptContext) -> str | None:
        """For providers that take system instructions as a parameter: remove the leading system messages
        from the conversation and return their joined text (later ones stay, to become user text)."""
        msgs = ctx.conversation.msgs
        lead = 0
        while lead < len(msgs) and msgs[lead].role == "system":
            lead += 1
        system = "\n\n".join(text for m in msgs[:lead] if (text := m.text()))
        del msgs[:lead]
        return system or None

    # ----------------------------------------------------------------------------------- Phase 3
    def format_to_request_msgs(self, ctx: PromptContext) -> LLMRequestMessages:
        """`to_llm_request()` of every message; a failure names the message's position and id."""
        msgs = ctx.conversation.msgs
        try:
            entries: list[LLMMessage | list[LLMMessage]] = [msg.to_llm_request() for msg in msgs]
        except MessageContractError:
            for index, msg in enumerate(msgs):  # to name the culprit (conversions have no side effects)
                try:
                    msg.to_llm_request()
                except MessageContractError as exc:
                    raise InvalidConversationError(f"conversation.msgs[{index}] ({msg.msg_id}): {exc}") from exc
            raise
        # Built from `to_llm_request()` results, whose kinds `normalize` checks: no second validation pass.
        return LLMRequestMessages.model_construct(entries)

    # ----------------------------------------------------------------------------------- Phase 5
    def reformat_request_msg_to_api(self, msgs: list[LLMMessage], params: dict[str, Any]) -> list[Any]:
        """Provider hook: neutral messages -> the SDK's message dicts."""
        raise NotImplementedError(f"{type(self).__name__} must implement reformat_request_msg_to_api")

    # ----------------------------------------------------------------------------------- Phase 6
    def _assemble_api_request(
        self, params: dict[str, Any], api_msgs: list[Any], tools: Sequence[ToolDefinition] | None
    ) -> dict[str, Any]:
        """Provider hook: the final keyword arguments of the SDK call."""
        raise NotImplementedError(f"{type(self).__name__} must implement _assemble_api_request")

    def clean_tool_schema(self, tool: ToolDefinition) -> dict[str, Any]:
        """`tool.parameters` without `x-*` keys and whatever else this provider rejects."""
        return self.schema_cleaner.clean(tool.parameters)

    def response_format(self, output: OutputSchema) -> dict[str, Any]:
        """Provider hook: the call options that make the reply JSON following `output` (`structured.py`)."""
        raise LLMError(
            f"provider {self.provider!r} cannot constrain its replies to a JSON schema ({output.name}). Fix: use "
            "openai, openai-responses, anthropic or gemini for structured output"
        )

    def api_tool_name(self, name: str) -> str:
        """`name` as this API accepts it: itself when it obeys `tool_name_rule`, else a deterministic stand-in
        (`portable_id`: `drive.weather` -> `drive_weather_<hash>`, `天气` -> `___<hash>`). Adapters send every
        tool definition, call and result under it, so a name and its calls always agree in a request; the
        model's calls come back under the tool's own name (`portable.restore_tool_names`)."""
        rule = self.tool_name_rule
        return name if rule is None else portable_id(name, rule[0], rule[1])

    def _api_names(self, tools: Sequence[ToolDefinition] | None) -> dict[str, str]:
        """The tools whose names this API sees mapped: API name -> the tool's own name."""
        if not tools or self.tool_name_rule is None:
            return {}
        return {api: tool.name for tool in tools if (api := self.api_tool_name(tool.name)) != tool.name}

    # ----------------------------------------------------------------------------------- pipeline
    def construct_request_params(
        self,
        current_input: BaseMessage,
        conversation: Sequence[BaseMessage] | None = None,
        tools: Sequence[ToolDefinition] | None = None,
        *,
        intermediate_msgs: Sequence[BaseMessage] | None = None,
        **options: Any,
    ) -> dict[str, Any]:
        """The SDK call's keyword arguments for this conversation (no network; see the module docstring)."""
        ctx = self.construct_prompt_context(current_input, conversation, intermediate_msgs)
        params = self._configure_api_params(ctx, options)
        request_msgs = self.format_to_request_msgs(ctx)
        llm_msgs = normalize_request(request_msgs)
        api_msgs = self.reformat_request_msg_to_api(llm_msgs, params)
        return self._assemble_api_request(params, api_msgs, tools)

    def request_builder(
        self, current_input: BaseMessage, conversation: Sequence[BaseMessage] | None = None, **options: Any
    ) -> RequestBuilder:
        """The builder of one turn's requests: `construct_request_params` per step, with the history and
        input converted once (`request_builder.py`)."""
        return RequestBuilder(self, current_input, conversation, **options)

    def _same_turn(self, last: Any, first: Any) -> bool:
        """Provider hook: whether converting two lists of messages as one would have joined the last API
        message of the first list and the first of the second (adapters that merge same-role turns do).
        By default: both have the same `role`, which errs on the side of a fresh build."""
        role = last.get("role") if isinstance(last, dict) else None
        return role is not None and isinstance(first, dict) and first.get("role") == role

    # ----------------------------------------------------------------------------------- calls
    def generate(
        self,
        current_input: BaseMessage,
        conversation: Sequence[BaseMessage] | None = None,
        tools: Sequence[ToolDefinition] | None = None,
        **options: Any,
    ) -> AssistantTextMessage:
        """One call: build the request, send it, map the reply (errors become `errors.py` types)."""
        return self.generate_request(
            self.construct_request_params(current_input, conversation, tools, **options), tools
        )

    async def agenerate(
        self,
        current_input: BaseMessage,
        conversation: Sequence[BaseMessage] | None = None,
        tools: Sequence[ToolDefinition] | None = None,
        **options: Any,
    ) -> AssistantTextMessage:
        """`generate` on the SDK's async client."""
        request = self.construct_request_params(current_input, conversation, tools, **options)
        return await self.agenerate_request(request, tools)

    def stream(
        self,
        current_input: BaseMessage,
        conversation: Sequence[BaseMessage] | None = None,
        tools: Sequence[ToolDefinition] | None = None,
        **options: Any,
    ) -> Iterator[StreamDelta]:
        """Typed deltas of one streamed call; `MessageAssembler` adds them up to the reply."""
        yield from self.stream_request(
            self.construct_request_params(current_input, conversation, tools, **options), tools
        )

    async def astream(
        self,
        current_input: BaseMessage,
        conversation: Sequence[BaseMessage] | None = None,
        tools: Sequence[ToolDefinition] | None = None,
        **options: Any,
    ) -> AsyncIterator[StreamDelta]:
        """`stream` on the SDK's async client."""
        request = self.construct_request_params(current_input, conversation, tools, **options)
        async for delta in self.astream_request(request, tools):
            yield delta

    def generate_request(self, request: dict[str, Any], tools: Sequence[ToolDefinition] | None) -> AssistantTextMessage:
        """`generate` of a request already built (`construct_request_params`, `RequestBuilder.build`) with `tools`."""
        with self._sdk_errors():
            raw = self._send(request)
        return restore_tool_names(self._parsed(raw), self._api_names(tools))

    async def agenerate_request(
        self, request: dict[str, Any], tools: Sequence[ToolDefinition] | None
    ) -> AssistantTextMessage:
        """`generate_request` on the SDK's async client."""
        with self._sdk_errors():
            raw = await self._asend(request)
        return restore_tool_names(self._parsed(raw), self._api_names(tools))

    def stream_request(self, request: dict[str, Any], tools: Sequence[ToolDefinition] | None) -> Iterator[StreamDelta]:
        """`stream` of a request already built."""
        names = self._api_names(tools)
        with self._sdk_errors():
            for delta in self._send_stream(request):
                yield named_back(delta, names) if names else delta

    async def astream_request(
        self, request: dict[str, Any], tools: Sequence[ToolDefinition] | None
    ) -> AsyncIterator[StreamDelta]:
        """`stream_request` on the SDK's async client."""
        names = self._api_names(tools)
        with self._sdk_errors():
            async for delta in self._asend_stream(request):
                yield named_back(delta, names) if names else delta

    def generate_streamed(
        self,
        current_input: BaseMessage,
        conversation: Sequence[BaseMessage] | None = None,
        tools: Sequence[ToolDefinition] | None = None,
        **options: Any,
    ) -> AssistantTextMessage:
        """`stream`, assembled: the same message `generate` returns for the same reply."""
        assembler = MessageAssembler()
        for delta in self.stream(current_input, conversation, tools, **options):
            assembler.add(delta)
        return assembler.message()

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

    def _no_key(self) -> bool:
        """Neither the settings nor any of the provider's key variables hold a key."""
        return self.api_key is None and not any(os.environ.get(name) for name in self.api_key_env)

    def _held_keys(self) -> list[str]:
        """The keys this LLM may send: its `api_key` and the values of its provider's key variables."""
        held = [os.environ.get(name, "") for name in self.api_key_env]
        return [*held, self.api_key.get_secret_value()] if self.api_key is not None else held

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

    # ----------------------------------------------------------------------------------- provider hooks
    def _send(self, params: dict[str, Any]) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement _send")

    async def _asend(self, params: dict[str, Any]) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not implement async calls")

    def _send_stream(self, params: dict[str, Any]) -> Iterator[StreamDelta]:
        raise NotImplementedError(f"{type(self).__name__} does not implement streaming")

    def _asend_stream(self, params: dict[str, Any]) -> AsyncIterator[StreamDelta]:
        raise NotImplementedError(f"{type(self).__name__} does not implement async streaming")

    def parse_response(self, raw: Any) -> AssistantTextMessage:
        """Provider hook: the SDK's response -> one `AssistantTextMessage`."""
        raise NotImplementedError(f"{type(self).__name__} must implement parse_response")

    def _translate_error(self, exc: Exception) -> Exception:
        """Provider hook: an SDK exception -> an `errors.py` exception (unknown ones pass through); by
        default judged by HTTP status and message, which every SDK here exposes the same way."""
        return translate_sdk_error(
            self.provider, exc, key_env=self.api_key_env, model=self.model, endpoint=self.base_url
        )

    def _media(self, part: MediaPart, position: Position, where: str) -> ResolvedMedia | str:
        """`part` resolved for sending when the capability table says native and the provider takes this
        source and format; otherwise its `detail` text (warned), or `UnsupportedContentError`."""
        if self.capabilities.support(position, part.type) == "native":
            media = resolve(part, media_roots=self.media_roots, where=where)
            by_url_ok = media.url is None or part.type in self.capabilities.url_sources
            if by_url_ok and self._accepts(media, part):
                return media
        return degrade(part, provider=self.provider, position=position, where=where)

    def _accepts(self, media: ResolvedMedia, part: MediaPart) -> bool:
        """Provider hook: whether this exact format can be sent natively (e.g. OpenAI audio: wav/mp3)."""
        return True

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
