"""ScriptedChat: the offline LLM that drives demos and agent tests through the real pipeline."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from pydantic import ValidationError

from tests.brain.chain.llms.conftest import TOOLS, check_golden, conversation, current_turn
from tfrobot.brain.chain.llms import MessageAssembler, ScriptedChat, ScriptRule, create_llm
from tfrobot.schema.message import AssistantTextMessage, BaseMessage, ConsoleResult, TextMessage, ToolReturn


def test_weather_demo_calls_tools_in_parallel_then_answers_from_their_results() -> None:
    llm = ScriptedChat()
    turn = TextMessage(content="What's the weather in Paris and Tokyo?")
    first = llm.generate(turn, tools=TOOLS)
    assert type(first) is AssistantTextMessage
    assert [(c.id, c.name, json.loads(c.arguments)) for c in first.tool_calls or ()] == [
        ("call_1_0", "weather", {"city": "Paris"}),
        ("call_1_1", "weather", {"city": "Tokyo"}),
    ]
    assert first.finish_reason == "tool_calls"
    results = BaseMessage(
        role="tool",
        tool_reses=[
            ToolReturn(call_id=c.id, name=c.name, result=r)
            for c, r in zip(first.tool_calls or (), ("18C", "22C"), strict=True)
        ],
    )
    second = llm.generate(turn, intermediate_msgs=[first, results])
    assert second.content == "Here is the weather: 18C; 22C"
    assert second.tool_calls is None
    assert second.finish_reason == "stop"


def test_tfl_scripts_and_console_results() -> None:
    llm = ScriptedChat()
    turn = TextMessage(content="count with a script")
    first = llm.generate(turn)
    assert first.tfl_scripts == ["print(1 + 1)"]
    console = BaseMessage(role="console", console_reses=[ConsoleResult(result="2", script="print(1 + 1)")])
    assert llm.generate(turn, intermediate_msgs=[first, console]).content == "The script printed: 2"


def test_rules_come_from_configuration_and_fall_back() -> None:
    llm = create_llm(
        "scripted",
        rules=[{"user": "^hello", "reply": "Hi {user}!", "reasoning": "greeting"}],
        fallback="no rule for {user}",
    )
    hello = llm.generate(TextMessage(content="hello there"))
    assert (hello.content, hello.reasoning_content) == ("Hi hello there!", "greeting")
    assert llm.generate(TextMessage(content="bye")).content == "no rule for bye"


def test_stream_assembles_to_generate_and_the_request_is_cleaned() -> None:
    llm = ScriptedChat()
    turn = TextMessage(content="weather and a tfl script?")
    plain = llm.generate(turn, tools=TOOLS)
    assembler = MessageAssembler()
    for delta in llm.stream(turn, tools=TOOLS):
        assembler.add(delta)
    skip = {"msg_id", "create_ts"}
    assert assembler.message().model_dump(exclude=skip) == plain.model_dump(exclude=skip)
    request = llm.construct_request_params(turn, tools=TOOLS)
    assert "x-namespace" not in json.dumps(request["tools"])


def test_golden_payload_every_message_kind(media_root: Path) -> None:
    turn, chain = current_turn()
    payload = ScriptedChat(media_roots=(media_root,)).construct_request_params(
        turn, conversation(media_root), TOOLS, intermediate_msgs=chain
    )
    # The scripted "API" reads neutral parts, paths included: make the temporary folder stable.
    check_golden("scripted", json.loads(json.dumps(payload).replace(str(media_root), "<media_root>")))
    reply = ScriptedChat().generate(turn, conversation(media_root), intermediate_msgs=chain)
    assert reply.content == "Here is the weather: 12C"


async def test_streams_carry_reasoning_like_the_plain_reply() -> None:
    """Regression: the streamed reply lost `reasoning_content`, so streaming and plain calls differed."""
    llm = ScriptedChat(rules=[ScriptRule(user="x", reasoning="because", reply="done")])
    turn = TextMessage(content="x")
    plain = llm.generate(turn)
    for deltas in (list(llm.stream(turn)), [d async for d in llm.astream(turn)]):
        assembler = MessageAssembler()
        for delta in deltas:
            assembler.add(delta)
        assert (assembler.message().reasoning_content, assembler.message().content) == ("because", "done")
    assert plain.reasoning_content == "because"


def test_rule_patterns_match_in_linear_time() -> None:
    """Regression: `(a+)+$` (a rule a write token can set) backtracked for seconds per turn on 26 a's and a b;
    the patterns are RE2 now, linear in the text."""
    llm = ScriptedChat(rules=[ScriptRule(user=r"(a+)+$", reply="matched"), ScriptRule(reply="no")])
    for text in ("a" * 26 + "b", "a" * 100_000 + "b"):
        started = time.process_time()
        assert llm.generate(TextMessage(content=text)).content == "no"
        assert time.process_time() - started < 1.0
    assert llm.generate(TextMessage(content="AAAA")).content == "matched"  # case-insensitive, as before


@pytest.mark.parametrize(("field", "pattern", "reason"), [
    ("user", "(", "missing )"),
    ("results", r"(a)\1", "invalid escape sequence"),
    ("user", "(?=a)", "invalid perl operator"),
])  # fmt: skip
def test_a_pattern_re2_cannot_compile_is_refused_when_the_rule_is_made(field: str, pattern: str, reason: str) -> None:
    """Regression: an invalid pattern was accepted and made every later turn a server error."""
    with pytest.raises(ValidationError, match=re.escape(reason)) as caught:
        ScriptRule.model_validate({field: pattern})
    assert caught.value.errors()[0]["loc"] == (field,)
    assert caught.value.errors()[0]["msg"].startswith(f"Value error, {pattern}: {reason}")
    assert "; fix: " in str(caught.value)
