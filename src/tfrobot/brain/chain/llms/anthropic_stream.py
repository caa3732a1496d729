"""Anthropic's stream events -> our stream deltas (`AnthropicChat._event_deltas` delegates here), and the
reading of the reply blocks that streamed and whole replies share: the model a fallback says served, the code
execution container, the refusal's explanation.

A stream sends each content block as a start, deltas and a stop: text and thinking go out as they come; blocks
Anthropic executed itself (server tools, MCP) and text with citations are gathered in `StreamState` and yielded
whole at their stop, as `ServerToolBlockDelta`s, so a streamed reply keeps what `parse_response` keeps.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from tfrobot.brain.chain.llms.stream import (
    ReasoningBlockDelta,
    RefusalDelta,
    ServerToolBlockDelta,
    StreamDelta,
    TextDelta,
    ToolCallDelta,
)
from tfrobot.brain.chain.llms.wire import clean_nones


class StreamState:
    """What a stream's events leave for the ones after them and for the finish delta."""

    def __init__(self) -> None:
        self.model: str | None = None
        self.response_id: str | None = None
        self.served: str | None = None
        """The model a `fallback` block says served the reply (the reply's `model` names the requested one)."""
        self.stop_reason: str | None = None
        self.usage: dict[str, Any] = {}
        self.server: dict[int, tuple[dict[str, Any], list[str]]] = {}
        """Server-side blocks being streamed, by index: the block as it started, its input JSON so far."""
        self.cited: dict[int, tuple[dict[str, Any], list[str], list[Any]]] = {}
        """Text blocks that may carry citations, by index: the block as it started, its text and citations so far."""


def event_deltas(event: dict[str, Any], state: StreamState, provider: str) -> Iterator[StreamDelta]:
    """The deltas of one stream `event` (none for most), `state` updated; `provider` names the blocks' writer."""
    kind = event.get("type")
    index = event.get("index", 0)
    if kind == "message_start":
        message = event.get("message") or {}
        state.model = message.get("model")
        state.response_id = message.get("id")
        state.usage.update(clean_nones(message.get("usage") or {}))
    elif kind == "content_block_start":
        block = event.get("content_block") or {}
        if block.get("type") == "text" and "citations" in block:  # (cited text: kept whole when complete)
            state.cited[index] = (block, [block.get("text") or ""], list(block.get("citations") or ()))
        match block.get("type"):
            case "text" if block.get("text"):
                yield TextDelta(text=block["text"])
            case "thinking":
                yield ReasoningBlockDelta(index=index, text=block.get("thinking") or "", provider=provider)
            case "redacted_thinking":
                yield ReasoningBlockDelta(
                    index=index, block_type="redacted_thinking", data=block.get("data"), provider=provider
                )
            case "tool_use":
                yield ToolCallDelta(index=index, id=block.get("id"), name=block.get("name"))
            case "text" | "thinking" | "redacted_thinking":
                pass
            case _:  # executed by Anthropic (server tools, MCP) or unknown: kept whole, yielded when complete
                state.server[index] = (block, [])
    elif kind == "content_block_delta":
        delta = event.get("delta") or {}
        match delta.get("type"):
            case "text_delta":
                if index in state.cited:
                    state.cited[index][1].append(delta.get("text") or "")
                yield TextDelta(text=delta.get("text") or "")
            case "citations_delta" if index in state.cited:
                state.cited[index][2].append(delta.get("citation"))
            case "thinking_delta":
                yield ReasoningBlockDelta(index=index, text=delta.get("thinking") or "", provider=provider)
            case "signature_delta":
                yield ReasoningBlockDelta(index=index, signature=delta.get("signature"), provider=provider)
            case "input_json_delta" if index in state.server:
                state.server[index][1].append(delta.get("partial_json") or "")
            case "compaction_delta" if index in state.server:  # (its block starts with `content: null`)
                block = state.server[index][0]
                for key, value in delta.items():
                    if key != "type" and isinstance(value, str):
                        block[key] = (block.get(key) or "") + value
            case "input_json_delta":
                yield ToolCallDelta(index=index, arguments=delta.get("partial_json") or "")
    elif kind == "content_block_stop" and index in state.cited:
        block, pieces, citations = state.cited.pop(index)
        if citations:
            yield ServerToolBlockDelta(
                provider=provider, block={**block, "text": "".join(pieces), "citations": citations}
            )
    elif kind == "content_block_stop" and index in state.server:
        block, partial = state.server.pop(index)
        if "".join(partial):
            block = {**block, "input": _loads_input("".join(partial))}
        state.served = served_by(block) or state.served
        yield ServerToolBlockDelta(provider=provider, block=block)
    elif kind == "message_delta":
        delta = event.get("delta") or {}
        state.stop_reason = delta.get("stop_reason") or state.stop_reason
        state.usage.update(clean_nones(event.get("usage") or {}))
        if container := delta.get("container"):
            yield ServerToolBlockDelta(provider=provider, block=container_block(container))
        if (refusal := refusal_of(delta)) is not None:
            yield RefusalDelta(text=refusal)


def served_by(block: dict[str, Any]) -> str | None:
    """The model a `fallback` block says took over (`to.model`): Anthropic's fallback routing answers with
    another model than the one requested, and the reply's `model` still names the requested one."""
    target = block.get("to") if block.get("type") == "fallback" else None
    model = target.get("model") if isinstance(target, dict) else None
    return model if isinstance(model, str) else None


def container_block(container: dict[str, Any]) -> dict[str, Any]:
    """A reply's `container` as the block it is kept as (JSON values: the SDK reads `expires_at` as a datetime)."""
    values = {k: v.isoformat() if isinstance(v, datetime) else v for k, v in container.items()}
    return {"type": "container", **values}


def _loads_input(text: str) -> Any:
    """A server-side block's streamed `input` JSON as the object the non-streamed block holds (kept as raw
    text under `_raw_arguments` in the unlikely case it does not parse, as malformed tool arguments are)."""
    try:
        return json.loads(text)
    except ValueError:
        return {"_raw_arguments": text}


def refusal_of(stop: dict[str, Any]) -> str | None:
    """Why Anthropic refused, from a reply (or a stream's `message_delta`) that stopped with `refusal`: its
    `stop_details.explanation`, kept as the message's refusal (the text may be empty or cut off)."""
    if stop.get("stop_reason") != "refusal":
        return None
    explanation = (stop.get("stop_details") or {}).get("explanation")
    return explanation if isinstance(explanation, str) and explanation else None
