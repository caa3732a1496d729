"""Zhipu GLM through the `zai-sdk` SDK (`zai.ZhipuAiClient`, the maintained successor of `zhipuai`, whose
pin of PyJWT < 2.9 could not be installed beside the `mcp` SDK): an OpenAI-shaped API, so a thin
subclass of `OpenAIChat`.

Differences from OpenAI: `max_tokens` (not `max_completion_tokens`), no `stream_options`, no user
`name`, video by URL in user turns, no audio or file parts, and the SDK has no async client. GLM
reasoning models return `reasoning_content`; it is sent back as the model's profile says (the running
tool loop for GLM, every tool-calling turn for DeepSeek models served here).

`zai-sdk` strips the `data:image/...;base64,` prefix off the image URLs of the messages it is given, in
place (`drop_prefix_image_data`); a request's messages are shared (a `RequestBuilder`'s steps share the
history's message dicts, a caller may keep the request), so the SDK is handed copies of only the messages
it would edit (`_sdk_owned`): what we built stays as built, and the bytes sent are the same.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from typing import Any, ClassVar

from tfrobot.brain.chain.llms.media import Capabilities
from tfrobot.brain.chain.llms.openai import OpenAIChat
from tfrobot.brain.chain.llms.profiles import ReasoningReplay
from tfrobot.brain.chain.llms.wire import move_to_extra_body
from tfrobot.schema.tool_definition import ToolDefinition

NATIVE_PARAMS = frozenset(
    {"model", "messages", "request_id", "user_id", "do_sample", "stream", "temperature", "top_p", "max_tokens",
     "seed", "stop", "sensitive_word_check", "tools", "tool_choice", "meta", "extra", "extra_headers", "extra_body",
     "timeout", "response_format", "thinking"}
)  # fmt: skip
"""Keyword arguments `zai-sdk`'s `chat.completions.create` takes; others travel in `extra_body`."""


class ZhipuChat(OpenAIChat):
    """Zhipu GLM chat completions (`zai-sdk`, module `zai`)."""

    provider: ClassVar[str] = "zhipu"
    max_tokens_key: ClassVar[str] = "max_tokens"  # not OpenAI's max_completion_tokens
    capabilities: ClassVar[Capabilities] = Capabilities(
        user=frozenset({"image", "video"}),
        tool_result=frozenset({"image", "video"}),
        url_sources=frozenset({"image", "video"}),
    )
    sdk_module: ClassVar[str] = "zai"
    sdk_extra: ClassVar[str] = "zhipu"
    api_key_env: ClassVar[tuple[str, ...]] = ("ZAI_API_KEY", "ZHIPUAI_API_KEY")
    """`zai-sdk` reads ZAI_API_KEY; ZHIPUAI_API_KEY (the old `zhipuai` SDK's) is still taken, and passed on."""
    async_client: ClassVar[bool] = False
    stream_usage_option: ClassVar[bool] = False
    user_names: ClassVar[bool] = False
    default_reasoning_replay: ClassVar[ReasoningReplay] = "tool_loop"
    """GLM models no profile names (fine-tuned ids) still send their reasoning back in the tool loop."""

    model: str = "glm-4.6"

    def _assemble_api_request(
        self, params: dict[str, Any], api_msgs: list[Any], tools: Sequence[ToolDefinition] | None
    ) -> dict[str, Any]:
        return move_to_extra_body(super()._assemble_api_request(params, api_msgs, tools), NATIVE_PARAMS)

    def _make_client(self, sdk: Any, is_async: bool) -> Any:
        if is_async:
            raise NotImplementedError("the zai SDK has no async client; use generate() or stream()")
        kwargs = self._client_kwargs(self.http_client)
        if "api_key" not in kwargs:
            found = next((os.environ[name] for name in self.api_key_env if os.environ.get(name)), None)
            if found is not None:
                kwargs["api_key"] = found
        return sdk.ZhipuAiClient(**kwargs)

    def _send(self, params: dict[str, Any]) -> Any:
        return super()._send(_sdk_owned(params))

    def _stream_params(self, params: dict[str, Any]) -> dict[str, Any]:
        return super()._stream_params(_sdk_owned(params))

    async def _asend(self, params: dict[str, Any]) -> Any:
        """The sync client in a worker thread: a chain's turn (async) would otherwise fail before any call."""
        return await asyncio.to_thread(self._send, params)


def _sdk_owned(params: dict[str, Any]) -> dict[str, Any]:
    """`params` with the messages `zai-sdk` edits in place (`drop_prefix_image_data`: a content list holding an
    `image_url` part whose URL is a `data:image/` URL) replaced by copies; `params` itself is not changed."""
    msgs = params.get("messages")
    if not isinstance(msgs, list) or not any(_edited_by_sdk(msg) for msg in msgs):
        return params
    return {**params, "messages": [_copy_images(msg) if _edited_by_sdk(msg) else msg for msg in msgs]}


def _edited_by_sdk(msg: Any) -> bool:
    """Whether the SDK would edit `msg`: only those are copied, so a send costs what its images cost."""
    content = msg.get("content") if isinstance(msg, dict) else None
    return isinstance(content, list) and any(_data_image(part) for part in content)


def _data_image(part: Any) -> bool:
    """An `image_url` part the SDK rewrites (it tests exactly this before splitting at `base64,`)."""
    if not isinstance(part, dict) or part.get("type") != "image_url" or not isinstance(part.get("image_url"), dict):
        return False
    url = part["image_url"].get("url")
    return isinstance(url, str) and url.startswith("data:image/")


def _copy_images(msg: dict[str, Any]) -> dict[str, Any]:
    """`msg` with a new content list whose image parts (and their `image_url` dicts) are new: the SDK's edit
    lands on them; the other parts, which it does not touch, are shared."""
    parts = [{**part, "image_url": dict(part["image_url"])} if _data_image(part) else part for part in msg["content"]]
    return {**msg, "content": parts}
