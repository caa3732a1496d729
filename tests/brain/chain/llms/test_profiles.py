"""Model profiles: the quirks of a model family, looked up by model name whatever class sends the request."""

from __future__ import annotations

import pytest

from tfrobot.brain.chain.llms import DoubaoChat, OpenAIChat, ZhipuChat, model_profile
from tfrobot.schema.message import AssistantTextMessage, BaseMessage, TextMessage, ToolCall, ToolReturn


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("deepseek-reasoner", "deepseek"),
        ("deepseek-v4-flash", "deepseek"),
        ("deepseek/deepseek-v3.2", "deepseek"),  # OpenRouter
        ("deepseek-v3-2-251201", "deepseek"),  # Volcengine Ark
        ("deepseek-ai/DeepSeek-V3.2", "deepseek"),  # vLLM, Hugging Face names
        ("glm-4.7", "glm"),
        ("zai-org/GLM-4.6", "glm"),
        ("doubao-seed-1-6-251015", "doubao"),
        ("gpt-4o-2024-08-06", "openai"),
        ("o3-mini", "openai"),
        ("gemini-3-pro-preview", "gemini-3"),
        ("google/gemini-3-flash", "gemini-3"),  # OpenRouter
        ("gemini-2.5-flash", "default"),  # (no signature validation of the history before Gemini 3)
        ("ep-20240607092512-c5wnh", "default"),  # an Ark endpoint id says nothing
        ("qwen-plus", "default"),
    ],
)
def test_a_model_name_finds_its_family(model: str, family: str) -> None:
    assert model_profile(model).family == family


def _tool_turn_then_a_new_question(model: str) -> tuple[list[BaseMessage], TextMessage]:
    call = ToolCall(id="c1", name="weather", arguments="{}")
    history: list[BaseMessage] = [
        TextMessage(content="Weather in Oslo?", create_ts=1),
        AssistantTextMessage(tool_calls=[call], reasoning_content="call it", model=model, create_ts=2),
        BaseMessage(role="tool", tool_reses=[ToolReturn(call_id="c1", name="weather", result="cold")], create_ts=3),
        AssistantTextMessage(content="Cold.", reasoning_content="it is cold", model=model, create_ts=4),
    ]
    return history, TextMessage(content="And tomorrow?", create_ts=5)


@pytest.mark.parametrize(
    ("chat", "replayed"),
    [
        (DoubaoChat(model="deepseek-v3-2-251201"), ["call it", "it is cold"]),  # DeepSeek on Ark: every tool turn
        (DoubaoChat(model="doubao-seed-1-6-251015"), []),  # Doubao: the running tool loop only
        (ZhipuChat(model="glm-4.7"), []),
        (OpenAIChat(model="deepseek-v4-pro"), ["call it", "it is cold"]),
        (OpenAIChat(model="deepseek-v4-pro", reasoning_replay="never"), []),  # the setting wins
        (OpenAIChat(model="gpt-4o"), []),
    ],
)
def test_the_model_family_decides_which_reasoning_goes_back_unless_the_setting_says(
    chat: OpenAIChat, replayed: list[str]
) -> None:
    history, question = _tool_turn_then_a_new_question(f"{chat.provider}:{chat.model}")
    messages = chat.construct_request_params(question, history)["messages"]
    assert [m["reasoning_content"] for m in messages if "reasoning_content" in m] == replayed
