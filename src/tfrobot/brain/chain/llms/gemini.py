"""Google Gemini through the `google-genai` SDK (`client.models.generate_content`).

Wire format: `contents` of `user`/`model` turns made of parts; the system prompt is
`config.system_instruction` (lifted in Phase 2; one in the middle becomes user text); tool calls are
`function_call` parts, their results `function_response` parts in the next user turn with the tool's
media beside them; media as `inline_data` (bytes) or `file_data` (a URI). Gemini's thought signatures
come back as `ReasoningBlock(provider="gemini")` and are replayed on the first call (or text) part of
the same model turn, byte for byte (they are stored as base64 text, URL-safe as the SDK writes it); no
other provider's reasoning is sent. Gemini 3 wants a signature on every function call of the history: a call
without one of Gemini's (another provider's) gets Google's documented dummy (`DUMMY_THOUGHT_SIGNATURE`).
Parts Google's servers produced (code execution: `executable_code`, `code_execution_result`) are
`ServerToolBlock`s, replayed where they came in the text; grounding and URL-context metadata are kept for
display (`grounding_metadata` blocks) and not sent back.
Function names must match ^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$: other
tool names are mapped per request and mapped back in replies.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar, assert_never

from tfrobot.brain.chain.llms.chat_llm import ChatLLM
from tfrobot.brain.chain.llms.errors import InvalidConversationError
from tfrobot.brain.chain.llms.media import Capabilities, Position
from tfrobot.brain.chain.llms.output_schema import OutputSchema
from tfrobot.brain.chain.llms.portable import ToolNames, derived_call_id
from tfrobot.brain.chain.llms.profiles import model_profile
from tfrobot.brain.chain.llms.stream import (
    FinishDelta,
    ReasoningBlockDelta,
    ReasoningDelta,
    RefusalDelta,
    ServerToolBlockDelta,
    StreamDelta,
    TextDelta,
    ToolCallDelta,
    reply_message,
)
from tfrobot.brain.chain.llms.tool_schema import GeminiSchemaCleaner, SchemaCleaner
from tfrobot.brain.chain.llms.wire import CONSOLE_LABEL, SYSTEM_LABEL, assistant_text, attachment_label
from tfrobot.schema.brain.chain.prompt.context_vars import PromptContext
from tfrobot.schema.message.conversation.message_dto import AssistantTextMessage
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
from tfrobot.schema.message.llms.llm_response import ReasoningBlock, ServerToolBlock, Usage
from tfrobot.schema.message.msg_part import TextUserMsgPart
from tfrobot.schema.message.tool_call import ToolCall
from tfrobot.schema.tool_definition import ToolDefinition

DUMMY_THOUGHT_SIGNATURE = b"skip_thought_signature_validator"
"""The thought signature Google documents for a function call Gemini did not write (profiles.py: Gemini 3)."""

FINISH_REASONS: dict[str, str] = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "MODEL_ARMOR": "content_filter",
    "IMAGE_SAFETY": "content_filter",
    "IMAGE_PROHIBITED_CONTENT": "content_filter",
}
"""Gemini finish reasons -> ours (others are kept, lower-cased)."""


class GeminiChat(ChatLLM):
    """Gemini through the Gemini Developer API or Vertex AI (`google-genai`)."""

    provider: ClassVar[str] = "gemini"
    sdk_module: ClassVar[str] = "google.genai"
    sdk_create: ClassVar[str] = "models.generate_content"
    sdk_stream_create: ClassVar[str] = "models.generate_content_stream"
    sdk_extra: ClassVar[str] = "gemini"
    api_key_env: ClassVar[tuple[str, ...]] = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    max_tokens_key: ClassVar[str] = "max_output_tokens"
    capabilities: ClassVar[Capabilities] = Capabilities(
        user=frozenset({"image", "audio", "video", "file"}),
        tool_result=frozenset({"image", "audio", "video", "file"}),
        url_sources=frozenset({"image", "audio", "video", "file"}),
    )
    schema_cleaner: ClassVar[SchemaCleaner] = GeminiSchemaCleaner()
    tool_name_rule: ClassVar[tuple[str, int] | None] = (r"[a-zA-Z_][a-zA-Z0-9_.:-]*", 128)

    model: str = "gemini-2.5-flash"

    # ----------------------------------------------------------------------------------- Phase 2
    def _configure_api_params(self, ctx: PromptContext, options: dict[str, Any]) -> dict[str, Any]:
        params = super()._configure_api_params(ctx, options)
        system = self._lift_leading_system(ctx)
        if system:
            params["system_instruction"] = system
        return params

    # ----------------------------------------------------------------------------------- Phase 5
    def reformat_request_msg_to_api(self, msgs: list[LLMMessage], params: dict[str, Any]) -> list[Any]:
        call_ids = call_ids_of(msgs)
        names = ToolNames(self.api_tool_name)
        dummy_signature = model_profile(params.get("model") or self.model).dummy_thought_signature
        contents: list[dict[str, Any]] = []

        def add(role: str, parts: list[dict[str, Any]]) -> None:
            if not parts:
                return
            if contents and contents[-1]["role"] == role:
                contents[-1]["parts"].extend(parts)
            else:
                contents.append({"role": role, "parts": parts})

        for index, msg in enumerate(msgs):
            where = f"messages[{index}]"
            match msg:
                case LLMSystemMessage():
                    add("user", [{"text": f"{SYSTEM_LABEL}\n{msg.content}"}])
                case LLMUserMessage():
                    parts = self._parts(msg, "user" if msg.attachment_of is None else "tool_result", where)
                    if msg.attachment_of is not None:
                        parts.insert(0, {"text": attachment_label(msg.attachment_of, msg.attachment_of in call_ids)})
                    add("user", parts)
                case LLMAssistantMessage():
                    add("model", self._model_parts(msg, where, names, dummy_signature))
                case LLMToolMessage():
                    key = "error" if msg.is_error else "output"
                    name = names[msg.name] if msg.name else ""
                    response = {"id": msg.tool_call_id, "name": name, "response": {key: msg.content}}
                    add("user", [{"function_response": response}])
                case LLMFunctionMessage():
                    add("user", [{"text": f"[result of function {msg.name}]\n{msg.content}"}])
                case LLMTFLMessage():
                    add("user", [{"text": f"{CONSOLE_LABEL}\n{msg.content}"}])
                case _:
                    assert_never(msg)
        return contents

    def _parts(self, msg: LLMUserMessage, position: Position, where: str) -> list[dict[str, Any]]:
        prefix = f"{msg.name}: " if msg.name else ""
        if isinstance(msg.content, str):
            return [{"text": prefix + msg.content}]
        parts: list[dict[str, Any]] = [{"text": prefix.rstrip()}] if prefix else []
        for i, part in enumerate(msg.content):
            if isinstance(part, TextUserMsgPart):
                parts.append({"text": part.text})
                continue
            media = self._media(part, position, f"{where}.content[{i}]")
            if isinstance(media, str):
                parts.append({"text": media})
            elif media.url is not None:
                parts.append({"file_data": {"file_uri": media.url, "mime_type": media.media_type}})
            else:
                parts.append({"inline_data": {"data": media.data, "mime_type": media.media_type}})
        return parts

    def _model_parts(
        self, msg: LLMAssistantMessage, where: str, names: ToolNames, dummy_signature: bool
    ) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        text = assistant_text(msg)
        if msg.server_tool_blocks:
            text = self._interleave(msg.server_tool_blocks, text or "", parts)
        if text:
            parts.append({"text": text})
        for call in msg.tool_calls:
            parts.append({"function_call": {"id": call.id, "name": names[call.name], "args": call.arguments_object()}})
        signature = next(
            (b.signature for b in msg.reasoning_blocks if b.provider == self.provider and b.signature), None
        )
        if signature is not None and parts:
            target = next((p for p in parts if "function_call" in p), parts[0])
            target["thought_signature"] = _signature_bytes(signature, where)
        elif msg.tool_calls and dummy_signature:  # (the first call of a turn is the one that carries it)
            next(p for p in parts if "function_call" in p)["thought_signature"] = DUMMY_THOUGHT_SIGNATURE
        return parts

    def _interleave(self, server: tuple[ServerToolBlock, ...], text: str, parts: list[dict[str, Any]]) -> str:
        """Append Gemini's own server-side parts (code execution) to `parts`, each after the text that preceded it
        (`text_offset`); return the text after the last one. Metadata (grounding) is no part: not sent."""
        start = 0
        for item in server:
            if item.provider != self.provider or item.type in _METADATA:
                continue
            cut = min(max(item.text_offset, start), len(text))
            if cut > start:
                parts.append({"text": text[start:cut]})
                start = cut
            parts.append(dict(item.block))
        return text[start:]

    # ----------------------------------------------------------------------------------- Phase 6
    def _assemble_api_request(
        self, params: dict[str, Any], api_msgs: list[Any], tools: Sequence[ToolDefinition] | None
    ) -> dict[str, Any]:
        model = params.pop("model")
        config: dict[str, Any] = dict(params.pop("config", {}))
        config.update(params)
        if tools:
            declarations = [
                {
                    "name": self.api_tool_name(t.name),
                    "description": t.description,
                    "parameters_json_schema": self.clean_tool_schema(t),
                }
                for t in tools
            ]
            config["tools"] = [{"function_declarations": declarations}]
        request: dict[str, Any] = {"model": model, "contents": api_msgs}
        if config:
            request["config"] = config
        return request

    def response_format(self, output: OutputSchema) -> dict[str, Any]:
        """JSON Schema as it is (`response_json_schema`: `$defs`, `anyOf` …), not the OpenAPI subset of
        `response_schema`, which would refuse many Pydantic models."""
        return {"response_mime_type": "application/json", "response_json_schema": output.described(output.schema)}

    # ----------------------------------------------------------------------------------- calls
    def _make_client(self, sdk: Any, is_async: bool) -> Any:
        """A `genai.Client`: one client for both sides (its `.aio` is the async one)."""
        # `max_retries` as the SDK's own retry options: without them its aiohttp transport retries a refused
        # connection by itself after sleeping 1-10 s, so a turn against an endpoint that is down hung for seconds
        options: dict[str, Any] = {"retry_options": sdk.types.HttpRetryOptions(attempts=self.max_retries + 1)}
        if self.base_url is not None:
            options["base_url"] = self.base_url
        if self.timeout is not None:
            options["timeout"] = int(self.timeout * 1000)
        if self.http_client is not None:
            options["httpx_client"] = self.http_client
        if self.async_http_client is not None:
            options["httpx_async_client"] = self.async_http_client
        kwargs: dict[str, Any] = {"http_options": sdk.types.HttpOptions(**options)}
        if self.api_key is not None:
            kwargs["api_key"] = self.api_key.get_secret_value()
        return sdk.Client(**kwargs)

    async def _close_client(self, client: Any) -> None:
        """A `genai.Client` holds a sync and an async HTTP client: close both."""
        client.close()
        await client.aio.aclose()

    def _api_client(self, *, is_async: bool) -> Any:
        """One client for both sides: its async methods are under `.aio`."""
        return self.client().aio if is_async else self.client()

    def _event_dict(self, event: Any) -> dict[str, Any]:
        return _dump(event)

    def _stream_state(self) -> _StreamState:
        return _StreamState()

    def _event_deltas(self, data: dict[str, Any], state: _StreamState) -> Iterator[StreamDelta]:
        state.model = data.get("model_version") or state.model
        state.response_id = data.get("response_id") or state.response_id
        if data.get("usage_metadata"):
            state.usage = data["usage_metadata"]
        for candidate in (data.get("candidates") or ())[:1]:
            for part in (candidate.get("content") or {}).get("parts") or ():
                if part.get("thought_signature"):
                    yield ReasoningBlockDelta(
                        index=state.signatures, signature=part["thought_signature"], provider=self.provider
                    )
                    state.signatures += 1
                if part.get("function_call"):
                    call = part["function_call"]
                    call_id = call.get("id") or derived_call_id(state.response_id, state.calls)
                    yield ToolCallDelta(
                        index=state.calls, id=call_id, name=call.get("name"), arguments=_dumps(call.get("args"))
                    )
                    state.calls += 1
                elif part.get("text") and part.get("thought"):
                    yield ReasoningDelta(text=part["text"])
                elif part.get("text"):
                    yield TextDelta(text=part["text"])
                elif _server_part(part):
                    yield ServerToolBlockDelta(provider=self.provider, block=part)
            state.finish_reason = candidate.get("finish_reason") or state.finish_reason
            state.metadata = _metadata(candidate) or state.metadata  # (the last chunk holds the whole)
        if not state.refused and (refusal := _refusal(data)) is not None:
            state.refused = True
            state.finish_reason = state.finish_reason or _blocked(data)
            yield RefusalDelta(text=refusal)

    def _finish_deltas(self, state: _StreamState) -> Iterator[StreamDelta]:
        """The candidate's metadata (grounding), once the stream has said it all, then the finish delta."""
        for block in state.metadata:
            yield ServerToolBlockDelta(provider=self.provider, block=block)
        yield self._finish(state)

    def _finish(self, state: _StreamState) -> FinishDelta:
        # (Gemini sends `finishReason` with its last chunk)
        reason = state.finish_reason
        finish_reason = _finish_reason(reason, state.calls > 0)
        return self._stream_end(reason, finish_reason, self._usage(state.usage), state.model, state.response_id)

    # ----------------------------------------------------------------------------------- responses
    def _response_id(self, raw: Any) -> str | None:
        found = raw.get("response_id") if isinstance(raw, dict) else getattr(raw, "response_id", None)
        return found if isinstance(found, str) else None

    def parse_response(self, raw: Any) -> AssistantTextMessage:
        data = _dump(raw)
        candidate = (data.get("candidates") or [{}])[0]
        text: list[str] = []
        text_len = 0
        thoughts: list[str] = []
        blocks: list[ReasoningBlock] = []
        server: list[ServerToolBlock] = []
        calls: list[ToolCall] = []
        for part in (candidate.get("content") or {}).get("parts") or ():
            if part.get("thought_signature"):
                blocks.append(ReasoningBlock(signature=part["thought_signature"], provider=self.provider))
            if part.get("function_call"):
                call = part["function_call"]
                call_id = call.get("id") or derived_call_id(data.get("response_id"), len(calls))
                calls.append(ToolCall(id=call_id, name=call["name"], arguments=_dumps(call.get("args"))))
            elif part.get("text") and part.get("thought"):
                thoughts.append(part["text"])
            elif part.get("text"):
                text.append(part["text"])
                text_len += len(part["text"])
            elif _server_part(part):
                server.append(ServerToolBlock(provider=self.provider, block=part, text_offset=text_len))
        server.extend(
            ServerToolBlock(provider=self.provider, block=block, text_offset=text_len) for block in _metadata(candidate)
        )
        return reply_message(
            _refusal(data),
            content="".join(text),
            reasoning_content="".join(thoughts) or None,
            reasoning_blocks=blocks,
            server_tool_blocks=server,
            tool_calls=calls or None,
            finish_reason=_finish_reason(candidate.get("finish_reason") or _blocked(data), bool(calls)),
            usage=self._usage(data.get("usage_metadata")),
            model=self._model_tag(data.get("model_version")),
        )

    def _usage(self, raw: dict[str, Any] | None) -> Usage | None:
        """Gemini counts thoughts apart from the candidates; our output includes them."""
        if not raw:
            return None
        thoughts = raw.get("thoughts_token_count", 0)
        return Usage(  # the prompts of built-in tools (search results read) are input outside prompt_token_count
            input_tokens=raw.get("prompt_token_count", 0) + raw.get("tool_use_prompt_token_count", 0),
            cache_read_tokens=raw.get("cached_content_token_count", 0),
            output_tokens=raw.get("candidates_token_count", 0) + thoughts,
            reasoning_tokens=thoughts,
            raw=raw,
        )


class _StreamState:
    def __init__(self) -> None:
        self.model: str | None = None
        self.response_id: str | None = None
        self.finish_reason: str | None = None
        self.usage: dict[str, Any] | None = None
        self.signatures = 0
        self.calls = 0
        self.refused = False
        self.metadata: list[dict[str, Any]] = []


_TO_STANDARD_ALPHABET = str.maketrans("-_", "+/")


def _signature_bytes(signature: str, where: str) -> bytes:
    """A stored thought signature as the exact bytes Gemini sent, to go back unchanged.

    Stored as base64 text in either alphabet: the SDK's JSON dump writes URL-safe (`-`, `_`), the API's own
    JSON and older records standard (`+`, `/`); both decode to the same bytes here (the standard decoder
    alone silently drops `-` and `_`, which corrupts the signature: "Corrupted thought signature"). Missing
    padding is restored; anything else that is not base64 is refused, naming the message."""
    text = signature.translate(_TO_STANDARD_ALPHABET)
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except binascii.Error as exc:
        raise InvalidConversationError(
            f"{where}: the Gemini thought signature is not base64 ({exc}; {len(signature)} characters, starting "
            f"{signature[:16]!r}), so it cannot be sent back as Gemini wrote it. Fix: restore the message's "
            "reasoning block from the stored record, or remove that block (Gemini then answers without it)."
        ) from exc


def _dump(raw: Any) -> dict[str, Any]:
    """A genai response as JSON-mode dict (enums as strings, signatures in base64)."""
    if isinstance(raw, dict):
        return raw
    dumped: dict[str, Any] = raw.model_dump(mode="json", exclude_none=True)
    return dumped


def _dumps(value: Any) -> str:
    return json.dumps(value or {}, ensure_ascii=False)


_SERVER_PARTS = ("executable_code", "code_execution_result", "tool_call", "tool_response")
"""Parts Gemini's servers produced (its code execution; its built-in tools' calls and results): kept whole, and
sent back only to Gemini, where they came."""
_METADATA = ("grounding_metadata", "url_context_metadata")
"""What a candidate says about its sources (Google Search, URL context): kept for display, never sent back."""


def _server_part(part: dict[str, Any]) -> bool:
    return any(key in part for key in _SERVER_PARTS)


def _metadata(candidate: dict[str, Any]) -> list[dict[str, Any]]:
    """The candidate's source metadata as blocks (`{"grounding_metadata": …}`), the empty ones left out."""
    return [{key: candidate[key]} for key in _METADATA if candidate.get(key)]


_BLOCKED = "PROMPT_BLOCKED"
"""Our finish reason on the wire for a prompt Gemini blocked (it sends no candidate, hence no finish reason)."""


def _blocked(data: dict[str, Any]) -> str | None:
    """`_BLOCKED` when Gemini blocked the prompt (then no candidate says why the reply stopped)."""
    return _BLOCKED if (data.get("prompt_feedback") or {}).get("block_reason") else None


def _refusal(data: dict[str, Any]) -> str | None:
    """What the console shows when Gemini answered nothing because of its filters: a blocked prompt
    (`promptFeedback.blockReason`, no candidates) or a reply stopped by a filter (`SAFETY`, `MODEL_ARMOR`, …),
    with Gemini's own message, else the categories its ratings blocked; None for any other reply."""
    feedback = data.get("prompt_feedback") or {}
    if reason := feedback.get("block_reason"):
        message = feedback.get("block_reason_message")
        return f"Gemini blocked the prompt ({reason})" + (f": {message}" if message else ".")
    candidate = (data.get("candidates") or [{}])[0]
    reason = candidate.get("finish_reason")
    if FINISH_REASONS.get(reason or "") != "content_filter":
        return None
    if message := candidate.get("finish_message"):
        return f"Gemini stopped the reply ({reason}): {message}"
    blocked = [r["category"] for r in candidate.get("safety_ratings") or () if r.get("blocked") and r.get("category")]
    return f"Gemini stopped the reply ({reason})" + (f": blocked as {', '.join(blocked)}." if blocked else ".")


def _finish_reason(value: str | None, has_calls: bool) -> str | None:
    if value is None:
        return None
    if value == _BLOCKED:
        return "refusal"
    if value == "STOP" and has_calls:
        return "tool_calls"
    return FINISH_REASONS.get(value, value.lower())
