"""Portable ids and tool names (`portable.py`): valid for each API, stable, mapped back in replies."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.brain.chain.llms.conftest import Recorder, recording, replay_llm
from tfrobot.brain.chain.llms import ToolDefinition, portable_id
from tfrobot.schema.message import BaseMessage, TextMessage, ToolReturn


def test_portable_ids_are_valid_stable_and_distinct() -> None:
    pattern = r"[a-zA-Z0-9_-]+"
    assert portable_id("call_ok-1", pattern) == "call_ok-1"
    mapped = portable_id("call:tokyo/2", pattern)
    assert mapped == portable_id("call:tokyo/2", pattern)
    assert mapped != portable_id("call:tokyo.2", pattern)
    assert mapped.startswith("call_tokyo_2_")
    assert len(portable_id("x" * 100, pattern, 64)) <= 64


NAME_RULES = {
    "deepseek": r"[a-zA-Z0-9_-]{1,64}",  # OpenAI's FunctionDefinition.name (and every OpenAI-shaped endpoint's)
    "anthropic": r"[a-zA-Z0-9_-]{1,128}",  # Anthropic's tool name pattern
    "gemini": r"[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}",  # google-genai FunctionDeclaration.name
}


def _declared(provider: str, body: dict[str, Any]) -> str:
    if provider == "gemini":
        return str(body["tools"][0]["functionDeclarations"][0]["name"])
    tool = body["tools"][0]
    return str(tool["function"]["name"] if provider == "deepseek" else tool["name"])


def _calling(interaction: dict[str, Any], recorded: str, name: str) -> dict[str, Any]:
    """The recorded reply, calling `name` where it called `recorded`: the model calls the name it was given."""
    text = json.dumps(interaction).replace(f'\\"{recorded}\\"', f'\\"{name}\\"').replace(f'"{recorded}"', f'"{name}"')
    answer: dict[str, Any] = json.loads(text)
    return answer


@pytest.mark.parametrize(
    ("recorded_name", "recorded_tool"),
    [
        ("deepseek/tool_loop", "load_capability"),
        ("anthropic/tool_use", "get_user_country"),
        ("anthropic/tool_use_stream", "get_weather"),
        ("gemini/thought_signature", "get_user_country"),
        ("gemini/thought_signature_stream", "get_country"),
    ],
)
@pytest.mark.parametrize("ours", ["drive.weather", "天气", "9lives"])
def test_a_tool_name_the_api_refuses_is_mapped_in_the_request_and_back_in_the_reply(
    recorded_name: str, recorded_tool: str, ours: str
) -> None:
    """Regression (#14, defect 6): tool names were sent as they are, and `天气` or `drive.weather` break the
    APIs' rules (a 400 on the first request); a reply calling the name we sent must name our tool."""
    provider = recorded_name.split("/", 1)[0]
    rule = NAME_RULES[provider]
    tools = [ToolDefinition(name=ours, description="Current weather.", parameters={"type": "object", "properties": {}})]
    sent_name = replay_llm(provider, Recorder(), []).api_tool_name(ours)
    assert re.fullmatch(rule, sent_name)
    assert (sent_name == ours) == bool(re.fullmatch(rule, ours))  # valid names go as they are

    recorder = Recorder()
    chat = replay_llm(provider, recorder, [_calling(recording(recorded_name)[0], recorded_tool, sent_name)])
    question = TextMessage(content="Weather?")
    streamed = "sse" in recording(recorded_name)[0]
    reply = chat.generate_streamed(question, None, tools) if streamed else chat.generate(question, None, tools)
    assert _declared(provider, recorder.bodies[0]) == sent_name
    assert [call.name for call in reply.tool_calls or ()] == [ours]

    result = BaseMessage(
        role="tool",
        tool_reses=[ToolReturn(call_id=reply.tool_calls[0].id, name=ours, result="sunny")],  # type: ignore[index]
    )
    follow_up = chat.construct_request_params(question, None, tools, intermediate_msgs=[reply, result])
    wire = json.dumps(follow_up, default=str, ensure_ascii=False)
    assert ours not in wire or re.fullmatch(rule, ours)  # the call and its result go under the name we declared
    assert sent_name in wire
