"""Anthropic Messages API (`anthropic` SDK).

Wire format: `system` is a request parameter (leading system messages are lifted there in Phase 2; one in
the middle becomes a user text block); turns alternate user/assistant, so consecutive same-role turns are
merged into one; tool calls are `tool_use` blocks, their results `tool_result` blocks at the start of the
next user turn, with the tool's media inside them. Thinking blocks are replayed unchanged with their
signatures, and only blocks that Anthropic produced. Tool-call ids must match ^[a-zA-Z0-9_-]+$, so other
ids are mapped per request (deterministically: a call and its result always agree); tool names likewise
(^[a-zA-Z0-9_-]{1,128}$), mapped back in replies.

Blocks Anthropic's servers executed themselves (`server_tool_use` and its `*_tool_result`: web search, web
fetch, code execution; `mcp_tool_use`/`mcp_tool_result` of the MCP connector) and any other block type this
adapter does not read are `ServerToolBlock`s: never tool calls for us to run, replayed unchanged to
Anthropic in the next request, between the pieces of text where they came (`text_offset`). A text block with
`citations` (web search, documents) is kept whole the same way, its text also in the message's content: it goes
back as it came, in place of that part of the text, so the model keeps its sources. The code-execution
container a reply ran in (`container: {id, expires_at}`) is kept last among them as a block of type
`container`; the next request names the latest one that has not expired (`container`), so later turns find
the files and state of earlier ones.
"""

from __future__ import annotations

import inspect
import json
import os
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any, ClassVar, assert_never

from pydantic import Field

from tfrobot.brain.chain.llms.anthropic_stream import StreamState, container_block, event_deltas, refusal_of, served_by
from tfrobot.brain.chain.llms.chat_llm import ChatLLM
from tfrobot.brain.chain.llms.media import Capabilities, Position, ResolvedMedia
from tfrobot.brain.chain.llms.output_schema import OutputSchema
from tfrobot.brain.chain.llms.portable import ToolNames, portable_id
from tfrobot.brain.chain.llms.prompt_cache import PromptCache, place_breakpoints
from tfrobot.brain.chain.llms.stream import (
    FinishDelta,
    StreamDelta,
    reasoning_text,
    reply_message,
)
from tfrobot.brain.chain.llms.wire import (
    CONSOLE_LABEL,
    SYSTEM_LABEL,
    as_dict,
    assistant_text,
    attachment_label,
    clean_nones,
    move_to_extra_body,
)
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
from tfrobot.schema.message.msg_part import MediaPart, TextUserMsgPart
from tfrobot.schema.message.tool_call import ToolCall
from tfrobot.schema.tool_definition import ToolDefinition

ID_PATTERN = r"[a-zA-Z0-9_-]+"
"""Anthropic's rule for tool_use ids."""

FINISH_REASONS: dict[str, str] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
    "refusal": "refusal",
}
"""Anthropic stop reasons -> ours (others, e.g. `pause_turn`, are kept as they come)."""

NATIVE_PARAMS = frozenset(
    {"model", "max_tokens", "messages", "system", "tools", "tool_choice", "thinking", "stop_sequences", "metadata",
     "service_tier", "stream", "cache_control", "output_config", "container", "extra_headers", "extra_query",
     "extra_body", "timeout"}
)  # fmt: skip
"""Keyword arguments the SDK's `messages.create` takes; other parameters travel in `extra_body`."""

_SDK_PROPAGATION_ENV = "ANTHROPIC_OPEN_TELEMETRY_PROPAGATION"
"""The SDK's variable for sending the trace context with its requests, honoured beside our spans-off option."""

DEFAULT_MAX_TOKENS = 4096
"""Anthropic requires `max_tokens`; used when the settings leave it unset."""


class AnthropicChat(ChatLLM):
    """Claude through the Anthropic Messages API."""

    provider: ClassVar[str] = "anthropic"
    sdk_module: ClassVar[str] = "anthropic"
    sdk_create: ClassVar[str] = "messages.create"
    sdk_extra: ClassVar[str] = "anthropic"
    sdk_clients: ClassVar[tuple[str, str]] = ("Anthropic", "AsyncAnthropic")
    api_key_env: ClassVar[tuple[str, ...]] = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
    capabilities: ClassVar[Capabilities] = Capabilities(
        user=frozenset({"image", "file"}),
        tool_result=frozenset({"image", "file"}),
        url_sources=frozenset({"image", "file"}),
    )
    tool_name_rule: ClassVar[tuple[str, int] | None] = (ID_PATTERN, 128)

    model: str = "claude-sonnet-4-6"
    prompt_cache: PromptCache = Field(
        default_factory=PromptCache,
        description="Where `cache_control` breakpoints go (tools, system, the last turn; prompt_cache.py); "
        "`{enabled: false}` places none.",
    )

    def _make_client(self, sdk: Any, is_async: bool) -> Any:
        """The SDK's client with its own OpenTelemetry spans switched off (`open_telemetry`, in the SDKs that
        have them): TFRobot's `chat {model}` span is the span of each call, and the SDK's would be a second
        GenAI chat span inside it, counting its tokens twice. The trace context still goes with each request
        unless `ANTHROPIC_OPEN_TELEMETRY_PROPAGATION=false` (the SDK reads no variable once given the option)."""
        cls = getattr(sdk, self.sdk_clients[1] if is_async else self.sdk_clients[0])
        kwargs = self._client_kwargs(self.async_http_client if is_async else self.http_client)
        if "open_telemetry" in inspect.signature(cls).parameters:
            propagation = os.environ.get(_SDK_PROPAGATION_ENV, "").strip().lower() != "false"
            kwargs["open_telemetry"] = {"traces": False, "propagation": propagation}
        return cls(**kwargs)

    # ----------------------------------------------------------------------------------- Phase 2
    def _configure_api_params(self, ctx: PromptContext, options: dict[str, Any]) -> dict[str, Any]:
        """Lift the leading system messages into `system`; later ones stay and become user text."""
        params = super()._configure_api_params(ctx, options)
        params.setdefault("max_tokens", DEFAULT_MAX_TOKENS)
        system = self._lift_leading_system(ctx)
        if system:
            params["system"] = f"{params['system']}\n\n{system}" if params.get("system") else system
        return params

    # ----------------------------------------------------------------------------------- Phase 5
    def reformat_request_msg_to_api(self, msgs: list[LLMMessage], params: dict[str, Any]) -> list[Any]:
        # One pass, dispatched by an `isinstance` chain, most frequent kind first (see openai.py).
        call_ids: set[str] | None = None  # for attachment labels, computed when a carrier needs them
        results: dict[str, dict[str, Any]] = {}
        turns: list[dict[str, Any]] = []
        last_role, last_blocks = "", []  # the turn being built: same-role messages join it
        names = ToolNames(self.api_tool_name)
        container: str | None = None  # the code-execution container of the latest reply that had one
        for index, msg in enumerate(msgs):
            blocks: list[dict[str, Any]]
            if isinstance(msg, LLMAssistantMessage):
                role, blocks = "assistant", self._assistant(msg, names)
                if msg.server_tool_blocks:
                    container = self._live_container(msg.server_tool_blocks) or container
            elif isinstance(msg, LLMUserMessage):
                role, owner = "user", msg.attachment_of
                if owner is None:
                    if isinstance(msg.content, str) and not msg.name:
                        blocks = [{"type": "text", "text": msg.content}]
                    else:
                        blocks = self._blocks(msg, "user", f"messages[{index}]")
                elif owner in results:
                    results[owner].setdefault("content", []).extend(
                        self._blocks(msg, "tool_result", f"messages[{index}]")
                    )
                    continue
                else:
                    if call_ids is None:
                        call_ids = call_ids_of(msgs)
                    blocks = self._blocks(msg, "tool_result", f"messages[{index}]")
                    blocks.insert(0, _text(attachment_label(owner, owner in call_ids)))
            elif isinstance(msg, LLMToolMessage):
                block: dict[str, Any] = {
                    "type": "tool_result",
                    "tool_use_id": portable_id(msg.tool_call_id, ID_PATTERN),
                }
                if msg.content:
                    block["content"] = [{"type": "text", "text": msg.content}]
                if msg.is_error:
                    block["is_error"] = True
                results[msg.tool_call_id] = block
                role, blocks = "user", [block]
            elif isinstance(msg, LLMSystemMessage):
                role, blocks = "user", [_text(f"{SYSTEM_LABEL}\n{msg.content}")]
            elif isinstance(msg, LLMFunctionMessage):
                role, blocks = "user", [_text(f"[result of function {msg.name}]\n{msg.content}")]
            elif isinstance(msg, LLMTFLMessage):
                role, blocks = "user", [_text(f"{CONSOLE_LABEL}\n{msg.content}")]
            else:
                assert_never(msg)
            if not blocks:
                continue
            if role == last_role:
                last_blocks.extend(blocks)
            else:
                turns.append({"role": role, "content": blocks})
                last_role, last_blocks = role, blocks
        if container is not None:
            params.setdefault("container", container)  # (a container the settings name wins)
        return turns

    def _live_container(self, server: tuple[ServerToolBlock, ...]) -> str | None:
        """The id of the code-execution container a reply ran in (its `container` block), unless it has expired
        (`expires_at`: the API refuses an expired one; the next code execution then starts a new container)."""
        for item in reversed(server):
            if item.provider == self.provider and item.block.get("type") == "container":
                expires = item.block.get("expires_at")
                if isinstance(expires, str) and datetime.fromisoformat(expires) <= datetime.now(UTC):
                    return None
                found = item.block.get("id")
                return found if isinstance(found, str) else None
        return None

    def _blocks(self, msg: LLMUserMessage, position: Position, where: str) -> list[dict[str, Any]]:
        prefix = f"{msg.name}: " if msg.name else ""
        if isinstance(msg.content, str):
            return [_text(prefix + msg.content)]
        blocks: list[dict[str, Any]] = [_text(prefix.rstrip())] if prefix else []
        for i, part in enumerate(msg.content):
            if isinstance(part, TextUserMsgPart):
                blocks.append(_text(part.text))
                continue
            media = self._media(part, position, f"{where}.content[{i}]")
            blocks.append(_text(media) if isinstance(media, str) else self._media_block(part, media))
        return blocks

    def _media_block(self, part: MediaPart, media: ResolvedMedia) -> dict[str, Any]:
        source: dict[str, Any]
        if media.url is not None:
            source = {"type": "url", "url": media.url}
        elif media.media_type == "text/plain":
            source = {
                "type": "text",
                "media_type": "text/plain",
                "data": (media.data or b"").decode("utf-8", "replace"),
            }
        else:
            source = {"type": "base64", "media_type": media.media_type, "data": media.b64}
        if part.type == "image":
            return {"type": "image", "source": source}
        block: dict[str, Any] = {"type": "document", "source": source}
        filename = getattr(part, "filename", None)
        if filename:
            block["title"] = filename
        return block

    def _accepts(self, media: ResolvedMedia, part: MediaPart) -> bool:
        if part.type == "file":
            return media.media_type in ("application/pdf", "text/plain")
        return media.url is not None or media.media_type in ("image/png", "image/jpeg", "image/gif", "image/webp")

    def _assistant(self, msg: LLMAssistantMessage, names: ToolNames) -> list[dict[str, Any]]:
        blocks: list[dict[str, Any]] = []
        for block in msg.reasoning_blocks:
            if block.provider != self.provider:
                continue  # another provider's reasoning means nothing here and its signature would fail
            if block.type == "redacted_thinking":
                blocks.append({"type": "redacted_thinking", "data": block.data or ""})
            else:
                blocks.append({"type": "thinking", "thinking": block.text, "signature": block.signature or ""})
        text = msg.content if msg.refusal is None else assistant_text(msg)  # (never blank: see normalize.py)
        if msg.server_tool_blocks:
            text = self._interleave(msg.server_tool_blocks, text or "", blocks)
        if text:
            blocks.append(_text(text))
        for call in msg.tool_calls:
            blocks.append(
                {
                    "type": "tool_use",
                    "id": portable_id(call.id, ID_PATTERN),
                    "name": names[call.name],
                    "input": call.arguments_object(),
                }
            )
        return blocks

    def _interleave(self, server: tuple[ServerToolBlock, ...], text: str, blocks: list[dict[str, Any]]) -> str | None:
        """Append Anthropic's own server-side blocks to `blocks`, each after the text that preceded it when the
        model wrote it (`text_offset`); return the text that follows the last one (None when blank). A piece
        of text that is only whitespace is not cut off on its own (Anthropic refuses blank text blocks): it
        joins the next."""
        start = 0
        for item in server:
            if item.provider != self.provider or item.block.get("type") == "container":
                continue  # another provider's server-side work means nothing here; a container is a parameter
            cut = min(max(item.text_offset, start), len(text))
            piece = text[start:cut]
            if piece and not piece.isspace():
                blocks.append(_text(piece))
                start = cut
            blocks.append(dict(item.block))
            if item.block.get("type") == "text":  # a cited text block: it is this part of the text, sent as it came
                start = min(cut + len(str(item.block.get("text") or "")), len(text))
        rest = text[start:]
        return None if rest.isspace() else rest

    # ----------------------------------------------------------------------------------- Phase 6
    def _assemble_api_request(
        self, params: dict[str, Any], api_msgs: list[Any], tools: Sequence[ToolDefinition] | None
    ) -> dict[str, Any]:
        request: dict[str, Any] = {"model": params.pop("model"), "max_tokens": params.pop("max_tokens")}
        if "system" in params:
            request["system"] = params.pop("system")
        request["messages"] = api_msgs
        if tools:
            request["tools"] = [
                {
                    "name": self.api_tool_name(t.name),
                    "description": t.description,
                    "input_schema": self.clean_tool_schema(t),
                }
                for t in tools
            ]
        request.update(params)
        return move_to_extra_body(place_breakpoints(request, self.prompt_cache), NATIVE_PARAMS)

    def response_format(self, output: OutputSchema) -> dict[str, Any]:
        """Anthropic's native structured output (`output_config.format`), which wants every object closed."""
        return {"output_config": {"format": {"type": "json_schema", "schema": output.described(output.closed)}}}

    # ----------------------------------------------------------------------------------- calls
    def _stream_state(self) -> StreamState:
        return StreamState()

    def _event_deltas(self, event: dict[str, Any], state: StreamState) -> Iterator[StreamDelta]:
        return event_deltas(event, state, self.provider)

    def _finish_deltas(self, state: StreamState) -> Iterator[StreamDelta]:
        yield self._finish(state)

    def _finish(self, state: StreamState) -> FinishDelta:
        # (the stop reason comes in `message_delta`, near the end)
        reason = state.stop_reason
        usage = self._usage(state.usage, state.served)
        return self._stream_end(reason, _finish_reason(reason), usage, state.served or state.model, state.response_id)

    # ----------------------------------------------------------------------------------- responses
    def parse_response(self, raw: Any) -> AssistantTextMessage:
        data = as_dict(raw)
        text: list[str] = []
        text_len = 0
        blocks: list[ReasoningBlock] = []
        server: list[ServerToolBlock] = []
        calls: list[ToolCall] = []
        for block in data.get("content") or ():
            match block.get("type"):
                case "text":
                    if block.get("citations"):  # kept whole for replay (and display) where its text starts
                        server.append(ServerToolBlock(provider=self.provider, block=block, text_offset=text_len))
                    text.append(block.get("text") or "")
                    text_len += len(text[-1])
                case "thinking":
                    blocks.append(
                        ReasoningBlock(
                            text=block.get("thinking") or "", signature=block.get("signature"), provider=self.provider
                        )
                    )
                case "redacted_thinking":
                    blocks.append(
                        ReasoningBlock(type="redacted_thinking", data=block.get("data"), provider=self.provider)
                    )
                case "tool_use":
                    calls.append(
                        ToolCall(id=block["id"], name=block["name"], arguments=_dumps(block.get("input") or {}))
                    )
                case _:  # executed by Anthropic (server tools, MCP) or unknown: kept for replay
                    server.append(ServerToolBlock(provider=self.provider, block=block, text_offset=text_len))
        if container := data.get("container"):  # (code execution's: named by the next request, see above)
            block = container_block(container)
            server.append(ServerToolBlock(provider=self.provider, block=block, text_offset=text_len))
        served = _served(server)
        return reply_message(
            refusal_of(data),
            content="".join(text),
            reasoning_content=reasoning_text(blocks),
            reasoning_blocks=blocks,
            server_tool_blocks=server,
            tool_calls=calls or None,
            finish_reason=_finish_reason(data.get("stop_reason")),
            usage=self._usage(clean_nones(data.get("usage") or {}), served),
            model=self._model_tag(served or data.get("model")),
        )

    def _usage(self, raw: dict[str, Any], served: str | None = None) -> Usage | None:
        """Anthropic's `input_tokens` excludes cache reads and writes; ours is the whole prompt, a compaction's
        pass (`iterations`) included."""
        if not raw:
            return None
        # With context compaction the top-level counts leave out the compaction's own sampling pass, which
        # `iterations` lists beside the message's (and an advisor's, another model's, kept in `raw` only).
        passes = [raw, *(i for i in raw.get("iterations") or () if i.get("type") == "compaction")]
        read = sum(i.get("cache_read_input_tokens", 0) for i in passes)
        write = sum(i.get("cache_creation_input_tokens", 0) for i in passes)
        return Usage(
            input_tokens=sum(i.get("input_tokens", 0) for i in passes) + read + write,
            cache_read_tokens=read,
            cache_write_tokens=write,
            output_tokens=sum(i.get("output_tokens", 0) for i in passes),  # (thinking included: billed as output)
            reasoning_tokens=(raw.get("output_tokens_details") or {}).get("thinking_tokens", 0),
            raw=raw,
            model=served,
        )


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _served(server: list[ServerToolBlock]) -> str | None:
    """The model that served a reply, when one of its blocks is a fallback (the last one's)."""
    return next((m for b in reversed(server) if (m := served_by(b.block)) is not None), None)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _finish_reason(value: str | None) -> str | None:
    return FINISH_REASONS.get(value, value) if value else None
