"""OpenAI chat completions, and through `base_url` any OpenAI-compatible endpoint (DeepSeek, vLLM, …).

Wire format: system/user/assistant/tool messages; tool calls on the assistant message, one `tool`
message per result right after it; media as content parts (`image_url`, `input_audio`, `file`). Tool
results cannot hold media, so their attachments follow the results as a user message that says whose
they are. Console output is user text (seed: "→ user（role 重写）").

Reasoning: OpenAI never takes reasoning back. OpenAI-shaped vendors that return `reasoning_content`
(DeepSeek, Zhipu, Doubao; OpenRouter, vLLM and Ollama name it `reasoning`, streamed and not: both are
read) have it sent back as their model family's profile says (`profiles.py`) or as `reasoning_replay`
overrides; the text is sent only to the provider that wrote it.

Refusals: OpenAI answers a request it will not serve with `refusal` (content null, finish reason `stop`);
it is an `AssistantRefusalMessage` (its `refusal`, the finish reason `refusal`), and is sent back in the
`refusal` field to OpenAI's own models, as the assistant's text elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar, assert_never, cast

from pydantic import Field

from tfrobot.brain.chain.llms.chat_llm import ChatLLM
from tfrobot.brain.chain.llms.media import Capabilities, Position, ResolvedMedia
from tfrobot.brain.chain.llms.output_schema import OutputSchema
from tfrobot.brain.chain.llms.portable import ToolNames, derived_call_id
from tfrobot.brain.chain.llms.profiles import ModelProfile, ReasoningReplay, model_profile, preserves_thinking
from tfrobot.brain.chain.llms.stream import (
    FinishDelta,
    ReasoningDelta,
    RefusalDelta,
    StreamDelta,
    TextDelta,
    ToolCallDelta,
    reply_message,
)
from tfrobot.brain.chain.llms.wire import (
    CONSOLE_LABEL,
    as_dict,
    assistant_text,
    attachment_label,
    clean_nones,
    provider_of,
)
from tfrobot.schema.message.base import BaseMessage
from tfrobot.schema.message.conversation.message_dto import (
    AssistantTextMessage,
    AttachmentMessage,
    AudioMessage,
    ContactMessage,
    HistoryMessage,
    ImageMessage,
    MultiPartMessage,
    TextMessage,
    UrlMessage,
    UserMessage,
    VideoMessage,
)
from tfrobot.schema.message.errors import MessageContractError
from tfrobot.schema.message.llms.llm_requests import (
    LLMAssistantMessage,
    LLMFunctionMessage,
    LLMMessage,
    LLMSystemMessage,
    LLMTFLMessage,
    LLMToolMessage,
    LLMUserMessage,
    call_ids_of,
)
from tfrobot.schema.message.llms.llm_response import Usage
from tfrobot.schema.message.msg_part import MediaPart, TextUserMsgPart
from tfrobot.schema.message.tool_call import ToolCall, ToolReturn
from tfrobot.schema.tool_definition import ToolDefinition

_AUDIO_FORMATS = {
    "audio/wav": "wav",
    "audio/x-wav": "wav",
    "audio/wave": "wav",
    "audio/mpeg": "mp3",
    "audio/mp3": "mp3",
}

FINISH_REASONS: dict[str, str] = {"stop": "stop", "length": "length", "tool_calls": "tool_calls",
                                  "function_call": "tool_calls", "content_filter": "content_filter"}  # fmt: skip
"""OpenAI-shaped finish reasons -> ours (unknown ones are kept as they come)."""


class OpenAIChat(ChatLLM):
    """OpenAI chat completions (`openai` SDK)."""

    provider: ClassVar[str] = "openai"
    max_tokens_key: ClassVar[str] = "max_completion_tokens"
    capabilities: ClassVar[Capabilities] = Capabilities(
        user=frozenset({"image", "audio", "file"}),
        tool_result=frozenset({"image", "audio", "file"}),
        url_sources=frozenset({"image"}),
    )
    sdk_module: ClassVar[str] = "openai"
    sdk_create: ClassVar[str] = "chat.completions.create"
    sdk_extra: ClassVar[str] = "openai"
    sdk_clients: ClassVar[tuple[str, str]] = ("OpenAI", "AsyncOpenAI")
    api_key_env: ClassVar[tuple[str, ...]] = ("OPENAI_API_KEY",)
    stream_usage_option: ClassVar[bool] = True
    """Whether the endpoint takes `stream_options={"include_usage": True}`."""
    user_names: ClassVar[bool] = True
    """Whether user messages may carry a `name` (OpenAI: ^[a-zA-Z0-9_-]{1,64}$)."""
    tool_name_rule: ClassVar[tuple[str, int] | None] = (r"[a-zA-Z0-9_-]+", 64)
    default_reasoning_replay: ClassVar[ReasoningReplay] = "never"
    """`reasoning_replay` for a model no profile gives one."""

    model: str = "gpt-4o"
    reasoning_replay: ReasoningReplay | None = Field(
        default=None,
        description="When to send this provider's own `reasoning_content` back: never, in the running tool "
        "loop only (after the last user turn), in every turn that called tools (DeepSeek), or always. Unset: "
        "what the model family's profile says (profiles.py), else the provider's default.",
    )

    # ----------------------------------------------------------------------------------- Phases 1-5 in one
    def _direct_request(
        self,
        current_input: BaseMessage,
        conversation: Sequence[BaseMessage] | None,
        intermediate_msgs: Sequence[BaseMessage] | None,
        options: dict[str, Any],
    ) -> tuple[dict[str, Any], list[Any]] | None:
        """Phases 1-5 in one walk over the stored messages, for the kinds nearly every conversation is made of:
        system text, user messages, replies (`AssistantTextMessage` without TFL scripts or kept provider
        blocks, with text or calls) and one-result tool messages without media. Traces are expanded as the walk
        reaches their user message; each message is checked by the rules of `WellFormedScan` that apply to its
        kind and written as `reformat_request_msg_to_api` writes its neutral message, without building that
        message. Anything else (console output, attachments, a kind the walk does not know, a message id seen
        twice, a conversation the scan would not prove well formed, `tool_turns` replay) returns None, and the
        phases decide.

        User messages other than unnamed text go through their own `to_llm_request()` and `_user`, the
        latter once the walk is done, in order: so their media is resolved (warned about, refused) only for
        a request built here, exactly as phase 5 would."""
        user_kinds = _direct_user_kinds(type(self))
        if not user_kinds:
            return None
        tops = [*conversation, current_input] if conversation else [current_input]
        if intermediate_msgs:  # (the chain's own messages are not expanded: a trace there is left to the phases)
            if any(isinstance(m, UserMessage) and m.intermediate_trace.records for m in intermediate_msgs):
                return None
            tops += intermediate_msgs
        params = self._model_params(options)
        profile = model_profile(params.get("model") or self.model)
        mode = self._replay_mode(params, profile)
        if mode == "tool_turns":
            return None
        names = ToolNames(self.api_tool_name)
        calls: set[str] = set()
        pending: Sequence[ToolCall] = ()  # the calls whose results must come next, `waiting - answered` of them
        answered = waiting = 0
        prev: object = None  # the message before, when it matters: `_SYSTEM`, `_SPOKEN` (a reply without calls)
        prev_name: object = _OTHER  # the message before's `name` if it is a user message (None included)
        reasoned: list[tuple[int, dict[str, Any], str, str | None]] = []  # replies with reasoning text, for replay
        users: list[tuple[int, LLMUserMessage]] = []  # user messages whose dicts `_user` writes after the walk
        last_user = -1
        seen: set[str] = set()
        seen_add = seen.add
        out: list[Any] = []
        append = out.append
        group: Sequence[BaseMessage]
        for top in tops:
            if isinstance(top, UserMessage) and (trace := top.intermediate_trace).records:
                records, cut = trace.ordered_cut(top.create_ts)  # (`_expand_trace_for_msg`)
                group = [*records[:cut], top, *records[cut:]]
            else:
                group = (top,)
            for msg in group:
                msg_id = msg.msg_id
                if msg_id in seen:
                    return None
                seen_add(msg_id)
                kind = type(msg)
                if kind is BaseMessage:
                    role = msg.role
                    if role == "tool":
                        reses = msg.tool_reses
                        if answered == waiting or reses is None or len(reses) != 1:
                            return None
                        res = reses[0]
                        if type(res) is not ToolReturn or res.attachments or res.name is None:
                            return None
                        call_id = res.call_id
                        if call_id != pending[answered].id:
                            return None
                        answered += 1
                        content = f"[tool error] {res.result}" if res.is_error else res.result
                        append({"role": "tool", "tool_call_id": call_id, "content": content})
                        prev, prev_name = None, _OTHER
                        continue
                    if answered < waiting or role != "system" or prev is _SYSTEM:
                        return None
                    text = msg.text()
                    if not text or text.isspace():
                        return None
                    append({"role": "system", "content": text})
                    prev, prev_name = _SYSTEM, _OTHER
                elif answered < waiting:
                    return None
                elif kind is AssistantTextMessage:
                    fields = msg.__dict__
                    if (
                        fields["tfl_scripts"]
                        or fields["server_tool_blocks"]
                        or fields["text_blocks"]
                        or prev is _SPOKEN
                    ):
                        return None
                    said: str | None = fields["content"] or None
                    if said is not None and said.isspace():
                        return None
                    reply: dict[str, Any] = {"role": "assistant", "content": said}
                    tool_calls = fields["tool_calls"]
                    if tool_calls:
                        api_calls = reply["tool_calls"] = []
                        for call in tool_calls:
                            call_id = call.id
                            if call_id in calls:
                                return None
                            calls.add(call_id)
                            api_calls.append(
                                {"id": call_id, "type": "function", "function": {"name": names[call.name],
                                                                                  "arguments": call.arguments}}
                            )  # fmt: skip
                        pending, answered, waiting = tool_calls, 0, len(tool_calls)
                        prev = None
                    elif said is None:  # (reasoning alone: whether it is sent depends on the replay, see `_assistant`)
                        return None
                    else:
                        prev = _SPOKEN
                    if mode != "never" and (reasoning := fields["reasoning_content"]):
                        reasoned.append((len(out), reply, reasoning, fields["model"]))
                    append(reply)
                    prev_name = _OTHER
                elif kind in user_kinds:
                    if kind is TextMessage and msg.creator is None:
                        asked = cast("str", msg.content)  # (`kind is`, not `isinstance`: no narrowing)
                        if not asked or asked.isspace() or prev_name is None:
                            return None
                        append({"role": "user", "content": asked})
                        prev_name = None
                    else:
                        try:
                            user = msg.to_llm_request()
                        except MessageContractError:
                            return None
                        if type(user) is not LLMUserMessage or user.attachment_of is not None or user.name == prev_name:
                            return None
                        parts = user.content
                        if isinstance(parts, str):
                            if not parts or parts.isspace():
                                return None
                        elif not parts or any(
                            isinstance(p, TextUserMsgPart) and (not p.text or p.text.isspace()) for p in parts
                        ):
                            return None
                        users.append((len(out), user))
                        append(None)
                        prev_name = user.name
                    last_user = len(out) - 1
                    prev = None
                else:
                    return None
        if answered < waiting:
            return None
        for index, user in users:
            out[index] = self._user(user, set(), f"messages[{index}]")
        if reasoned:
            start = 0 if mode == "always" else last_user + 1  # ("tool_loop": after the last user turn)
            for index, reply, reasoning, model in reasoned:
                if index >= start and provider_of(model) == self.provider:
                    reply["reasoning_content"] = reasoning
        return params, out

    def _replay_mode(self, params: dict[str, Any], profile: ModelProfile) -> ReasoningReplay:
        """When this request sends reasoning text back: the setting, else what the model's profile says."""
        preserved = profile.preserved_reasoning_replay if preserves_thinking(params) else None
        return self.reasoning_replay or preserved or profile.reasoning_replay or self.default_reasoning_replay

    # ----------------------------------------------------------------------------------- Phase 5
    def reformat_request_msg_to_api(self, msgs: list[LLMMessage], params: dict[str, Any]) -> list[Any]:
        # One pass; what only some messages need (the call ids for attachment labels) is computed only when a
        # message needs it. Kinds are dispatched by an `isinstance` chain, most frequent first, ending in
        # `assert_never` (as exhaustive for the type checker as a `match`, whose class patterns cost about
        # twice as much per case: this runs for every message of every request).
        call_ids: set[str] | None = None
        profile = model_profile(params.get("model") or self.model)
        replay_from, turns = self._replayed(msgs, self._replay_mode(params, profile))
        request = _Request(ToolNames(self.api_tool_name), turns, profile.refusal_field)
        out: list[dict[str, Any]] = []
        append = out.append
        for index, msg in enumerate(msgs):
            if isinstance(msg, LLMAssistantMessage):
                if (assistant := self._assistant(msg, index >= replay_from, request)) is not None:
                    append(assistant)
            elif isinstance(msg, LLMUserMessage):
                if msg.attachment_of is None and isinstance(msg.content, str) and not msg.name:
                    append({"role": "user", "content": msg.content})
                    continue
                if call_ids is None and msg.attachment_of is not None:  # (only a carrier's label needs them)
                    call_ids = call_ids_of(msgs)
                append(self._user(msg, call_ids or set(), f"messages[{index}]"))
            elif isinstance(msg, LLMToolMessage):
                content = f"[tool error] {msg.content}" if msg.is_error else msg.content
                append({"role": "tool", "tool_call_id": msg.tool_call_id, "content": content})
            elif isinstance(msg, LLMSystemMessage):
                append({"role": "system", "content": msg.content})
            elif isinstance(msg, LLMTFLMessage):
                append({"role": "user", "content": f"{CONSOLE_LABEL}\n{msg.content}"})
            elif isinstance(msg, LLMFunctionMessage):
                append({"role": "function", "name": request.names[msg.name], "content": msg.content})
            else:
                assert_never(msg)
        return out

    @staticmethod
    def _replayed(msgs: list[LLMMessage], mode: ReasoningReplay) -> tuple[int, set[int] | None]:
        """Which assistant messages `mode` sends the reasoning text of: those from a position on (one
        comparison per message then, instead of reading the setting each time), and for `tool_turns` only
        those among them (all, from 0) of a turn that called a tool (the second value: their `id()`s)."""
        match mode:
            case "always":
                return 0, None
            case "tool_loop":  # after the last user turn
                turns = (i for i, m in enumerate(msgs) if isinstance(m, LLMUserMessage) and m.attachment_of is None)
                return 1 + max(turns, default=-1), None
            case "tool_turns":  # every assistant message of a turn that called a tool
                replayed: set[int] = set()
                turn: list[int] = []
                called = False
                for m in msgs:
                    if isinstance(m, LLMUserMessage) and m.attachment_of is None:
                        if called:
                            replayed.update(turn)
                        turn, called = [], False
                    elif isinstance(m, LLMAssistantMessage):
                        turn.append(id(m))
                        called = called or bool(m.tool_calls)
                if called:
                    replayed.update(turn)
                return 0, replayed
            case "never":
                return len(msgs), None

    def _user(self, msg: LLMUserMessage, call_ids: set[str], where: str) -> dict[str, Any]:
        out: dict[str, Any] = {"role": "user"}
        if isinstance(msg.content, str):
            out["content"] = msg.content
        else:
            position: Position = "user" if msg.attachment_of is None else "tool_result"
            parts: list[dict[str, Any]] = []
            if msg.attachment_of is not None:
                parts.append(
                    {"type": "text", "text": attachment_label(msg.attachment_of, msg.attachment_of in call_ids)}
                )
            for i, part in enumerate(msg.content):
                if isinstance(part, TextUserMsgPart):
                    parts.append({"type": "text", "text": part.text})
                    continue
                media = self._media(part, position, f"{where}.content[{i}]")
                parts.append({"type": "text", "text": media} if isinstance(media, str) else self._part(part, media))
            out["content"] = parts
        if msg.name and self.user_names:
            out["name"] = re.sub(r"[^a-zA-Z0-9_-]", "_", msg.name)[:64]
        return out

    def _part(self, part: MediaPart, media: ResolvedMedia) -> dict[str, Any]:
        """One native media part in this endpoint's content-part format."""
        match part.type:
            case "image":
                return {"type": "image_url", "image_url": {"url": media.data_url}}
            case "audio":
                return {
                    "type": "input_audio",
                    "input_audio": {"data": media.b64, "format": _AUDIO_FORMATS[media.media_type]},
                }
            case "video":
                return {"type": "video_url", "video_url": {"url": media.data_url}}
            case "file":
                name = getattr(part, "filename", None) or "document.pdf"
                return {"type": "file", "file": {"file_data": media.data_url, "filename": name}}

    def _accepts(self, media: ResolvedMedia, part: MediaPart) -> bool:
        if part.type == "audio":
            return media.data is not None and media.media_type in _AUDIO_FORMATS
        if part.type == "file":
            return media.data is not None and media.media_type == "application/pdf"
        return True

    def _assistant(self, msg: LLMAssistantMessage, replay: bool, request: _Request) -> dict[str, Any] | None:
        """The assistant message, or None when nothing of it is for this endpoint (e.g. a reply that
        held only another provider's reasoning blocks: an empty assistant message is a 400). `replay`:
        whether the replay mode asks for this message's reasoning text (if this provider wrote it)."""
        content = msg.content
        if msg.refusal is None:
            out: dict[str, Any] = {"role": "assistant", "content": content}
        elif request.refusal_field:
            out = {"role": "assistant", "content": content, "refusal": msg.refusal}
        else:
            content = assistant_text(msg)
            out = {"role": "assistant", "content": content}
        if msg.tool_calls:
            names = request.names
            calls = out["tool_calls"] = []
            for c in msg.tool_calls:  # (a loop: a comprehension reading `names` would build a closure per message)
                calls.append(
                    {"id": c.id, "type": "function", "function": {"name": names[c.name], "arguments": c.arguments}}
                )
        if replay and (request.turns is None or id(msg) in request.turns):
            if msg.reasoning_content and provider_of(msg.model) == self.provider:
                out["reasoning_content"] = msg.reasoning_content
            elif request.turns is not None and msg.tool_calls:
                out["reasoning_content"] = ""
        if content is None and len(out) == 2:
            return None
        return out

    # ----------------------------------------------------------------------------------- Phase 6
    def _assemble_api_request(
        self, params: dict[str, Any], api_msgs: list[Any], tools: Sequence[ToolDefinition] | None
    ) -> dict[str, Any]:
        request: dict[str, Any] = {"model": params.pop("model"), "messages": api_msgs}
        if tools:
            request["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": self.api_tool_name(t.name),
                        "description": t.description,
                        "parameters": self.clean_tool_schema(t),
                    },
                }
                for t in tools
            ]
        request.update(params)
        return request

    def response_format(self, output: OutputSchema) -> dict[str, Any]:
        strict = output.strict
        schema = {"name": output.name, "schema": output.closed if strict else output.schema, "strict": strict}
        if output.description:
            schema["description"] = output.description
        return {"response_format": {"type": "json_schema", "json_schema": schema}}

    # ----------------------------------------------------------------------------------- calls
    def _stream_params(self, params: dict[str, Any]) -> dict[str, Any]:
        """`stream=True`, and the usage in the last chunk where the server takes the option."""
        extra: dict[str, Any] = {"stream": True}
        if self.stream_usage_option:
            extra["stream_options"] = {"include_usage": True}
        return {**params, **extra}

    def _stream_state(self) -> _StreamState:
        return _StreamState()

    def _event_deltas(self, chunk: dict[str, Any], state: _StreamState) -> Iterator[StreamDelta]:
        state.model = chunk.get("model") or state.model
        state.response_id = chunk.get("id") or state.response_id
        if chunk.get("usage"):
            state.usage = self._usage(chunk["usage"])
        for choice in chunk.get("choices") or ():
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            if reasoning := delta.get("reasoning_content") or delta.get("reasoning"):
                yield ReasoningDelta(text=reasoning)
            if delta.get("content"):
                yield TextDelta(text=delta["content"])
            if delta.get("refusal"):
                state.refused = True
                yield RefusalDelta(text=delta["refusal"])
            for call in delta.get("tool_calls") or ():
                function = call.get("function") or {}
                index = call.get("index", 0)
                call_id = call.get("id")  # (given with the name in the call's first delta; "" by some endpoints)
                yield ToolCallDelta(
                    index=index,
                    id=call_id or (derived_call_id(chunk.get("id"), index) if function.get("name") else call_id),
                    name=function.get("name"),
                    arguments=function.get("arguments") or "",
                )
            if choice.get("finish_reason"):
                state.finish_reason = choice["finish_reason"]

    def _finish_deltas(self, state: _StreamState) -> Iterator[StreamDelta]:
        yield self._finish(state)

    def _finish(self, state: _StreamState) -> FinishDelta:
        reason = state.finish_reason
        finish_reason = _finish_reason(reason, state.refused)
        return self._stream_end(reason, finish_reason, state.usage, state.model, state.response_id)

    # ----------------------------------------------------------------------------------- responses
    def parse_response(self, raw: Any) -> AssistantTextMessage:
        data = as_dict(raw)
        choice = data["choices"][0]
        message = choice.get("message") or {}
        calls = [
            ToolCall(
                id=c.get("id") or derived_call_id(data.get("id"), i),
                name=c["function"]["name"],
                arguments=c["function"].get("arguments") or "{}",
            )
            for i, c in enumerate(message.get("tool_calls") or ())
        ]
        refusal = message.get("refusal") or None
        return reply_message(
            refusal,
            content=message.get("content") or "",
            reasoning_content=message.get("reasoning_content") or message.get("reasoning") or None,
            tool_calls=calls or None,
            finish_reason=_finish_reason(choice.get("finish_reason"), refusal is not None),
            usage=self._usage(data.get("usage")),
            model=self._model_tag(data.get("model")),
        )

    def _usage(self, usage: dict[str, Any] | None) -> Usage | None:
        if not usage:
            return None
        raw = clean_nones(usage)
        prompt_details = raw.get("prompt_tokens_details") or {}
        completion_details = raw.get("completion_tokens_details") or {}
        return Usage(
            input_tokens=raw.get("prompt_tokens", 0),
            output_tokens=raw.get("completion_tokens", 0),
            cache_read_tokens=prompt_details.get("cached_tokens", 0),
            cache_write_tokens=prompt_details.get("cache_write_tokens", 0),
            reasoning_tokens=completion_details.get("reasoning_tokens", 0),
            raw=raw,
        )


_SYSTEM, _SPOKEN, _OTHER = object(), object(), object()
"""What `_direct_request` remembers of the message before: a system message, a reply without calls; `_OTHER`
as the `name` of a message that is not a user message (it equals no name)."""

_USER_KINDS: frozenset[type[BaseMessage]] = frozenset(
    (TextMessage, ImageMessage, AudioMessage, VideoMessage, AttachmentMessage, ContactMessage, UrlMessage,
     HistoryMessage, MultiPartMessage)
)  # fmt: skip
_DIRECT_HOOKS = (
    "construct_prompt_context", "_expand_trace_for_msg", "_configure_api_params", "_model_params",
    "format_to_request_msgs", "reformat_request_msg_to_api", "_user", "_assistant", "_replayed",
)  # fmt: skip
"""The methods whose work `_direct_request` does: a class that overrides one builds its requests the phases' way."""
_KINDS: dict[type[OpenAIChat], frozenset[type[BaseMessage]]] = {}


def _direct_user_kinds(cls: type[OpenAIChat]) -> frozenset[type[BaseMessage]]:
    """The user message classes `_direct_request` converts for `cls` (exact classes: a subclass may convert
    its own way); none, so no walk, when `cls` overrides one of `_DIRECT_HOOKS`."""
    kinds = _KINDS.get(cls)
    if kinds is None:
        own = all(getattr(cls, hook) is getattr(OpenAIChat, hook) for hook in _DIRECT_HOOKS)
        kinds = _KINDS[cls] = _USER_KINDS if own else frozenset()
    return kinds


class _Request:
    """What one request's messages are converted with, worked out once: the tool names as this API sees
    them; for `tool_turns`, the assistant messages (`id()`) of the turns that called a tool, whose messages
    with tool calls but no reasoning of ours get an empty `reasoning_content` (DeepSeek wants the field on
    every such message); whether a refusal goes in the `refusal` field (the model's profile) or as text."""

    __slots__ = ("names", "refusal_field", "turns")

    def __init__(self, names: ToolNames, turns: set[int] | None, refusal_field: bool) -> None:
        self.names = names
        self.turns = turns
        self.refusal_field = refusal_field


class _StreamState:
    """What a stream says once but the finish delta needs: model, finish reason, usage (and its id)."""

    def __init__(self) -> None:
        self.model: str | None = None
        self.response_id: str | None = None
        self.finish_reason: str | None = None
        self.usage: Usage | None = None
        self.refused = False


def _finish_reason(value: str | None, refused: bool) -> str | None:
    """Ours for the provider's `value`; a refusal ends with `stop` on the wire and is `refusal` here."""
    if not value:
        return None
    return "refusal" if refused else FINISH_REASONS.get(value, value)
