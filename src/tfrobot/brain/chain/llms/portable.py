"""Portable ids and tool names: what a provider that restricts them receives, and the way back.

Stored tool-call ids and tool names are never rewritten. Where an API restricts them (Anthropic's call ids
`^[a-zA-Z0-9_-]+$`; tool names `^[a-zA-Z0-9_-]{1,64}$` at OpenAI, `{1,128}` at Anthropic, Gemini's
`^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$`) they are mapped per request, deterministically (a hash of the
original), so a call and its result always agree and nothing is kept between requests; the model's calls
of a mapped tool name come back under the tool's own name.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from functools import lru_cache
from hashlib import sha1

from tfrobot.brain.chain.llms.stream import StreamDelta, ToolCallDelta
from tfrobot.schema.message.conversation.message_dto import AssistantTextMessage


@lru_cache(maxsize=65536)  # pure, and called for every call and result of every request
def portable_id(call_id: str, pattern: str, max_len: int = 64) -> str:
    """`call_id` if it matches `pattern`, else a deterministic replacement that does.

    Deterministic (a hash of the original), so the same stored call maps to the same id in every request
    and a call and its result always agree without any state kept between requests. Tool names go through
    it too (`ChatLLM.api_tool_name`), which is why a stem the pattern still refuses (Gemini names must not
    start with a digit) falls back to `_<hash>`.
    """
    if re.fullmatch(pattern, call_id) and len(call_id) <= max_len:
        return call_id
    digest = sha1(call_id.encode()).hexdigest()[:10]
    stem = re.sub(r"[^a-zA-Z0-9_-]", "_", call_id)[: max_len - len(digest) - 1]
    portable = f"{stem}_{digest}"
    return portable if re.fullmatch(pattern, portable) else f"_{digest}"


def derived_call_id(response_id: str | None, index: int) -> str:
    """The id of the `index`-th tool call of a reply that gave it none (Gemini may omit call ids; its
    OpenAI-compatible endpoint and others send `""`): derived from the response's id, so the streamed and the
    plain reading of one reply agree, and stored with the call, so its result always names it."""
    return f"call_{response_id or uuid.uuid4().hex[:12]}_{index}"


class ToolNames(dict[str, str]):
    """The API names of one request's tool names (`mapper`: `ChatLLM.api_tool_name`), each worked out once:
    a conversation calls the same few tools over and over, and adapters look a name up for every call and
    result of every request (a hit is one dict lookup; the mapping itself costs ten times that)."""

    __slots__ = ("_mapper",)

    def __init__(self, mapper: Callable[[str], str]) -> None:
        super().__init__()
        self._mapper = mapper

    def __missing__(self, name: str) -> str:
        api = self[name] = self._mapper(name)
        return api


def restore_tool_names(reply: AssistantTextMessage, names: dict[str, str]) -> AssistantTextMessage:
    """`reply` with its calls of mapped names (`names`: API name -> the tool's own name) under the tools'
    own names."""
    if names and reply.tool_calls:
        reply.tool_calls = [
            call.model_copy(update={"name": names[call.name]}) if call.name in names else call
            for call in reply.tool_calls
        ]
    return reply


def named_back(delta: StreamDelta, names: dict[str, str]) -> StreamDelta:
    """A streamed call's first delta under the tool's own name when the API saw it mapped (`names`)."""
    if isinstance(delta, ToolCallDelta) and delta.name in names:
        return delta.model_copy(update={"name": names[delta.name]})
    return delta
