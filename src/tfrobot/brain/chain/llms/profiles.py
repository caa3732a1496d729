"""Model profiles: what a model family needs that the shape of its API does not say (as pydantic-ai's
`profiles/` do: model name -> quirks).

OpenAI-shaped endpoints serve many families (OpenAI, DeepSeek, GLM, Doubao, vLLM's and OpenRouter's
catalogues), and the same family is reached through several providers (DeepSeek models run on Volcengine
Ark too), so the quirks are looked up by model name, whichever class sends the request. A setting the user
gives explicitly always wins over the profile.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, TypeAlias

ReasoningReplay: TypeAlias = Literal["never", "tool_loop", "tool_turns", "always"]
"""When an OpenAI-shaped vendor's own `reasoning_content` is sent back:

* `never`;
* `tool_loop`: the assistant messages after the last user turn (the running tool loop);
* `tool_turns`: every assistant message of every turn (user message to user message) in which the model
  called a tool, in all later requests; an assistant message with tool calls but no reasoning of this
  vendor's gets an empty `reasoning_content`;
* `always`: every assistant message.
"""


@dataclass(frozen=True, slots=True)
class ModelProfile:
    """The quirks of one model family; None means "the provider class decides"."""

    family: str
    reasoning_replay: ReasoningReplay | None = None
    refusal_field: bool = False
    """Whether an assistant message in the request may carry `refusal` (OpenAI's own field); elsewhere a
    refusal is sent back as the assistant's text, which every API takes."""
    preserved_reasoning_replay: ReasoningReplay | None = None
    """The replay mode when the request asks the model to keep its thinking across turns (GLM's preserved
    thinking, `thinking: {"clear_thinking": false}`), instead of `reasoning_replay`."""
    dummy_thought_signature: bool = False
    """Whether a function call in the history that carries no thought signature of Gemini's (another
    provider's call, or one stored without it) must get Google's documented dummy signature."""
    encrypted_reasoning: bool = False
    """Whether the model reasons in OpenAI Responses reasoning items: a stateless request (`store: false`) asks
    for their `encrypted_content` to replay them (`include`), which OpenAI refuses for a model that does not
    reason ("Encrypted content is not supported with this model")."""


_PROFILES: tuple[tuple[re.Pattern[str], ModelProfile], ...] = (
    # DeepSeek's thinking mode (https://api-docs.deepseek.com/guides/thinking_mode, "Tool Calls"; the Chinese
    # page: "在两个 user 消息之间，如果模型进行了工具调用，则中间 assistant 的 reasoning_content 需参与上下文拼接，
    # 在后续所有 user 交互轮次中必须回传给 API"): for turns that made tool calls the reasoning_content must be
    # passed back in all subsequent requests, or the API answers 400 ("The reasoning_content in the thinking
    # mode must be passed back to the API"); for other turns it is not needed and ignored. Recorded: the
    # deepseek-v4-flash tool loop in tests/brain/chain/llms/recordings/deepseek/, where an assistant message
    # with tool calls and no reasoning of DeepSeek's went back with `reasoning_content: ""` and was accepted.
    (re.compile(r"deepseek", re.IGNORECASE), ModelProfile("deepseek", reasoning_replay="tool_turns")),
    # GLM's interleaved thinking (https://docs.z.ai/guides/capabilities/thinking-mode): "thinking blocks
    # should be explicitly preserved and returned together with the tool results". Its preserved thinking
    # (GLM-4.7+, `"thinking": {"type": "enabled", "clear_thinking": false}`) keeps the reasoning of earlier turns
    # too, when "the complete, unmodified reasoning_content" of every assistant message comes back. Recorded:
    # tests/brain/chain/llms/recordings/zhipu/preserved_thinking.json (the second request sends the first turn's).
    (
        re.compile(r"(^|/)glm-", re.IGNORECASE),
        ModelProfile("glm", reasoning_replay="tool_loop", preserved_reasoning_replay="always"),
    ),
    (re.compile(r"doubao", re.IGNORECASE), ModelProfile("doubao", reasoning_replay="tool_loop")),
    # OpenAI's reasoning models (https://platform.openai.com/docs/guides/reasoning): o-series, gpt-5, codex.
    (
        re.compile(r"^(o\d|gpt-5|codex)", re.IGNORECASE),
        ModelProfile("openai", refusal_field=True, encrypted_reasoning=True),
    ),
    (re.compile(r"^(gpt-|o\d|chatgpt-)", re.IGNORECASE), ModelProfile("openai", refusal_field=True)),
    # Gemini 3 validates thought signatures on the function calls of the history (400 "Function call is missing
    # a thought_signature" otherwise); for calls it did not write, "you can set ... dummy signatures" of
    # "skip_thought_signature_validator" (https://ai.google.dev/gemini-api/docs/thought-signatures, FAQ; the same
    # on Vertex AI). Recorded: tests/brain/chain/llms/recordings/gemini/foreign_tool_calls.json.
    (re.compile(r"(^|/)gemini-3", re.IGNORECASE), ModelProfile("gemini-3", dummy_thought_signature=True)),
)

DEFAULT_PROFILE = ModelProfile("default")
"""A model no profile names: the provider class's defaults, refusals sent back as text."""


def preserves_thinking(params: dict[str, object]) -> bool:
    """Whether a request's parameters ask the model to keep its thinking across turns (`clear_thinking: false` in
    `thinking`, given as a parameter or in `extra_body`)."""
    extra = params.get("extra_body")
    thinking = params.get("thinking") or (extra.get("thinking") if isinstance(extra, dict) else None)
    return isinstance(thinking, dict) and thinking.get("clear_thinking") is False


@lru_cache(maxsize=256)
def model_profile(model: str) -> ModelProfile:
    """The profile of the family `model` belongs to (first match in `_PROFILES`), else `DEFAULT_PROFILE`."""
    for pattern, profile in _PROFILES:
        if pattern.search(model):
            return profile
    return DEFAULT_PROFILE
