"""Prompt caching in agent loops, on the requests the official SDKs send (recorded replies answer them): each
step's request starts with the previous step's, byte for byte, up to Anthropic's last breakpoint (and, for
OpenAI's two APIs and Gemini, whose caches are implicit, over the whole conversation so far)."""

from __future__ import annotations

import copy
import importlib
import itertools
import json
from typing import Any

import pytest

from tests.brain.chain.llms.conftest import HTTP_MODULES, Recorder, handler, recording
from tfrobot.brain.chain.llms import AnthropicChat, ChatLLM, PromptCache, ToolDefinition, create_llm
from tfrobot.brain.chain.llms.prompt_cache import place_breakpoints
from tfrobot.schema.message import BaseMessage, TextMessage, ToolReturn

STEPS = 4
SYSTEM = BaseMessage(role="system", content="You are a careful assistant. " * 40, msg_id="sys")
QUESTION = TextMessage(content="What is the largest city in the user country?", msg_id="q")


def _tool(name: str) -> ToolDefinition:
    return ToolDefinition(name=name, description=f"The {name} tool.", parameters={"type": "object", "properties": {}})


def _renamed_calls(answer: dict[str, Any], step: int) -> dict[str, Any]:
    """The recorded reply with its call ids made unique per step (a loop's calls have ids of their own)."""
    answer = copy.deepcopy(answer)
    for block in answer.get("content") or ():  # anthropic
        if block.get("type") == "tool_use":
            block["id"] = f"toolu_{step}"
    for choice in answer.get("choices") or ():  # openai
        for call in choice["message"].get("tool_calls") or ():
            call["id"] = f"call_{step}"
    for item in answer.get("output") or ():  # openai-responses
        if item.get("type") == "function_call":
            item["call_id"] = f"call_{step}"
    if "responseId" in answer:  # gemini: its call ids are made from the response's
        answer["responseId"] = f"response-{step}"
    return answer


def _agent_loop(provider: str, name: str, model: str, tool: str, **settings: Any) -> list[dict[str, Any]]:
    """`STEPS` requests of a tool loop, as the SDK sent them: each step answered by the recorded tool call."""
    answer = recording(name)[0]["json"]
    steps = iter(range(STEPS))
    recorder = Recorder()
    module = importlib.import_module(HTTP_MODULES.get(provider, "httpx"))
    respond = handler(recorder, lambda _: (200, _renamed_calls(answer, next(steps)), {}), module)
    client = module.Client(transport=module.MockTransport(respond))
    key = "g-test" if provider == "gemini" else "sk-test"
    chat: ChatLLM = create_llm(provider, model=model, api_key=key, http_client=client, max_retries=0, **settings)
    tools = [_tool(tool)]
    chain: list[BaseMessage] = []
    requests = chat.request_builder(QUESTION, [SYSTEM])  # as `Chain` builds them: the history converted once
    for _ in range(STEPS):
        reply = chat.generate_request(requests.build(chain, tools), tools)
        assert reply.tool_calls, "every recorded step calls the tool"
        results = [ToolReturn(call_id=c.id, name=c.name, result="Mexico") for c in reply.tool_calls]
        chain = [*chain, reply, BaseMessage(role="tool", tool_reses=results)]
    return recorder.bodies


def _dump(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def _anthropic_prefix(body: dict[str, Any]) -> tuple[list[bytes], int]:
    """The request in Anthropic's cache order (tools, system, then each message's blocks) as bytes per block
    without the breakpoint markers (they are not part of what is cached), and the index of the last block
    that carries one."""
    blocks: list[tuple[str, dict[str, Any]]] = [("tool", t) for t in body.get("tools") or ()]
    blocks += [("system", b) for b in body.get("system") or ()]
    blocks += [(m["role"], b) for m in body["messages"] for b in m["content"]]
    last = max(i for i, (_, b) in enumerate(blocks) if "cache_control" in b)
    dumped = [_dump([role, {k: v for k, v in b.items() if k != "cache_control"}]) for role, b in blocks]
    return dumped, last


def test_anthropic_steps_start_with_the_previous_step_up_to_its_last_breakpoint() -> None:
    bodies = _agent_loop("anthropic", "anthropic/tool_use", "claude-sonnet-4-0", "get_user_country")
    checked = 0
    for before, after in itertools.pairwise(bodies):
        blocks, last = _anthropic_prefix(before)
        later, _ = _anthropic_prefix(after)
        assert b"".join(later).startswith(b"".join(blocks[: last + 1]))
        assert last == len(blocks) - 1, "the last breakpoint is on the last block: the whole step is cached"
        checked += last + 1
    for body in bodies:
        marks = [b for b in [*body["tools"], *body["system"], *body["messages"][-1]["content"]] if "cache_control" in b]
        assert len(marks) == 3  # tools, system, the last turn: one of Anthropic's four left to the caller
    assert checked > 3 * STEPS


@pytest.mark.parametrize(
    ("provider", "name", "model", "tool", "key"),
    [
        ("openai", "openai/structured_output", "gpt-4o", "get_user_country", "messages"),
        ("openai-responses", "openai-responses/reasoning_tool_loop", "gpt-5", "update_plan", "input"),
        ("gemini", "gemini/thought_signature", "gemini-2.5-pro", "get_user_country", "contents"),
    ],
)
def test_implicitly_cached_apis_get_a_stable_prefix(provider: str, name: str, model: str, tool: str, key: str) -> None:
    bodies = _agent_loop(provider, name, model, tool)
    for before, after in itertools.pairwise(bodies):
        assert {k: v for k, v in after.items() if k != key} == {k: v for k, v in before.items() if k != key}
        grown = after[key]
        assert len(grown) > len(before[key])
        assert _dump(grown[: len(before[key])]) == _dump(before[key])  # byte for byte


def test_breakpoints_follow_the_settings_and_can_be_turned_off() -> None:
    tools = [_tool("get_user_country")]
    plain = AnthropicChat(prompt_cache=PromptCache(enabled=False)).construct_request_params(QUESTION, [SYSTEM], tools)
    assert "cache_control" not in json.dumps(plain)
    assert isinstance(plain["system"], str)
    hour = AnthropicChat(prompt_cache=PromptCache(tools=False, ttl="1h")).construct_request_params(
        QUESTION, [SYSTEM], tools
    )
    assert "cache_control" not in hour["tools"][0]
    assert hour["system"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert hour["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}


def test_a_breakpoint_skips_blocks_that_cannot_carry_one_and_changes_no_block_in_place() -> None:
    thinking = {"type": "thinking", "thinking": "hm", "signature": "c2ln"}
    text = {"type": "text", "text": "so"}
    request = {"messages": [{"role": "assistant", "content": [text, thinking]}]}
    placed = place_breakpoints(request, PromptCache())
    assert placed["messages"][0]["content"] == [{**text, "cache_control": {"type": "ephemeral"}}, thinking]
    assert "cache_control" not in text


def test_the_setting_is_checked() -> None:
    with pytest.raises(ValueError, match="ttl"):
        AnthropicChat.model_validate({"prompt_cache": {"ttl": "2h"}})
