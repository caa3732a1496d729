"""What providers return that we keep on messages: reasoning blocks and normalized token usage."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tfrobot.schema.types import AttributeValue


class ReasoningBlock(BaseModel):
    """One reasoning block exactly as a provider returned it, so it can be replayed to that provider.

    Anthropic requires thinking blocks to come back unchanged with their `signature` during tool loops,
    and redacted thinking as its opaque `data`; Gemini sends a thought signature. Other providers never
    receive a block produced elsewhere (replay rules live in the provider layer).
    """

    model_config = ConfigDict(extra="allow", defer_build=True)

    type: Literal["thinking", "redacted_thinking"] = "thinking"
    text: str = Field(default="", description="The visible reasoning text (empty when redacted).")
    signature: str | None = Field(default=None, description="Provider signature that authenticates the block.")
    data: str | None = Field(default=None, description="Opaque payload of redacted thinking.")
    provider: str | None = Field(default=None, description="The provider that produced it, e.g. 'anthropic'.")


class Usage(BaseModel):
    """Token usage normalized across providers; `raw` keeps the provider's own numbers."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    input_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    raw: dict[str, AttributeValue] = Field(default_factory=dict)
