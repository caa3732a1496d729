"""`ChatLLM`: the request pipeline every provider shares, on top of its SDK transport (`transport.py`).

`construct_request_params` builds, without any network, exactly the keyword arguments the provider's
official SDK `create` call takes, in the seed's phases ("七段式请求组装"):

1. `construct_prompt_context`   history + current input + the chain's messages; traces expanded in place
2. `_configure_api_params`      provider hook: model parameters (Anthropic/Gemini lift the system prompt)
3. `format_to_request_msgs`     `msg.to_llm_request()` per message -> `LLMRequestMessages`
   (phases 1-5 are one walk where a provider has one, `_direct_request`, for the conversations it proves
   well formed: the same request, with no neutral message in between; OpenAI-shaped providers do)
4. `normalize_request`         `normalize(to_list())`: flatten and merge, then the shared repair pass
                                (`normalize.py`); one scan when there is nothing to merge or repair
5. `reformat_request_msg_to_api` provider hook: neutral messages -> the SDK's message dicts
6. `_assemble_api_request`      provider hook: tools (cleaned of `x-*` keys) and parameters

An agent loop builds its steps' requests with `request_builder` (`request_builder.py`): the same requests,
with the history converted once per turn. A provider is one module with one subclass that sets `provider`
and implements the hooks and the response mapping; it registers itself by being defined (the registry at the
end of this module, by provider name), so adding one changes nothing else.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from operator import attrgetter
from typing import Any, ClassVar

from tfrobot.brain.chain.llms.errors import InvalidConversationError, LLMError
from tfrobot.brain.chain.llms.media import Capabilities, Position, ResolvedMedia, degrade, resolve
from tfrobot.brain.chain.llms.normalize import normalize_request
from tfrobot.brain.chain.llms.output_schema import OutputSchema
from tfrobot.brain.chain.llms.portable import named_back, portable_id, restore_tool_names
from tfrobot.brain.chain.llms.request_builder import RequestBuilder
from tfrobot.brain.chain.llms.stream import MessageAssembler, StreamDelta
from tfrobot.brain.chain.llms.tool_schema import SchemaCleaner
from tfrobot.brain.chain.llms.transport import SDKTransport
from tfrobot.schema.brain.chain.prompt.context_vars import Conversation, PromptContext
from tfrobot.schema.message.base import BaseMessage
from tfrobot.schema.message.conversation.message_dto import AssistantTextMessage, UserMessage
from tfrobot.schema.message.errors import MessageContractError
from tfrobot.schema.message.llms.llm_requests import LLMMessage, LLMRequestMessages
from tfrobot.schema.message.msg_part import MediaPart
from tfrobot.schema.tool_definition import ToolDefinition

_msg_id = attrgetter("msg_id")


def _first_of_each_id(msgs: list[BaseMessage]) -> list[BaseMessage]:
    """`msgs` without the messages whose `msg_id` came earlier."""
    present: set[str] = set()
    kept: list[BaseMessage] = []
    for msg in msgs:
        if msg.msg_id not in present:
            present.add(msg.msg_id)
            kept.append(msg)
    return kept


class ChatLLM(SDKTransport):
    """Base of every chat provider: the request pipeline and the call/stream entry points (settings and the
    SDK side: `SDKTransport`)."""

    capabilities: ClassVar[Capabilities] = Capabilities()
    """Which modalities go natively where (`media.py`)."""
    schema_cleaner: ClassVar[SchemaCleaner] = SchemaCleaner()
    """How tool schemas are cleaned for this provider."""
    max_tokens_key: ClassVar[str] = "max_tokens"
    """The request parameter that `max_tokens` is sent as."""
    tool_name_rule: ClassVar[tuple[str, int] | None] = None
    """The API's rule for tool names (a pattern every name must match, the longest allowed), or None when it
    takes any name. Other names are mapped per request (`api_tool_name`) and mapped back in replies."""

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        if cls.provider:
            _register_provider(cls)

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
        append = msgs.append
        for msg in conversation or ():
            # (`_expand_trace_for_msg` inlined: this runs for every message of every request)
            if isinstance(msg, UserMessage) and (trace := msg.intermediate_trace).records:
                records, cut = trace.ordered_cut(msg.create_ts)
                if cut:
                    msgs += records[:cut]
                    append(msg)
                    msgs += records[cut:]
                else:
                    append(msg)
                    msgs += records
            else:
                append(msg)
        self._expand_trace_for_msg(current_input, msgs)
        if intermediate_msgs:
            msgs += intermediate_msgs
        if len(set(map(_msg_id, msgs))) != len(msgs):  # one set of the ids tells; usually nothing to drop
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
        return self._model_params(options)

    def _model_params(self, options: dict[str, Any]) -> dict[str, Any]:
        """Phase 2 for a provider that takes every message in the conversation (`_configure_api_params`)."""
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

    # ----------------------------------------------------------------------------------- Phases 1-5 in one
    def _direct_request(
        self,
        current_input: BaseMessage,
        conversation: Sequence[BaseMessage] | None,
        intermediate_msgs: Sequence[BaseMessage] | None,
        options: dict[str, Any],
    ) -> tuple[dict[str, Any], list[Any]] | None:
        """Provider hook: phases 1-5 in one walk from the stored messages to the parameters and the SDK's
        message dicts, for a conversation the walk proves well formed (so phase 4 would leave it as it is):
        each message is read once, while it is in the CPU's caches. None when it cannot (then the phases run
        one after the other). Returns exactly what they would, and changes nothing when it returns None. By
        default: None."""
        return None

    # ----------------------------------------------------------------------------------- Phase 5
    def reformat_request_msg_to_api(self, msgs: list[LLMMessage], params: dict[str, Any]) -> list[Any]:
        """Provider hook: neutral messages -> the SDK's message dicts."""
        raise NotImplementedError(f"{type(self).__name__} must implement reformat_request_msg_to_api")

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
        direct = self._direct_request(current_input, conversation, intermediate_msgs, options)
        if direct is not None:
            return self._assemble_api_request(*direct, tools)
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


# ----------------------------------------------------------------------------------- the registry
# Here rather than in a module of its own, which would import `ChatLLM` while this module imports it (a circle).

_PROVIDERS: dict[str, type[ChatLLM]] = {}


def _register_provider(cls: type[ChatLLM]) -> None:
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
