"""What providers return that we keep on messages: reasoning blocks, server-side tool blocks and usage."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from tfrobot.schema.omission import IS_NONE
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
    signature: str | None = Field(
        default=None, exclude_if=IS_NONE, description="Provider signature that authenticates the block."
    )
    data: str | None = Field(default=None, exclude_if=IS_NONE, description="Opaque payload of redacted thinking.")
    provider: str | None = Field(
        default=None, exclude_if=IS_NONE, description="The provider that produced it, e.g. 'anthropic'."
    )


class ServerToolBlock(BaseModel):
    """A block of a reply that the provider's own servers executed: a server-side tool call or its result.

    Anthropic's web search, web fetch and code execution (`server_tool_use`, `web_search_tool_result`,
    `bash_code_execution_tool_result`, …) and its MCP connector (`mcp_tool_use`, `mcp_tool_result`), Gemini's
    code execution parts (`executable_code`, `code_execution_result`) and grounding metadata, or a Responses
    API item such as `web_search_call`. Nothing here is for us to execute: the provider ran it
    and wants it back, unchanged, in the next request (a search result's `encrypted_content` is what lets
    the model cite it). So the block is kept as the provider sent it and replayed only to that provider;
    others never see it, as with reasoning blocks.
    """

    model_config = ConfigDict(extra="allow", defer_build=True)

    provider: str = Field(description="The provider that produced it, e.g. 'anthropic'; it alone receives it back.")
    block: dict[str, JsonValue] = Field(
        description="The block exactly as the provider sent it (its own `type` included), replayed as it is."
    )
    text_offset: int = Field(
        default=0,
        ge=0,
        description="How many characters of the message's `content` came before this block, so that a replay "
        "puts the text back around it where the model wrote it.",
    )

    @property
    def type(self) -> str:
        """The provider's block type, e.g. 'server_tool_use' or 'web_search_tool_result'; for a Gemini part,
        which has no `type`, the kind of part it is (its key: 'executable_code', 'grounding_metadata', …)."""
        kind = self.block.get("type")
        if kind is None:
            kind = next((key for key in self.block if key != "thought_signature"), "")
        return str(kind)


class Usage(BaseModel):
    """Token usage normalized across providers; `raw` keeps the provider's own numbers."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    input_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    raw: dict[str, AttributeValue] = Field(default_factory=dict)
    model: str | None = Field(
        default=None,
        exclude_if=lambda value: value is None,  # (came later: usage without it is stored as before)
        description="The model that served these tokens when it is not the one the reply names (a provider's "
        "fallback routing: Anthropic's `fallback` block).",
    )
