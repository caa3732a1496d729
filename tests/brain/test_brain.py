"""The end-to-end proof (issue: agent loop §5), on SQLite and on PostgreSQL.

Turn 1 calls two tools in parallel, runs a TFL script that attaches an image, and answers. The process's
memory object is then thrown away; turn 2 recalls from the database, and the conversation it recalls
builds valid requests for every provider, with turn 1's calls, results, console output and reasoning
where each provider wants them.
"""

from __future__ import annotations

import contextlib
import itertools
import json
from typing import Any

from tfrobot.brain import Brain
from tfrobot.brain.chain.llms import (
    AnthropicChat,
    ChatLLM,
    DoubaoChat,
    GeminiChat,
    OpenAIChat,
    ZhipuChat,
)
from tfrobot.brain.demo import demo_chain as make_chain
from tfrobot.brain.memory import SQLMessageStore
from tfrobot.schema.message import AssistantTextMessage, BaseMessage, TextMessage

PROVIDERS: list[ChatLLM] = [
    OpenAIChat(model="gpt-4o", api_key="sk-test"),
    AnthropicChat(model="claude-sonnet-4-5", api_key="sk-test", max_tokens=1024),
    GeminiChat(model="gemini-2.5-flash", api_key="test"),
    ZhipuChat(model="glm-4.6", api_key="test.key"),
    DoubaoChat(model="doubao-seed-1-6", api_key="test"),
]


async def _turn_one(url: str) -> tuple[str, str]:
    store = SQLMessageStore(url)
    try:
        answer = await Brain(make_chain(), store).arun(TextMessage(content="weather in Paris and Tokyo, chart it"))
    finally:
        await store.aclose()
    assert answer.conversation_id is not None
    return answer.conversation_id, answer.content


def _dumps(payload: dict[str, Any]) -> str:
    return json.dumps(payload, default=str)


async def test_two_turns_across_a_fresh_memory_object(store_url: str) -> None:
    conversation_id, first_answer = await _turn_one(store_url)
    assert first_answer.startswith("Paris is 18C and Tokyo 24C")

    store = SQLMessageStore(store_url)  # a new process would start here
    try:
        history = await store.recall(conversation_id, last_turns=10)
        assert [type(m) for m in history] == [TextMessage, AssistantTextMessage]
        turn1 = history[0]
        assert isinstance(turn1, TextMessage)
        records = turn1.intermediate_trace.ordered()
        assert [type(r) for r in records] == [AssistantTextMessage, BaseMessage, AssistantTextMessage, BaseMessage]
        thinking = records[0]
        assert isinstance(thinking, AssistantTextMessage)
        call_ids = [c.id for c in thinking.tool_calls or ()]
        assert len(call_ids) == 2

        turn2 = TextMessage(content="and tomorrow?", conversation_id=conversation_id)
        for llm in PROVIDERS:
            payload = _dumps(llm.construct_request_params(turn2, history, make_chain().tools))
            for needle in ["Paris: 18C", "Tokyo: 24C", "chart ready for 2", "and tomorrow?", "Paris is 18C"]:
                assert needle in payload, (llm.provider, needle)
            portable = [c for c in call_ids if c in payload]
            assert len(portable) == 2 or llm.provider == "gemini", (llm.provider, call_ids)
            assert "image/png" in payload or "iVBOR" in payload or "chart of Paris" in payload, llm.provider

        answer = await Brain(make_chain(), store).arun(turn2)
        assert answer.content == "Tomorrow looks the same."
        after = await store.recall(conversation_id)
        assert [type(m) for m in after] == [TextMessage, AssistantTextMessage, TextMessage, AssistantTextMessage]
    finally:
        await store.aclose()


async def test_openai_payload_places_turn_one_exactly(store_url: str) -> None:
    conversation_id, _ = await _turn_one(store_url)
    store = SQLMessageStore(store_url)
    try:
        history = await store.recall(conversation_id)
    finally:
        await store.aclose()
    payload = OpenAIChat(model="gpt-4o", api_key="sk-test").construct_request_params(
        TextMessage(content="and tomorrow?", conversation_id=conversation_id), history
    )
    roles = [m["role"] for m in payload["messages"]]
    assert roles[:4] == ["user", "assistant", "tool", "tool"]
    assert roles[-1] == "user"
    assistant = payload["messages"][1]
    assert [c["function"]["arguments"] for c in assistant["tool_calls"]] == ['{"city": "Paris"}', '{"city": "Tokyo"}']
    assert [m["tool_call_id"] for m in payload["messages"][2:4]] == [c["id"] for c in assistant["tool_calls"]]


async def test_anthropic_payload_pairs_tool_use_and_tool_result(store_url: str) -> None:
    conversation_id, _ = await _turn_one(store_url)
    store = SQLMessageStore(store_url)
    try:
        history = await store.recall(conversation_id)
    finally:
        await store.aclose()
    payload = AnthropicChat(model="claude-sonnet-4-5", api_key="k", max_tokens=512).construct_request_params(
        TextMessage(content="and tomorrow?", conversation_id=conversation_id), history
    )
    messages = payload["messages"]
    assert [m["role"] for m in messages][:3] == ["user", "assistant", "user"]
    uses = [b["id"] for b in messages[1]["content"] if b["type"] == "tool_use"]
    results = [b["tool_use_id"] for b in messages[2]["content"] if b["type"] == "tool_result"]
    assert uses == results
    assert len(uses) == 2
    for a, b in itertools.pairwise(messages):
        assert a["role"] != b["role"], "consecutive same-role turns must be merged"


async def test_a_failed_turn_is_stored_and_the_next_turn_works(store_url: str) -> None:
    from tfrobot.brain.chain.llms import ScriptedCall, ScriptRule

    store = SQLMessageStore(store_url)
    try:
        # A tool the LLM calls does not exist in this chain: the turn survives (error result), then a
        # rule-less reply ends it; the stored user message holds the trace.
        rules = [ScriptRule(user="go", tool_calls=[ScriptedCall(name="ghost")]), ScriptRule(after="tool:*", reply="ok")]
        user = TextMessage(content="go")
        await Brain(make_chain(rules=rules), store).arun(user)
        assert user.conversation_id is not None
        stored = await store.recall(user.conversation_id)
        first = stored[0]
        assert isinstance(first, TextMessage)
        assert [r.role for r in first.intermediate_trace.ordered()] == ["assistant", "tool"]
        tool = first.intermediate_trace.ordered()[1]
        assert "unknown tool 'ghost'" in tool.text()
        nxt = await Brain(make_chain(), store).arun(
            TextMessage(content="tomorrow?", conversation_id=user.conversation_id)
        )
        assert nxt.content == "Tomorrow looks the same."
    finally:
        await store.aclose()


async def test_a_turn_cancelled_mid_tool_is_stored_as_interrupted_and_the_next_request_repairs_it(
    store_url: str,
) -> None:
    """The turn is stored with its partial trace (a call without a result) and `failure.kind == "interrupted"`;
    the next request answers the dangling call with the normalization pass's error result."""
    import asyncio

    from tfrobot.brain.chain.base import Chain
    from tfrobot.brain.chain.llms import ScriptedCall, ScriptedChat, ScriptRule
    from tfrobot.brain.chain.llms.normalize import MISSING_RESULT
    from tfrobot.drive import Drive

    started = asyncio.Event()

    async def wait_for_ever() -> str:
        """Never returns."""
        started.set()
        await asyncio.Event().wait()
        return "unreachable"

    llm = ScriptedChat(rules=[ScriptRule(user="go", tool_calls=[ScriptedCall(name="wait_for_ever")])])
    store = SQLMessageStore(store_url)
    try:
        brain = Brain(Chain(llm, Drive([wait_for_ever])), store)
        user = TextMessage(content="go", conversation_id="cut")
        task = asyncio.create_task(brain.arun(user))
        await started.wait()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        [stored] = await store.recall("cut")
        assert type(stored) is TextMessage
        failure = stored.intermediate_trace.failure
        assert failure is not None
        assert (failure.kind, failure.error_type) == ("interrupted", "CancelledError")
        assert [r.role for r in stored.intermediate_trace.ordered()] == ["assistant"]

        payload = OpenAIChat(model="gpt-4o", api_key="sk-test").construct_request_params(
            TextMessage(content="again?", conversation_id="cut"), [stored]
        )
        assert [m["role"] for m in payload["messages"]] == ["user", "assistant", "tool", "user"]
        assert payload["messages"][2]["content"].endswith(MISSING_RESULT)
    finally:
        await store.aclose()
