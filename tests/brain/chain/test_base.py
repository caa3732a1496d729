"""Chain: thinking and doing until an answer; the turn's trace; failures keep what was done."""

from __future__ import annotations

import json
import time

import httpx2
import pytest

from tfrobot.brain.chain.base import FAILED_CALL, Chain, scripts_of
from tfrobot.brain.chain.events import (
    AssistantStep,
    ConfirmationRequested,
    ConsoleOutput,
    FinalMessage,
    ReasoningToken,
    TokenDelta,
    ToolCallFinished,
    ToolCallStarted,
)
from tfrobot.brain.chain.llms import OpenAIChat, ProviderError, ScriptedCall, ScriptedChat, ScriptRule
from tfrobot.brain.demo import demo_chain as make_chain
from tfrobot.brain.demo import weather
from tfrobot.drive import Drive, Tool
from tfrobot.schema.message import (
    TRACE_META_KEY,
    AssistantTextMessage,
    BaseMessage,
    ConsoleResult,
    TextMessage,
    ToolCall,
)
from tfrobot.tfl import TFLInterpreter, TFLLimits


async def test_every_llm_call_tool_call_and_tfl_run_is_timed_in_the_trace() -> None:
    """Each mark says when its step started and how long it took; a tool batch gives each call's own time,
    and the answer carries the timing of the LLM call that wrote it (the explorer's latency column)."""
    chain = make_chain()
    user = TextMessage(content="weather in Paris and Tokyo, with a chart", conversation_id="c1")
    before = int(time.time() * 1000)
    events = [event async for event in chain.astream(user)]
    final = events[-1]
    assert isinstance(final, FinalMessage)

    records = user.intermediate_trace.ordered()
    marks = [r.additional_kwargs[TRACE_META_KEY] for r in records]
    answer = final.message.additional_kwargs[TRACE_META_KEY]
    assert [m["source"] for m in marks] + [answer["source"]] == ["thinking", "doing", "thinking", "console", "thinking"]
    starts = [m["started_at"] for m in [*marks, answer]]
    assert starts == sorted(starts)
    assert starts[0] >= before
    assert all(isinstance(m["duration_ms"], int) and m["duration_ms"] >= 0 for m in [*marks, answer])
    assert [m.get("provider") for m in [*marks, answer]] == ["scripted", None, "scripted", None, "scripted"]
    thinking = records[0]
    assert isinstance(thinking, AssistantTextMessage)
    assert set(marks[1]["call_ms"]) == {c.id for c in thinking.tool_calls or ()}


async def test_a_turn_calls_tools_in_parallel_runs_a_script_and_answers() -> None:
    chain = make_chain()
    user = TextMessage(content="weather in Paris and Tokyo, with a chart", conversation_id="c1")
    events = [event async for event in chain.astream(user)]

    kinds = [type(e).__name__ for e in events if not isinstance(e, TokenDelta | ReasoningToken)]
    assert kinds == [
        "AssistantStep",
        "ToolCallStarted",
        "ToolCallStarted",
        "ToolCallFinished",
        "ToolCallFinished",
        "AssistantStep",
        "ConsoleOutput",
        "AssistantStep",
        "FinalMessage",
    ]
    assert "".join(e.text for e in events if isinstance(e, TokenDelta) and e.step == 0) == "Checking both cities."
    final = events[-1]
    assert isinstance(final, FinalMessage)
    assert final.message.content.startswith("Paris is 18C and Tokyo 24C")
    assert "chart ready for 2" in final.message.content

    records = user.intermediate_trace.ordered()
    assert [type(r) for r in records] == [AssistantTextMessage, BaseMessage, AssistantTextMessage, BaseMessage]
    assert [r.role for r in records] == ["assistant", "tool", "assistant", "console"]
    marks = [r.additional_kwargs[TRACE_META_KEY] for r in records]
    assert [{k: m[k] for k in ("seq", "source", "step")} for m in marks] == [
        {"seq": 0, "source": "thinking", "step": 0},
        {"seq": 1, "source": "doing", "step": 0},
        {"seq": 2, "source": "thinking", "step": 1},
        {"seq": 3, "source": "console", "step": 1},
    ]
    thinking = records[0]
    assert isinstance(thinking, AssistantTextMessage)
    assert thinking.reasoning_content == "Two cities: call the weather tool for both at once."
    assert [c.parsed_arguments() for c in thinking.tool_calls or ()] == [{"city": "Paris"}, {"city": "Tokyo"}]
    assert [(r.call_id, r.result) for r in records[1].tool_reses or () if not isinstance(r, str)] == [
        (thinking.tool_calls[0].id, "Paris: 18C"),  # type: ignore[index]
        (thinking.tool_calls[1].id, "Tokyo: 24C"),  # type: ignore[index]
    ]
    console = next(e for e in events if isinstance(e, ConsoleOutput)).result
    assert console.trace_meta is not None
    assert console.trace_meta["ok"] is True
    assert [a.media_type for a in console.attachments] == ["image/png"]
    assert all(r.conversation_id == "c1" for r in records)


async def test_streaming_and_plain_calls_give_the_same_turn() -> None:
    streamed, plain = TextMessage(content="weather?"), TextMessage(content="weather?")
    a = await make_chain(stream=True).arun(streamed)
    b = await make_chain(stream=False).arun(plain)
    assert a.content == b.content
    assert [r.text() for r in streamed.intermediate_trace.ordered()] == [
        r.text() for r in plain.intermediate_trace.ordered()
    ]


async def test_step_limit_ends_the_turn_with_a_clear_answer() -> None:
    loop = [ScriptRule(after="*", tool_calls=[ScriptedCall(name="weather", arguments={"city": "Paris"})])]
    user = TextMessage(content="loop")
    answer = await make_chain(rules=loop, max_steps=3).arun(user)
    assert answer.finish_reason == "step_limit"
    assert "stopped after 3 steps" in answer.content
    assert [r.role for r in user.intermediate_trace.ordered()] == ["assistant", "tool"] * 3


async def test_a_failing_tool_is_a_result_the_llm_reads_not_a_crash() -> None:
    rules = [
        ScriptRule(user="x", tool_calls=[ScriptedCall(name="weather", arguments={"town": "Paris"})]),
        ScriptRule(after="tool:weather", reply="The tool said: {results}"),
    ]
    answer = await make_chain(rules=rules).arun(TextMessage(content="x"))
    assert "invalid arguments for weather" in answer.content
    assert "city: Field required" in answer.content


def _openai_reply(body: dict[str, object]) -> httpx2.Response:
    return httpx2.Response(200, json=body)


async def test_a_provider_failure_keeps_the_partial_trace() -> None:
    requests: list[dict[str, object]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        requests.append(json.loads(request.content))
        if len(requests) > 1:
            return httpx2.Response(500, json={"error": {"message": "upstream down", "type": "server_error"}})
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_a", "type": "function", "function": {"name": "weather", "arguments": '{"city":"Paris"}'}}
            ],
        }
        return _openai_reply(
            {
                "id": "r1",
                "object": "chat.completion",
                "created": 1,
                "model": "gpt-4o",
                "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
                "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10},
            }
        )

    llm = OpenAIChat(
        model="gpt-4o",
        api_key="sk-test",
        max_retries=0,
        async_http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
    )
    chain = Chain(llm, Drive([weather]), stream=False)
    user = TextMessage(content="weather?")
    with pytest.raises(ProviderError):
        await chain.arun(user)
    records = user.intermediate_trace.ordered()
    assert [r.role for r in records] == ["assistant", "tool", "assistant"]
    assert isinstance(records[2], AssistantTextMessage)
    assert records[2].finish_reason == FAILED_CALL  # the call that failed is the trace's last step
    assert len(requests) == 2
    second = requests[1]["messages"]
    assert isinstance(second, list)
    assert [m["role"] for m in second] == ["user", "assistant", "tool"]


@pytest.mark.parametrize("stream", [False, True])
async def test_a_refused_first_call_is_a_step_with_its_model_and_timing(stream: bool) -> None:
    """Regression: a turn whose first LLM call the provider refused (401) stored only the failure, no step:
    the trace explorer had no LLM step to show, no model, no duration, no request to rebuild."""

    def refuse(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(401, json={"error": {"message": "Incorrect API key", "code": "invalid_api_key"}})

    transport = httpx2.MockTransport(refuse)
    llm = OpenAIChat(
        model="gpt-4o",
        api_key="sk-bad",
        max_retries=0,
        async_http_client=httpx2.AsyncClient(transport=transport),
        http_client=httpx2.Client(transport=transport),
    )
    user = TextMessage(content="weather?", conversation_id="c")
    with pytest.raises(ProviderError):
        await Chain(llm, Drive([weather]), stream=stream).arun(user)
    [failed] = user.intermediate_trace.ordered()
    assert isinstance(failed, AssistantTextMessage)
    assert (failed.model, failed.finish_reason, failed.conversation_id) == ("openai:gpt-4o", FAILED_CALL, "c")
    mark = failed.additional_kwargs[TRACE_META_KEY]
    assert (mark["source"], mark["step"], mark["provider"]) == ("thinking", 0, "openai")
    assert isinstance(mark["started_at"], int)
    assert isinstance(mark["duration_ms"], int)


def test_scripts_are_read_from_tfl_blocks_when_the_field_is_empty() -> None:
    reply = AssistantTextMessage(content="Plan:\n```tfl\nprint(1)\n```\nand\n```tfl\nprint(2)\n```")
    assert scripts_of(reply) == ["print(1)", "print(2)"]
    assert scripts_of(AssistantTextMessage(content="x", tfl_scripts=["a = 1"])) == ["a = 1"]


async def test_event_stream_is_json_ready() -> None:
    from pydantic import TypeAdapter

    from tfrobot.brain.chain.events import ChainEvent

    events = [e async for e in make_chain().astream(TextMessage(content="weather?"))]
    adapter: TypeAdapter[ChainEvent] = TypeAdapter(ChainEvent)
    restored = [adapter.validate_json(adapter.dump_json(e)) for e in events]
    assert restored == events
    assert {type(e) for e in restored} >= {AssistantStep, ToolCallStarted, ToolCallFinished, ConsoleOutput}


SLOW = 's = "x" * 1000000\nt = "x" * 999999 + "x"\nn = 0\nfor i in range(99000):\n    if s == t:\n        n = n + 1\n'
"""A script that compares two distinct megabyte strings 99,000 times: seconds of CPU within every limit but time."""


async def test_the_scripts_of_a_turn_share_its_tfl_time_budget() -> None:
    """Regression: each script had its own 30 s, so a reply with several ```tfl blocks, and a turn of several
    replies, added up without limit (other clients of the server waited for all of them)."""
    fence = f"```tfl\n{SLOW}```"
    rules = [
        ScriptRule(user="go", reply=f"Two plans.\n{fence}\n{fence}"),
        ScriptRule(after="console", reply=f"One more.\n{fence}"),
    ]
    unbounded_steps = TFLInterpreter(limits=TFLLimits(max_steps=10**9))  # only time stops SLOW, however fast the CPU
    chain = Chain(ScriptedChat(rules=rules), Drive(), unbounded_steps, max_steps=3, tfl_turn_seconds=0.6)
    user = TextMessage(content="go")
    started = time.monotonic()
    final = await chain.arun(user)
    elapsed = time.monotonic() - started
    assert final.finish_reason == "step_limit"
    consoles = [r for m in user.intermediate_trace.ordered() if m.role == "console" for r in m.console_reses or ()]
    results = [r for r in consoles if isinstance(r, ConsoleResult)]
    assert len(results) == 4  # 2 + 1 + 1 scripts over three steps
    # the budget is shared when the first script used it up and the three after it did not run (their seconds
    # are no test: coverage's tracer and a loaded machine stretch them)
    assert "this turn's time budget" in str(results[0].trace_meta)
    assert all("used up their time budget" in str(r.trace_meta) for r in results[1:])
    assert elapsed < 10
    with pytest.raises(ValueError, match="tfl_turn_seconds must be positive"):
        Chain(ScriptedChat(), tfl_turn_seconds=0)


async def test_a_call_that_needs_confirmation_is_announced_then_asked_for() -> None:
    asked: list[str] = []

    async def approve(call: ToolCall) -> bool:
        asked.append(call.name)
        return True

    rules = [
        ScriptRule(user="weather", tool_calls=[ScriptedCall(name="weather", arguments={"city": "Paris"})]),
        ScriptRule(after="tool:weather", reply="done: {results}"),
    ]
    chain = Chain(ScriptedChat(rules=rules), Drive([Tool(weather, confirm=True)]), confirm=approve)
    events = [e async for e in chain.astream(TextMessage(content="weather?"))]
    kinds = [
        type(e).__name__ for e in events if isinstance(e, ToolCallStarted | ConfirmationRequested | ToolCallFinished)
    ]
    assert kinds == ["ToolCallStarted", "ConfirmationRequested", "ToolCallFinished"]
    assert asked == ["weather"]
    assert isinstance(events[-1], FinalMessage)
    assert events[-1].message.content == "done: Paris: 18C"
