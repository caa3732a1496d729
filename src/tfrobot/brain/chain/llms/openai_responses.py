"""OpenAI's Responses API (`client.responses.create`), stateless: provider `openai-responses`.

Chat Completions (`openai.py`) stays for OpenAI-compatible endpoints; this is OpenAI's own newer API, the one
whose reasoning models keep their reasoning across a tool loop. Every request carries the whole conversation
(`store: false`: nothing is kept on OpenAI's side, so no response id to lose or leak), and a reasoning model's
reasoning items come back with their `encrypted_content` (`include: ["reasoning.encrypted_content"]`, asked
for where the model's profile says it reasons) and go back unchanged in every later request.

Wire format: `input` is a list of items. Messages (`{"role", "content"}`: text, or `input_text`, `input_image`,
`input_file` parts), the assistant's calls as `function_call` items and their results as
`function_call_output` items right after them. Tool results hold text only here, so their media follow the
results as a user message that says whose they are (as in `openai.py`). Reasoning items become one
`ReasoningBlock(provider="openai-responses")` per summary part, all with the item's `id` and the first with
its `encrypted_content` as `data`; consecutive blocks of one id go back as that one item. Output items that
OpenAI ran itself (web search, file search, code interpreter, MCP …) are `ServerToolBlock`s, replayed as they
came, with the reasoning items between them where they came (`server_offset` on the blocks: the API wants
each reasoning item followed by the item it led to), and around the text where they came (`text_offset`). A
message item with a `phase` or `url_citation` annotations is kept whole in `text_blocks` and goes back as that
item. A refusal is a `refusal` content part: an `AssistantRefusalMessage`, sent back as the assistant's text.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, ClassVar, assert_never

from tfrobot.brain.chain.llms.chat_llm import ChatLLM
from tfrobot.brain.chain.llms.errors import ProviderUnavailableError
from tfrobot.brain.chain.llms.media import Capabilities, Position, ResolvedMedia
from tfrobot.brain.chain.llms.output_schema import OutputSchema
from tfrobot.brain.chain.llms.portable import ToolNames
from tfrobot.brain.chain.llms.profiles import model_profile
from tfrobot.brain.chain.llms.stream import (
    FinishDelta,
    ReasoningBlockDelta,
    RefusalDelta,
    ServerToolBlockDelta,
    StreamDelta,
    TextDelta,
    ToolCallDelta,
    reasoning_text,
    reply_message,
)
from tfrobot.brain.chain.llms.wire import CONSOLE_LABEL, as_dict, assistant_text, attachment_label, clean_nones
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

ENCRYPTED_REASONING = "reasoning.encrypted_content"
"""The `include` value that makes OpenAI return reasoning items replayable without `store`."""

INCOMPLETE_REASONS: dict[str, str] = {"max_output_tokens": "length", "content_filter": "content_filter"}
"""Why a response stopped `incomplete` (`incomplete_details.reason`) -> our finish reason."""

_OWN_ITEMS = frozenset({"message", "reasoning", "function_call"})
"""Output item types read into the message; every other one is a server-side block kept for replay."""


class OpenAIResponsesChat(ChatLLM):
    """OpenAI through the Responses API (`openai` SDK), stateless."""

    provider: ClassVar[str] = "openai-responses"
    max_tokens_key: ClassVar[str] = "max_output_tokens"
    capabilities: ClassVar[Capabilities] = Capabilities(
        user=frozenset({"image", "file"}),
        tool_result=frozenset({"image", "file"}),
        url_sources=frozenset({"image", "file"}),
    )
    sdk_module: ClassVar[str] = "openai"
    sdk_create: ClassVar[str] = "responses.create"
    sdk_extra: ClassVar[str] = "openai"
    sdk_clients: ClassVar[tuple[str, str]] = ("OpenAI", "AsyncOpenAI")
    api_key_env: ClassVar[tuple[str, ...]] = ("OPENAI_API_KEY",)
    tool_name_rule: ClassVar[tuple[str, int] | None] = (r"[a-zA-Z0-9_-]+", 64)

    model: str = "gpt-5"

    # ----------------------------------------------------------------------------------- Phase 5
    def reformat_request_msg_to_api(self, msgs: list[LLMMessage], params: dict[str, Any]) -> list[Any]:
        # One pass, dispatched by an `isinstance` chain, most frequent kind first (see openai.py).
        call_ids: set[str] | None = None
        names = ToolNames(self.api_tool_name)
        out: list[dict[str, Any]] = []
        append = out.append
        for index, msg in enumerate(msgs):
            if isinstance(msg, LLMAssistantMessage):
                self._assistant(msg, names, out)
            elif isinstance(msg, LLMUserMessage):
                if msg.attachment_of is None and isinstance(msg.content, str) and not msg.name:
                    append({"role": "user", "content": msg.content})
                    continue
                if call_ids is None:
                    call_ids = call_ids_of(msgs)
                append(self._user(msg, call_ids, f"messages[{index}]"))
            elif isinstance(msg, LLMToolMessage):
                output = f"[tool error] {msg.content}" if msg.is_error else msg.content
                append({"type": "function_call_output", "call_id": msg.tool_call_id, "output": output})
            elif isinstance(msg, LLMSystemMessage):
                append({"role": "system", "content": msg.content})
            elif isinstance(msg, LLMTFLMessage):
                append({"role": "user", "content": f"{CONSOLE_LABEL}\n{msg.content}"})
            elif isinstance(msg, LLMFunctionMessage):
                append({"role": "user", "content": f"[result of function {msg.name}]\n{msg.content}"})
            else:
                assert_never(msg)
        return out

    def _user(self, msg: LLMUserMessage, call_ids: set[str], where: str) -> dict[str, Any]:
        prefix = f"{msg.name}: " if msg.name else ""
        if isinstance(msg.content, str):
            return {"role": "user", "content": prefix + msg.content}
        position: Position = "user" if msg.attachment_of is None else "tool_result"
        parts: list[dict[str, Any]] = []
        if msg.attachment_of is not None:
            parts.append(_text(attachment_label(msg.attachment_of, msg.attachment_of in call_ids)))
        elif prefix:
            parts.append(_text(prefix.rstrip()))
        for i, part in enumerate(msg.content):
            if isinstance(part, TextUserMsgPart):
                parts.append(_text(part.text))
                continue
            media = self._media(part, position, f"{where}.content[{i}]")
            parts.append(_text(media) if isinstance(media, str) else self._part(part, media))
        return {"role": "user", "content": parts}

    @staticmethod
    def _part(part: MediaPart, media: ResolvedMedia) -> dict[str, Any]:
        """One native media part: an image by URL or data URL, a file by URL or as data with its name."""
        if part.type == "image":
            return {"type": "input_image", "image_url": media.url or media.data_url, "detail": "auto"}
        if media.url is not None:
            return {"type": "input_file", "file_url": media.url}
        name = getattr(part, "filename", None) or "document.pdf"
        return {"type": "input_file", "file_data": media.data_url, "filename": name}

    def _accepts(self, media: ResolvedMedia, part: MediaPart) -> bool:
        if part.type == "file":
            return media.url is not None or media.media_type == "application/pdf"
        return True

    def _assistant(self, msg: LLMAssistantMessage, names: ToolNames, out: list[dict[str, Any]]) -> None:
        """The assistant's items in the order they came: its reasoning items and its own server-side items, its
        text cut where a server-side item came within or after it (`text_offset`: a compaction item that came
        after the message stands for it, so it must follow it), then its calls."""
        reasoning = self._reasoning_items(msg.reasoning_blocks) if msg.reasoning_blocks else []
        text = (msg.content if msg.refusal is None else assistant_text(msg)) or ""
        done = said = 0
        if msg.server_tool_blocks:  # between this provider's server-side items, where they came
            own = (server for server in msg.server_tool_blocks if server.provider == self.provider)
            for count, server in enumerate(own):
                while done < len(reasoning) and reasoning[done][0] <= count:
                    out.append(reasoning[done][1])
                    done += 1
                cut = min(server.text_offset, len(text))
                if cut > said:
                    out += self._said(text, said, cut, msg.text_blocks)
                    said = cut
                out.append(dict(server.block))
        out += [item for _, item in reasoning[done:]]
        if text[said:]:
            out += self._said(text, said, len(text), msg.text_blocks)
        for call in msg.tool_calls:
            out.append(
                {"type": "function_call", "call_id": call.id, "name": names[call.name], "arguments": call.arguments}
            )

    def _said(self, text: str, start: int, end: int, kept: Sequence[ServerToolBlock]) -> Iterator[dict[str, Any]]:
        """The assistant's text from `start` to `end`: the message items kept whole there (their `phase`, their
        citations) as they came, the rest as plain assistant messages."""
        at = start
        for block in kept:
            if block.provider != self.provider or not start <= block.text_offset < end:
                continue
            if block.text_offset > at:
                yield {"role": "assistant", "content": text[at : block.text_offset]}
            yield dict(block.block)
            at = block.text_offset + len(_item_text(block.block))
        if end > at:
            yield {"role": "assistant", "content": text[at:end]}

    def _reasoning_items(self, blocks: list[ReasoningBlock]) -> list[tuple[int, dict[str, Any]]]:
        """This provider's reasoning blocks as the items they came as (one item per `id`, its summary parts in
        order), each with how many server-side items came before it. An item without its `encrypted_content`
        is not sent: stateless, OpenAI cannot look it up."""
        items: list[tuple[int, dict[str, Any]]] = []
        current: dict[str, Any] | None = None
        for block in blocks:
            if block.provider != self.provider:
                continue  # another provider's reasoning means nothing here
            item_id = getattr(block, "id", None)
            if current is None or item_id != current["id"]:
                current = {"type": "reasoning", "id": item_id, "summary": []}
                if block.data:
                    current["encrypted_content"] = block.data
                    items.append((getattr(block, "server_offset", 0), current))
            if block.text and getattr(block, "raw", False):
                current.setdefault("content", []).append({"type": "reasoning_text", "text": block.text})
            elif block.text:
                current["summary"].append({"type": "summary_text", "text": block.text})
        return items

    # ----------------------------------------------------------------------------------- Phase 6
    def _assemble_api_request(
        self, params: dict[str, Any], api_msgs: list[Any], tools: Sequence[ToolDefinition] | None
    ) -> dict[str, Any]:
        model = params.pop("model")
        request: dict[str, Any] = {"model": model, "input": api_msgs}
        if tools:
            request["tools"] = [
                {
                    "type": "function",
                    "name": self.api_tool_name(t.name),
                    "description": t.description,
                    "parameters": self.clean_tool_schema(t),
                    "strict": False,  # (the API's default is strict, which our tools' schemas need not meet)
                }
                for t in tools
            ]
        request["store"] = False
        if model_profile(model).encrypted_reasoning:
            request["include"] = [ENCRYPTED_REASONING]
        request.update(params)
        return request

    def response_format(self, output: OutputSchema) -> dict[str, Any]:
        strict = output.strict
        form: dict[str, Any] = {"type": "json_schema", "name": output.name, "strict": strict}
        form["schema"] = output.closed if strict else output.schema
        if output.description:
            form["description"] = output.description
        return {"text": {"format": form}}

    # ----------------------------------------------------------------------------------- calls
    def _stream_state(self) -> _StreamState:
        return _StreamState()

    def _event_deltas(self, event: dict[str, Any], state: _StreamState) -> Iterator[StreamDelta]:
        kind = event.get("type")
        index = event.get("output_index", 0)
        if kind == "response.output_text.delta":
            yield TextDelta(text=event.get("delta") or "")
        elif kind == "response.function_call_arguments.delta":
            yield ToolCallDelta(index=index, arguments=event.get("delta") or "")
        elif kind == "response.reasoning_summary_text.delta":
            block = state.block_index(index, event.get("summary_index", 0))
            state.streamed.add(block)
            text = event.get("delta") or ""
            yield ReasoningBlockDelta(index=block, text=text, item_id=event.get("item_id"), provider=self.provider)
        elif kind == "response.reasoning_text.delta":  # (raw reasoning: gpt-oss, through OpenRouter)
            block = state.block_index(index, event.get("content_index", 0))
            state.streamed.add(block)
            text = event.get("delta") or ""
            yield ReasoningBlockDelta(
                index=block, text=text, item_id=event.get("item_id"), provider=self.provider, raw=True
            )
        elif kind == "response.refusal.delta":
            state.refused = True
            yield RefusalDelta(text=event.get("delta") or "")
        elif kind == "response.output_item.added":
            item = event.get("item") or {}
            if item.get("type") == "function_call":
                yield ToolCallDelta(index=index, id=item.get("call_id"), name=item.get("name"))
            elif item.get("type") not in _OWN_ITEMS:  # (its place among the others; its bytes come later)
                yield ServerToolBlockDelta(provider=self.provider, block=item, index=index)
        elif kind == "response.output_item.done":
            item = event.get("item") or {}
            match item.get("type"):
                case "reasoning":
                    yield from self._reasoning_done(item, index, state)
                case "message":
                    state.refused = state.refused or any(p.get("type") == "refusal" for p in item.get("content") or ())
                    kept = _kept_message(item)
                    if kept is not None:
                        yield ServerToolBlockDelta(provider=self.provider, block=kept, text=_item_text(kept))
                case "function_call":
                    pass
                case _:
                    yield ServerToolBlockDelta(provider=self.provider, block=item, index=index)
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            state.response = event.get("response") or {}
            yield from self._final_reasoning(state)
            yield from self._final_items(state)
        elif kind == "error":
            raise ProviderUnavailableError(
                self.provider, f"the stream failed: {event.get('message') or event.get('code') or event}"
            )

    def _reasoning_done(self, item: dict[str, Any], index: int, state: _StreamState) -> Iterator[StreamDelta]:
        """A complete reasoning item: its summary parts not streamed yet, then its id and encrypted content on
        its first block (and its id on the others), so that the blocks equal those of the plain response."""
        parts, raw = _reasoning_parts(item)
        for i, part in enumerate(parts):
            block = state.block_index(index, i)
            text = "" if block in state.streamed else part.get("text") or ""
            data = item.get("encrypted_content") if i == 0 else None
            yield ReasoningBlockDelta(
                index=block, text=text, data=data, item_id=item.get("id"), provider=self.provider, raw=raw
            )

    def _final_reasoning(self, state: _StreamState) -> Iterator[StreamDelta]:
        """The encrypted content of each reasoning item as the final response holds it: OpenAI encrypts anew
        for that event (recorded: it differs from the item's `done` event), and the final response is the one
        a plain call returns, so the streamed message keeps the same bytes."""
        for index, item in enumerate((state.response or {}).get("output") or ()):
            if item.get("type") != "reasoning":
                continue
            parts, raw = _reasoning_parts(item)
            for i in range(len(parts)):  # (and its id: OpenRouter's stream names items apart from its response)
                data = item.get("encrypted_content") if i == 0 else None
                block = state.block_index(index, i)
                yield ReasoningBlockDelta(
                    index=block, data=data, item_id=item.get("id"), provider=self.provider, raw=raw
                )

    def _final_items(self, state: _StreamState) -> Iterator[StreamDelta]:
        """Every server-side item as the final response holds it, in the place its `output_item.added` event
        took: some have no `done` event (recorded: two of three `mcp_list_tools` items), and OpenAI encrypts a
        `compaction` item anew for the final response (as it does reasoning), which a plain call returns."""
        for index, item in enumerate((state.response or {}).get("output") or ()):
            if item.get("type") not in _OWN_ITEMS:
                yield ServerToolBlockDelta(provider=self.provider, block=item, index=index)

    def _finish_deltas(self, state: _StreamState) -> Iterator[StreamDelta]:
        yield self._finish(state)

    def _finish(self, state: _StreamState) -> FinishDelta:
        response = state.response
        if response is None:
            raise ProviderUnavailableError(
                self.provider, "the stream ended before the response was complete (no finish reason); retry the turn"
            )
        self._raise_failed(response)
        has_calls = any(item.get("type") == "function_call" for item in response.get("output") or ())
        reason = _finish_reason(response, state.refused, has_calls)
        return FinishDelta(
            finish_reason=reason, usage=self._usage(response.get("usage")), model=self._model_tag(response.get("model"))
        )

    # ----------------------------------------------------------------------------------- responses
    def parse_response(self, raw: Any) -> AssistantTextMessage:
        data = as_dict(raw)
        self._raise_failed(data)
        text: list[str] = []
        text_len = 0
        refusal: list[str] = []
        blocks: list[ReasoningBlock] = []
        server: list[ServerToolBlock] = []
        texts: list[ServerToolBlock] = []
        calls: list[ToolCall] = []
        for item in data.get("output") or ():
            match item.get("type"):
                case "message":
                    kept = _kept_message(item)
                    if kept is not None:
                        texts.append(ServerToolBlock(provider=self.provider, block=kept, text_offset=text_len))
                    for part in item.get("content") or ():
                        if part.get("type") == "refusal":
                            refusal.append(part.get("refusal") or "")
                        elif part.get("type") == "output_text":
                            text.append(part.get("text") or "")
                            text_len += len(text[-1])
                case "reasoning":
                    blocks += self._reasoning_blocks(item, len(server))
                case "function_call":
                    calls.append(
                        ToolCall(id=item["call_id"], name=item["name"], arguments=item.get("arguments") or "{}")
                    )
                case _:  # run by OpenAI itself (web search, code interpreter, MCP …) or unknown: kept for replay
                    server.append(ServerToolBlock(provider=self.provider, block=item, text_offset=text_len))
        refused = "".join(refusal) or None
        return reply_message(
            refused,
            content="".join(text),
            reasoning_content=reasoning_text(blocks),
            reasoning_blocks=blocks,
            server_tool_blocks=server,
            text_blocks=texts,
            tool_calls=calls or None,
            finish_reason=_finish_reason(data, refused is not None, bool(calls)),
            usage=self._usage(data.get("usage")),
            model=self._model_tag(data.get("model")),
        )

    def _raise_failed(self, response: dict[str, Any]) -> None:
        """A response that failed on OpenAI's side (`status: failed`) is an error, with OpenAI's reason."""
        if response.get("status") == "failed":
            error = response.get("error") or {}
            reason = error.get("message") or error.get("code") or "no reason given"
            raise ProviderUnavailableError(self.provider, f"the response failed: {reason}; retry the turn")

    def _reasoning_blocks(self, item: dict[str, Any], server_offset: int) -> list[ReasoningBlock]:
        """One block per summary part (one empty block when the summary is empty), all with the item's id and
        how many server-side items came before it, the first with its encrypted content."""
        parts, raw = _reasoning_parts(item)
        marks: dict[str, Any] = {"raw": True} if raw else {}
        return [
            ReasoningBlock(
                text=part.get("text") or "",
                data=item.get("encrypted_content") if i == 0 else None,
                provider=self.provider,
                id=item.get("id"),
                server_offset=server_offset,
                **marks,
            )
            for i, part in enumerate(parts)
        ]

    def _usage(self, usage: dict[str, Any] | None) -> Usage | None:
        """OpenAI's `input_tokens` include the cached ones (read, and written where the API reports it) and
        `output_tokens` the reasoning: as ours do."""
        if not usage:
            return None
        raw = clean_nones(usage)
        input_details = raw.get("input_tokens_details") or {}
        return Usage(
            input_tokens=raw.get("input_tokens", 0),
            output_tokens=raw.get("output_tokens", 0),
            cache_read_tokens=input_details.get("cached_tokens", 0),
            cache_write_tokens=input_details.get("cache_write_tokens", 0),
            reasoning_tokens=(raw.get("output_tokens_details") or {}).get("reasoning_tokens", 0),
            raw=raw,
        )


class _StreamState:
    """What the finish delta needs (the final response, whether the model refused) and which reasoning block
    each summary part of each output item is."""

    def __init__(self) -> None:
        self.response: dict[str, Any] | None = None
        self.refused = False
        self.blocks: dict[tuple[int, int], int] = {}
        self.streamed: set[int] = set()
        """The blocks whose text arrived in deltas (the item's `done` event must not add it again)."""

    def block_index(self, output_index: int, summary_index: int) -> int:
        """The reasoning block of one summary part: numbered in the order they first appear."""
        return self.blocks.setdefault((output_index, summary_index), len(self.blocks))


def _reasoning_parts(item: dict[str, Any]) -> tuple[list[dict[str, Any]], bool]:
    """A reasoning item's parts, one block each, and whether they are raw reasoning: its summary parts, else its
    `reasoning_text` content (the raw reasoning some models return: gpt-oss), else one empty part."""
    summary = item.get("summary") or []
    if summary:
        return summary, False
    raw = [part for part in item.get("content") or () if part.get("type") == "reasoning_text"]
    return (raw, True) if raw else ([{}], False)


def _kept_message(item: dict[str, Any]) -> dict[str, Any] | None:
    """A message item as it goes back when it carries more than its text: its `phase` (`commentary` or
    `final_answer`: OpenAI asks for it back, the model degrades without it) or `url_citation` annotations (where
    the answer comes from); without its `logprobs` (output only: the recorded next request left them out). A
    refusal is not kept: it goes back as the assistant's text."""
    parts = item.get("content") or ()
    if any(part.get("type") != "output_text" for part in parts):
        return None
    if not item.get("phase") and not any(part.get("annotations") for part in parts):
        return None
    content = [{key: value for key, value in part.items() if key != "logprobs"} for part in parts]
    return {**item, "content": content}


def _item_text(item: Any) -> str:
    """The text of a message item: its `output_text` parts joined."""
    return "".join(str(part.get("text") or "") for part in item.get("content") or ())


def _text(text: str) -> dict[str, Any]:
    return {"type": "input_text", "text": text}


def _finish_reason(response: dict[str, Any], refused: bool, has_calls: bool) -> str | None:
    """Ours for a response's `status` (and why it is incomplete): a refusal, tool calls, or a plain stop."""
    status = response.get("status")
    if refused:
        return "refusal"
    if status == "incomplete":
        reason = (response.get("incomplete_details") or {}).get("reason") or "incomplete"
        return INCOMPLETE_REASONS.get(reason, reason)
    if status in ("completed", None):
        return "tool_calls" if has_calls else "stop"
    return str(status)
