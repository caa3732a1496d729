"""The peers on the fair-ceiling workload: LangChain, pydantic-ai and LiteLLM, each in its own types.

Each builds the same turns (`harness.workload.Turn`) the way its own Anthropic integration would have
recorded them — reasoning as a thinking block with its signature, the two calls, the two results, the
answer — in a flat list (none of them has a trace), and offers the operations it has:

* LangChain: JSON round trip (`messages_to_dict` → JSON → `messages_from_dict`), OpenAI payload
  (`langchain_openai`'s `_convert_message_to_dict` per message), Anthropic payload
  (`langchain_anthropic`'s `_format_messages`);
* pydantic-ai: round trip (`ModelMessagesTypeAdapter`), `OpenAIChatModel._map_messages` and
  `AnthropicModel._map_message` (async: one event-loop round trip per run);
* LiteLLM: its messages are OpenAI-format dicts, so it has no typed round trip; `transform_request` of
  `OpenAIGPTConfig` and `AnthropicConfig` (`LITELLM_LOCAL_MODEL_COST_MAP=True` keeps its import off the
  network).

Restored types are checked after the warm-up round trip (`check`), outside the timed region.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness.workload import MODEL, QUESTION, SYSTEM, TOOL, Turn, turns

Op = Callable[[], object]


@dataclass
class Peer:
    """One peer's operations over one conversation, by row name ("round trip", "openai", "anthropic")."""

    name: str
    ops: dict[str, Op] = field(default_factory=dict)
    size: int | None = None
    """Bytes of its JSON dump (None: it has no typed dump)."""
    message_count: int = 0
    """Objects in its flat list (its own count: results may share one request)."""


def same_types(before: list[Any], after: list[Any], parts: Callable[[Any], list[Any]] | None = None) -> None:
    """Fail when a round trip changed the number or the class of any message (or part)."""
    if len(before) != len(after):
        raise SystemExit(f"round trip changed the number of messages: {len(before)} -> {len(after)}")
    for x, y in zip(before, after, strict=True):
        if type(x) is not type(y):
            raise SystemExit(f"type lost in the round trip: {type(x).__name__} came back as {type(y).__name__}")
        if parts is not None:
            same_types(parts(x), parts(y))


# --- LangChain --------------------------------------------------------------------------------------------


def langchain(n: int) -> Peer:
    from langchain_anthropic.chat_models import _format_messages
    from langchain_core.messages import (
        AIMessage,
        HumanMessage,
        SystemMessage,
        ToolMessage,
        messages_from_dict,
        messages_to_dict,
    )
    from langchain_core.messages import BaseMessage as LCMessage
    from langchain_openai.chat_models.base import _convert_message_to_dict

    msgs: list[LCMessage] = [SystemMessage(SYSTEM)]
    for turn in turns(n):
        if turn.image_url is None:
            msgs.append(HumanMessage(turn.question))
        else:
            image = {"type": "image_url", "image_url": {"url": turn.image_url}}
            msgs.append(HumanMessage([{"type": "text", "text": turn.question}, image]))
        calls = [
            {"name": TOOL, "args": json.loads(turn.arguments(k)), "id": turn.call_id(k), "type": "tool_call"}
            for k in (0, 1)
        ]
        thinking = {"type": "thinking", "thinking": turn.reasoning, "signature": turn.signature}
        msgs.append(AIMessage([thinking], tool_calls=calls, response_metadata={"model_name": MODEL}))
        msgs += [ToolMessage(turn.result(k), tool_call_id=turn.call_id(k), name=TOOL) for k in (0, 1)]
        msgs.append(AIMessage(turn.answer, response_metadata={"model_name": MODEL}))
    msgs.append(HumanMessage(QUESTION))
    stored = msgs[:-1]

    def round_trip() -> list[LCMessage]:
        return messages_from_dict(json.loads(json.dumps(messages_to_dict(stored))))

    same_types(stored, round_trip())
    return Peer(
        "langchain",
        {
            "round trip": round_trip,
            "openai": lambda: [_convert_message_to_dict(m) for m in msgs],
            "anthropic": lambda: _format_messages(msgs, model=MODEL),
        },
        size=len(json.dumps(messages_to_dict(stored)).encode()),
        message_count=len(stored),
    )


# --- pydantic-ai -----------------------------------------------------------------------------------------


def pydantic_ai(n: int) -> Peer:
    from pydantic_ai.messages import (
        ImageUrl,
        ModelMessage,
        ModelMessagesTypeAdapter,
        ModelRequest,
        ModelResponse,
        SystemPromptPart,
        TextPart,
        ThinkingPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )
    from pydantic_ai.models import ModelRequestParameters
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.anthropic import AnthropicProvider
    from pydantic_ai.providers.openai import OpenAIProvider

    def prompt(turn: Turn) -> UserPromptPart:
        if turn.image_url is None:
            return UserPromptPart(turn.question)
        return UserPromptPart([turn.question, ImageUrl(turn.image_url)])

    stored: list[ModelMessage] = []
    for turn in turns(n):
        parts: list[Any] = [prompt(turn)]
        if turn.i == 0:
            parts.insert(0, SystemPromptPart(SYSTEM))
        stored.append(ModelRequest(parts=parts))
        thinking = ThinkingPart(turn.reasoning, signature=turn.signature, provider_name="anthropic")
        calls = [ToolCallPart(TOOL, turn.arguments(k), turn.call_id(k)) for k in (0, 1)]
        stored.append(ModelResponse(parts=[thinking, *calls], model_name=MODEL, provider_name="anthropic"))
        stored.append(ModelRequest(parts=[ToolReturnPart(TOOL, turn.result(k), turn.call_id(k)) for k in (0, 1)]))
        stored.append(ModelResponse(parts=[TextPart(turn.answer)], model_name=MODEL, provider_name="anthropic"))
    msgs = [*stored, ModelRequest(parts=[UserPromptPart(QUESTION)])]

    adapter = ModelMessagesTypeAdapter

    def round_trip() -> list[ModelMessage]:
        return adapter.validate_json(adapter.dump_json(stored))

    same_types(stored, round_trip(), lambda m: list(m.parts))
    params = ModelRequestParameters()
    loop = asyncio.new_event_loop()
    openai = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(api_key="bench"))
    anthropic = AnthropicModel(MODEL, provider=AnthropicProvider(api_key="bench"))
    return Peer(
        "pydantic-ai",
        {
            "round trip": round_trip,
            "openai": lambda: loop.run_until_complete(openai._map_messages(msgs, params)),
            "anthropic": lambda: loop.run_until_complete(anthropic._map_message(msgs, params, {})),
        },
        size=len(adapter.dump_json(stored)),
        message_count=len(stored),
    )


# --- LiteLLM ---------------------------------------------------------------------------------------------


def litellm(n: int) -> Peer:
    """`transform_request` adds keys to `optional_params`, so each run gets a fresh dict."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from litellm.llms.anthropic.chat.transformation import AnthropicConfig
    from litellm.llms.openai.chat.gpt_transformation import OpenAIGPTConfig

    msgs: list[Any] = [{"role": "system", "content": SYSTEM}]
    for turn in turns(n):
        content: Any = turn.question
        if turn.image_url is not None:
            content = [
                {"type": "text", "text": turn.question},
                {"type": "image_url", "image_url": {"url": turn.image_url}},
            ]
        msgs.append({"role": "user", "content": content})
        calls = [
            {"id": turn.call_id(k), "type": "function", "function": {"name": TOOL, "arguments": turn.arguments(k)}}
            for k in (0, 1)
        ]
        thinking = [{"type": "thinking", "thinking": turn.reasoning, "signature": turn.signature}]
        msgs.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": calls,
                "reasoning_content": turn.reasoning,
                "thinking_blocks": thinking,
            }
        )
        msgs += [{"role": "tool", "tool_call_id": turn.call_id(k), "content": turn.result(k)} for k in (0, 1)]
        msgs.append({"role": "assistant", "content": turn.answer})
    msgs.append({"role": "user", "content": QUESTION})
    openai, anthropic = OpenAIGPTConfig(), AnthropicConfig()

    def to_openai() -> dict[str, Any]:
        return openai.transform_request(
            model="gpt-4o", messages=msgs, optional_params={}, litellm_params={}, headers={}
        )

    def to_anthropic() -> dict[str, Any]:
        return anthropic.transform_request(
            model=MODEL, messages=msgs, optional_params={"max_tokens": 4096}, litellm_params={}, headers={}
        )

    return Peer("litellm", {"openai": to_openai, "anthropic": to_anthropic}, message_count=len(msgs) - 1)


PEERS: tuple[Callable[[int], Peer], ...] = (langchain, pydantic_ai, litellm)
"""Every peer, in the order of the table's columns."""
