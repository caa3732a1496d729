"""Anthropic prompt caching: `cache_control` breakpoints placed on every request, so an agent loop pays the
full input price for each part of its prompt once.

Anthropic caches the prefix of a request (tools, then system, then messages) up to each block that carries
`cache_control`; a later request that starts with the same bytes reads it back at a tenth of the price.
Every request of a loop rebuilds the conversation and appends to it, so the breakpoints go where the
prefix is stable: the last tool definition (the tools), the system prompt, and the last block of the last
turn (everything so far: the next step of the loop starts with it). Anthropic allows four breakpoints; this
places at most three, leaving one to the caller (`extra_params`). A prefix shorter than the model's minimum
(1,024 tokens for most models) is simply not cached: the breakpoints cost nothing then.

OpenAI and Gemini cache implicitly, by prefix: what makes them hit is the same stable prefix, which every
adapter keeps by building each request from the same messages in the same order (tested for all three).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

CACHEABLE_BLOCKS = frozenset({"text", "image", "document", "tool_use", "tool_result"})
"""Block types that take `cache_control` (thinking blocks and server-side blocks do not)."""


class PromptCache(BaseModel):
    """Where the Anthropic adapter places `cache_control` breakpoints; `enabled=False` places none."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = Field(default=True, description="Place breakpoints at all.")
    tools: bool = Field(default=True, description="A breakpoint on the last tool definition.")
    system: bool = Field(default=True, description="A breakpoint on the system prompt.")
    last_turn: bool = Field(default=True, description="A breakpoint on the last block of the last turn.")
    ttl: Literal["5m", "1h"] = Field(default="5m", description="How long Anthropic keeps what it caches.")

    def marker(self) -> dict[str, Any]:
        """The `cache_control` value of a breakpoint."""
        return {"type": "ephemeral"} if self.ttl == "5m" else {"type": "ephemeral", "ttl": self.ttl}


def place_breakpoints(request: dict[str, Any], cache: PromptCache) -> dict[str, Any]:
    """`request` (the keyword arguments of `messages.create`) with the breakpoints `cache` asks for. Blocks
    are replaced, not changed in place: they may be the blocks a message keeps for replay."""
    if not cache.enabled:
        return request
    marker = cache.marker()
    tools = request.get("tools")
    if cache.tools and tools:
        request["tools"] = [*tools[:-1], {**tools[-1], "cache_control": marker}]
    system = request.get("system")
    if cache.system and system:
        blocks = [{"type": "text", "text": system}] if isinstance(system, str) else list(system)
        request["system"] = [*blocks[:-1], {**blocks[-1], "cache_control": marker}]
    messages = request.get("messages")
    if cache.last_turn and messages:
        last = messages[-1]
        content = last["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        for index in range(len(blocks) - 1, -1, -1):
            if blocks[index].get("type") in CACHEABLE_BLOCKS:
                blocks[index] = {**blocks[index], "cache_control": marker}
                request["messages"] = [*messages[:-1], {**last, "content": blocks}]
                break
    return request
