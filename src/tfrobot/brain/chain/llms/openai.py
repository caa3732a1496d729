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
from typing import Any, ClassVar, assert_never

from pydantic import Field

from tfrobot.brain.chain.llms.chat_llm import ChatLLM
from tfrobot.brain.chain.llms.media import Capabilities, Position, ResolvedMedia
from tfrobot.brain.chain.llms.openai_walk import direct_request
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
)
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
from tfrobot.schema.message.tool_call import ToolCall
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
        """Phases 1-5 in one walk over the stored messages, for the kinds nearly every conversation is made of
        (`openai_walk.py`); None when the phases decide."""
        return direct_request(self, OpenAIChat, current_input, conversation, intermediate_msgs, options)

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
