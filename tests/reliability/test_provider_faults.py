"""A provider that times out, rate-limits, fails or stops streaming halfway, driven through the OpenAI SDK
(httpx2 MockTransport in place of the network) inside a `Brain` turn on both stores.

Every case: the turn fails clearly (or succeeds after the configured retries), the user message is stored
once with the trace produced before the fault (the tool call and its result) and the typed failure, and the
next turn works.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx2
import pytest

from tfrobot.brain.brain import Brain
from tfrobot.brain.chain.base import FAILED_CALL, Chain
from tfrobot.brain.chain.llms import OpenAIChat, ProviderError, ProviderUnavailableError, RateLimitError
from tfrobot.brain.demo import weather
from tfrobot.brain.memory import SQLMessageStore
from tfrobot.drive import Drive
from tfrobot.schema.message import TRACE_META_KEY, AssistantTextMessage, TextMessage

TOOL_CALL = {"id": "call_a", "type": "function", "function": {"name": "weather", "arguments": '{"city":"Paris"}'}}
Fault = Callable[[httpx2.Request], httpx2.Response]


def _completion(message: dict[str, Any], finish: str) -> dict[str, Any]:
    return {
        "id": "r",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def _chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    body = {
        "id": "r",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-4o",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(body)}\n\n".encode()


def _reply(request: httpx2.Request, message: dict[str, Any], finish: str) -> httpx2.Response:
    if json.loads(request.content).get("stream"):
        delta = {"role": "assistant", **{k: v for k, v in message.items() if k != "role"}}
        if delta.get("tool_calls"):
            delta["tool_calls"] = [{"index": 0, **call} for call in delta["tool_calls"]]
        body = _chunk(delta) + _chunk({}, finish) + b"data: [DONE]\n\n"
        return httpx2.Response(200, content=body, headers={"content-type": "text/event-stream"})
    return httpx2.Response(200, json=_completion(message, finish))


class _Broken(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    """A stream that sends its first chunks, then the connection drops."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks

    def __iter__(self) -> Iterator[bytes]:
        yield from self.chunks
        raise httpx2.RemoteProtocolError("peer closed connection without sending complete message body")

    async def __aiter__(self) -> Any:
        for chunk in self.chunks:
            yield chunk
        raise httpx2.RemoteProtocolError("peer closed connection without sending complete message body")


def rate_limited(request: httpx2.Request) -> httpx2.Response:
    body = {"error": {"message": "slow down", "type": "rate_limit"}}
    return httpx2.Response(429, json=body, headers={"retry-after-ms": "1"})


def server_error(request: httpx2.Request) -> httpx2.Response:
    return httpx2.Response(500, json={"error": {"message": "upstream down", "type": "server_error"}})


def timed_out(request: httpx2.Request) -> httpx2.Response:
    raise httpx2.ReadTimeout("timed out", request=request)


def dropped_mid_stream(request: httpx2.Request) -> httpx2.Response:
    chunks = [_chunk({"role": "assistant", "content": "Paris is"}), _chunk({"content": " 18"})]
    return httpx2.Response(200, stream=_Broken(chunks), headers={"content-type": "text/event-stream"})


def cut_short(request: httpx2.Request) -> httpx2.Response:
    """The body ends cleanly after two chunks: no finish reason, no `[DONE]`."""
    body = _chunk({"role": "assistant", "content": "Paris is"}) + _chunk({"content": " 18"})
    return httpx2.Response(200, content=body, headers={"content-type": "text/event-stream"})


FAULTS: dict[str, tuple[Fault, type[ProviderError], bool]] = {
    "429": (rate_limited, RateLimitError, False),
    "500": (server_error, ProviderUnavailableError, False),
    "timeout": (timed_out, ProviderUnavailableError, False),
    "half-stream": (dropped_mid_stream, ProviderUnavailableError, True),
    "cut-short": (cut_short, ProviderUnavailableError, True),
}


class Provider:
    """Answers: tool call, then `faults` faulty responses, then a final answer; counts the requests."""

    def __init__(self, fault: Fault, faults: int) -> None:
        self.fault, self.faults, self.requests = fault, faults, 0

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests += 1
        messages = json.loads(request.content)["messages"]
        if messages[-1]["role"] == "user":
            call = {**TOOL_CALL, "id": f"call_{self.requests}"}  # ids are unique, as a real provider's are
            return _reply(request, {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls")
        if self.faults > 0:
            self.faults -= 1
            return self.fault(request)
        return _reply(request, {"role": "assistant", "content": "Paris is 18C."}, "stop")


def _brain(store: SQLMessageStore, provider: Provider, *, retries: int, stream: bool) -> Brain:
    transport = httpx2.MockTransport(provider)
    llm = OpenAIChat(
        model="gpt-4o",
        api_key="sk-test",
        max_retries=retries,
        timeout=5,
        async_http_client=httpx2.AsyncClient(transport=transport),
        http_client=httpx2.Client(transport=transport),
    )
    return Brain(Chain(llm, Drive([weather]), stream=stream), store)


@pytest.mark.parametrize("name", sorted(FAULTS))
async def test_a_fault_fails_the_turn_keeps_its_trace_and_the_next_turn_works(store_url: str, name: str) -> None:
    fault, error, stream = FAULTS[name]
    store = SQLMessageStore(store_url)
    try:
        provider = Provider(fault, faults=1)
        brain = _brain(store, provider, retries=0, stream=stream)
        first = TextMessage(content="weather in Paris?", conversation_id="c")
        with pytest.raises(error) as caught:
            await brain.arun(first)
        stored = await store.recall("c")
        assert [m.msg_id for m in stored] == [first.msg_id]
        failure = stored[0].intermediate_trace.failure  # type: ignore[attr-defined]
        assert failure is not None
        assert (failure.kind, failure.provider, failure.error_type) == (
            caught.value.kind,
            "openai",
            type(caught.value).__name__,
        )
        records = stored[0].intermediate_trace.ordered()  # type: ignore[attr-defined]
        assert [r.role for r in records] == ["assistant", "tool", "assistant"]
        assert records[1].tool_reses[0].result == "Paris: 18C"
        failed, mark = records[2], records[2].additional_kwargs[TRACE_META_KEY]
        assert isinstance(failed, AssistantTextMessage)  # the failed call is a step: its model, step and timing
        assert (failed.model, failed.finish_reason, failed.content) == ("openai:gpt-4o", FAILED_CALL, "")
        assert (mark["source"], mark["step"], mark["provider"]) == ("thinking", 1, "openai")
        assert mark["duration_ms"] >= 0
        assert mark["started_at"] > 0
        resent = brain.chain.llm.construct_request_params(TextMessage(content="and now?"), stored)
        assistants = [m for m in resent["messages"] if m["role"] == "assistant"]
        assert len(assistants) == 1, resent  # the empty record of the failed call is not sent again
        assert assistants[0]["tool_calls"], resent

        second = TextMessage(content="and now?", conversation_id="c")
        answer = await brain.arun(second)
        assert answer.content == "Paris is 18C."
        stored = await store.recall("c")
        assert [m.msg_id for m in stored] == [first.msg_id, second.msg_id, answer.msg_id]
    finally:
        await store.aclose()


@pytest.mark.parametrize("name", ["429", "500", "timeout"])
async def test_transient_faults_are_retried_as_configured(store_url: str, name: str) -> None:
    fault, error, stream = FAULTS[name]
    store = SQLMessageStore(store_url)
    try:
        provider = Provider(fault, faults=2)
        brain = _brain(store, provider, retries=2, stream=stream)
        turn = TextMessage(content="weather?", conversation_id="r")
        answer = await brain.arun(turn)
        assert answer.content == "Paris is 18C."
        assert provider.requests == 1 + 2 + 1  # tool call, two faults retried by the SDK, the answer
        stored = await store.recall("r")
        assert [m.msg_id for m in stored] == [turn.msg_id, answer.msg_id]

        provider.faults = 3  # more faults than retries: a clear failure, nothing lost
        again = TextMessage(content="weather again?", conversation_id="r")
        with pytest.raises(error):
            await brain.arun(again)
        assert [m.msg_id for m in await store.recall("r")] == [turn.msg_id, answer.msg_id, again.msg_id]
    finally:
        await store.aclose()


def test_an_anthropic_stream_cut_short_is_an_error_not_half_an_answer() -> None:
    """Regression: a stream without its `message_delta`/`message_stop` was assembled as a complete reply."""
    from tests.brain.chain.llms.conftest import Recorder
    from tests.brain.chain.llms.test_anthropic import llm, stream_body

    whole = stream_body()
    cut = whole[: whole.index("event: message_delta")]
    with pytest.raises(ProviderUnavailableError, match="ended before the response was complete"):
        list(llm(Recorder(), lambda body: (200, cut, {})).stream(TextMessage(content="hi")))
    assert list(llm(Recorder(), lambda body: (200, whole, {})).stream(TextMessage(content="hi")))


async def test_a_provider_that_reuses_call_ids_every_turn(store_url: str) -> None:
    """Regression: with `call_0` in every reply, the second turn's call and result were dropped from the
    request as duplicates of the first turn's; the model was asked again and again to the step limit."""

    def same_ids(request: httpx2.Request) -> httpx2.Response:
        requests.append(json.loads(request.content)["messages"])
        if requests[-1][-1]["role"] == "user":
            return _reply(request, {"role": "assistant", "content": None, "tool_calls": [TOOL_CALL]}, "tool_calls")
        return _reply(request, {"role": "assistant", "content": "Paris is 18C."}, "stop")

    requests: list[list[dict[str, Any]]] = []
    store = SQLMessageStore(store_url)
    try:
        transport = httpx2.MockTransport(same_ids)
        llm = OpenAIChat(model="gpt-4o", api_key="sk-test", async_http_client=httpx2.AsyncClient(transport=transport))
        brain = Brain(Chain(llm, Drive([weather]), stream=False, max_steps=4), store)
        for _ in range(2):
            answer = await brain.arun(TextMessage(content="weather in Paris?", conversation_id="ids"))
            assert answer.content == "Paris is 18C."
        assert len(requests) == 4
        last = requests[-1]
        assert [m["role"] for m in last] == ["user", "assistant", "tool", "assistant", "user", "assistant", "tool"]
        assert [m["tool_call_id"] for m in last if m["role"] == "tool"] == ["call_a", "call_a_2"]
        assert len(await store.recall("ids")) == 4
    finally:
        await store.aclose()
