"""Doubao (Volcengine Ark) through the `volcenginesdkarkruntime` SDK: OpenAI-shaped, a thin subclass.

Differences from OpenAI: `max_tokens`, no user `name`, video by URL, no audio or file parts. Doubao
thinking models return `reasoning_content`; it is sent back as the model's profile says (the running tool
loop for Doubao, every tool-calling turn for the DeepSeek models Ark serves).
"""

from __future__ import annotations

from typing import ClassVar

from tfrobot.brain.chain.llms.media import Capabilities
from tfrobot.brain.chain.llms.openai import OpenAIChat
from tfrobot.brain.chain.llms.profiles import ReasoningReplay


class DoubaoChat(OpenAIChat):
    """Doubao chat completions on Volcengine Ark (`volcengine-ark-runtime` SDK)."""

    provider: ClassVar[str] = "doubao"
    max_tokens_key: ClassVar[str] = "max_tokens"  # not OpenAI's max_completion_tokens
    capabilities: ClassVar[Capabilities] = Capabilities(
        user=frozenset({"image", "video"}),
        tool_result=frozenset({"image", "video"}),
        url_sources=frozenset({"image", "video"}),
    )
    sdk_module: ClassVar[str] = "volcenginesdkarkruntime"
    sdk_extra: ClassVar[str] = "doubao"
    sdk_clients: ClassVar[tuple[str, str]] = ("Ark", "AsyncArk")
    api_key_env: ClassVar[tuple[str, ...]] = ("ARK_API_KEY",)
    user_names: ClassVar[bool] = False
    default_reasoning_replay: ClassVar[ReasoningReplay] = "tool_loop"
    """Models no profile names (endpoint ids such as `ep-…`) still send their reasoning back in the tool loop."""

    model: str = "doubao-seed-1-6"
