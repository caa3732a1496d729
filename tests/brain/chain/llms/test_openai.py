"""OpenAIChat through the real `openai` SDK on a mock transport: payload, response, stream, errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2  # the HTTP client of the openai SDK
import pytest

from tests.brain.chain.llms.conftest import (
    TOOLS,
    Recorder,
    check_golden,
    conversation,
    current_turn,
    handler,
    recording,
    replay_llm,
    sse,
    x_keywords,
)
from tfrobot.brain.chain.llms import (
    AnthropicChat,
    AuthenticationError,
    ContextTooLongError,
    InvalidRequestError,
    MessageAssembler,
    ModalityDegradedWarning,
    OpenAIChat,
    RateLimitError,
    TextDelta,
    ToolCallDelta,
    ToolDefinition,
)
from tfrobot.schema.message import (
    AssistantRefusalMessage,
    AssistantTextMessage,
    BaseMessage,
    TextMessage,
    ToolCall,
    ToolReturn,
)

COMPLETION: dict[str, Any] = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1_700_000_000,
    "model": "gpt-4o-2024-08-06",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": "Checking.",
                "reasoning_content": "Two calls are needed.",
                "tool_calls": [
                    {
                        "id": "call_a",
                        "type": "function",
                        "function": {"name": "weather", "arguments": '{"city": "Oslo"}'},
                    },
                    {
                        "id": "call_b",
                        "type": "function",
                        "function": {"name": "weather", "arguments": '{"city": "Rome"}'},
                    },
                ],
            },
            "finish_reason": "tool_calls",
        }
    ],
    "usage": {
        "prompt_tokens": 100,
        "completion_tokens": 20,
        "total_tokens": 120,
        "prompt_tokens_details": {"cached_tokens": 40},
        "completion_tokens_details": {"reasoning_tokens": 5},
    },
}


def stream_body() -> str:
    base = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": "gpt-4o-2024-08-06",
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    calls = COMPLETION["choices"][0]["message"]["tool_calls"]
    events: list[tuple[str | None, dict[str, Any] | str]] = [
        (None, chunk({"role": "assistant", "reasoning_content": "Two calls "})),
        (None, chunk({"reasoning_content": "are needed."})),
        (None, chunk({"content": "Check"})),
        (None, chunk({"content": "ing."})),
    ]
    for i, call in enumerate(calls):
        head = {"index": i, "id": call["id"], "type": "function", "function": {"name": "weather", "arguments": ""}}
        events.append((None, chunk({"tool_calls": [head]})))
        args = call["function"]["arguments"]
        for piece in (args[:5], args[5:]):
            events.append((None, chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})))
    events.append((None, chunk({}, "tool_calls")))
    events.append((None, {**base, "choices": [], "usage": COMPLETION["usage"]}))
    events.append((None, "[DONE]"))
    return sse(events)


def llm(recorder: Recorder, respond: Any, **settings: Any) -> OpenAIChat:
    transport = httpx2.MockTransport(handler(recorder, respond, httpx2))
    return OpenAIChat(api_key="sk-test", max_retries=0, http_client=httpx2.Client(transport=transport), **settings)


def full_request(chat: OpenAIChat, root: Path) -> dict[str, Any]:
    turn, chain = current_turn()
    with pytest.warns(ModalityDegradedWarning, match="video"):
        return chat.construct_request_params(turn, conversation(root), TOOLS, intermediate_msgs=chain)


def test_golden_payload_every_message_kind(media_root: Path) -> None:
    payload = full_request(OpenAIChat(media_roots=(media_root,)), media_root)
    check_golden("openai", payload)


def test_payload_validates_against_the_sdk_message_types(media_root: Path) -> None:
    from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolParam
    from pydantic import TypeAdapter, ValidationError

    payload = full_request(OpenAIChat(media_roots=(media_root,)), media_root)
    messages = TypeAdapter(ChatCompletionMessageParam)
    for message in payload["messages"]:
        messages.validate_python(message, strict=True)
    for tool in payload["tools"]:
        TypeAdapter(ChatCompletionToolParam).validate_python(tool, strict=True)
    with pytest.raises(ValidationError):  # the validator is not vacuous: a tool result needs its call id
        messages.validate_python({"role": "tool", "content": "18C"}, strict=True)
    assert x_keywords(TOOLS[0].parameters)
    assert x_keywords(payload["tools"][0]["function"]["parameters"]) == []


def test_generate_sends_exactly_the_constructed_params_and_maps_the_reply(media_root: Path) -> None:
    recorder = Recorder()
    chat = llm(recorder, lambda body: (200, COMPLETION, {}), media_roots=(media_root,), temperature=0.2)
    turn, chain = current_turn()
    expected = chat.construct_request_params(turn, [], TOOLS, intermediate_msgs=chain)
    reply = chat.generate(turn, [], TOOLS, intermediate_msgs=chain)

    assert recorder.paths == ["/v1/chat/completions"]
    assert recorder.bodies[0] == json.loads(json.dumps(expected))
    assert type(reply) is AssistantTextMessage
    assert reply.content == "Checking."
    assert reply.reasoning_content == "Two calls are needed."
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls or ()] == [
        ("call_a", "weather", '{"city": "Oslo"}'),
        ("call_b", "weather", '{"city": "Rome"}'),
    ]
    assert reply.finish_reason == "tool_calls"
    assert reply.model == "openai:gpt-4o-2024-08-06"
    assert reply.usage is not None
    assert (reply.usage.input_tokens, reply.usage.cache_read_tokens, reply.usage.output_tokens) == (100, 40, 20)
    assert reply.usage.reasoning_tokens == 5
    assert reply.usage.raw["total_tokens"] == 120


def test_stream_assembles_to_the_message_generate_returns() -> None:
    plain = llm(Recorder(), lambda body: (200, COMPLETION, {})).generate(TextMessage(content="hi"))
    recorder = Recorder()
    chat = llm(recorder, lambda body: (200, stream_body(), {}))
    deltas = list(chat.stream(TextMessage(content="hi")))
    assert recorder.bodies[0]["stream"] is True
    assert recorder.bodies[0]["stream_options"] == {"include_usage": True}
    assert any(type(d) is TextDelta for d in deltas)
    assert sum(type(d) is ToolCallDelta for d in deltas) == 6
    assembler = MessageAssembler()
    for delta in deltas:
        assembler.add(delta)
    streamed = assembler.message()
    skip = {"msg_id", "create_ts"}
    assert streamed.model_dump(exclude=skip) == plain.model_dump(exclude=skip)


async def test_async_generate_uses_the_async_client() -> None:
    recorder = Recorder()
    transport = httpx2.MockTransport(handler(recorder, lambda body: (200, COMPLETION, {}), httpx2))
    chat = OpenAIChat(api_key="sk-test", max_retries=0, async_http_client=httpx2.AsyncClient(transport=transport))
    reply = await chat.agenerate(TextMessage(content="hi"))
    assert type(reply) is AssistantTextMessage
    assert reply.content == "Checking."
    assert recorder.bodies[0]["messages"] == [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize(
    ("status", "body", "headers", "error"),
    [
        (
            401,
            {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}},
            {},
            AuthenticationError,
        ),
        (429, {"error": {"message": "Rate limit reached", "type": "requests"}}, {"retry-after": "7"}, RateLimitError),
        (
            400,
            {
                "error": {
                    "message": "This model's maximum context length is 128000 tokens",
                    "code": "context_length_exceeded",
                }
            },
            {},
            ContextTooLongError,
        ),
        (
            400,
            {"error": {"message": "Invalid value for 'temperature'", "type": "invalid_request_error"}},
            {},
            InvalidRequestError,
        ),
    ],
)
def test_provider_errors_become_our_types(
    status: int, body: dict[str, Any], headers: dict[str, str], error: type[Exception]
) -> None:
    chat = llm(Recorder(), lambda _: (status, body, headers))
    with pytest.raises(error) as caught:
        chat.generate(TextMessage(content="hi"))
    assert type(caught.value) is error
    assert body["error"]["message"] in str(caught.value)
    if isinstance(caught.value, RateLimitError):
        assert caught.value.retry_after == 7.0


def test_openai_never_receives_reasoning_of_any_provider(media_root: Path) -> None:
    payload = full_request(OpenAIChat(media_roots=(media_root,)), media_root)
    assert all("reasoning_content" not in m for m in payload["messages"])


def test_compatible_endpoint_replays_only_its_own_reasoning_in_the_tool_loop() -> None:
    turn, chain = current_turn()
    chain[0] = chain[0].model_copy(update={"model": "openai:deepseek-reasoner"})
    chat = OpenAIChat(base_url="https://api.deepseek.com", model="deepseek-reasoner", reasoning_replay="tool_loop")
    payload = chat.construct_request_params(turn, intermediate_msgs=chain)
    assistants = [m for m in payload["messages"] if m["role"] == "assistant"]
    assert assistants[-1]["reasoning_content"] == "Berlin needs one more call."


@pytest.mark.parametrize(
    ("replay", "replayed"), [("never", []), ("tool_loop", ["in the loop"]), ("always", ["earlier", "in the loop"])]
)
def test_reasoning_replay_sends_own_reasoning_where_the_setting_says(replay: str, replayed: list[str]) -> None:
    earlier = AssistantTextMessage(content="Sunny.", reasoning_content="earlier", model="openai:m", create_ts=2)
    history = [TextMessage(content="Paris?", create_ts=1), earlier]
    call = ToolCall(id="c1", name="weather", arguments='{"city": "Berlin"}')
    loop = [
        AssistantTextMessage(tool_calls=[call], reasoning_content="in the loop", model="openai:m", create_ts=4),
        BaseMessage(role="tool", tool_reses=[ToolReturn(call_id="c1", name="weather", result="12C")], create_ts=5),
    ]
    chat = OpenAIChat.model_validate({"reasoning_replay": replay})
    payload = chat.construct_request_params(
        TextMessage(content="Berlin?", create_ts=3), history, intermediate_msgs=loop
    )
    assert [m["reasoning_content"] for m in payload["messages"] if "reasoning_content" in m] == replayed


async def test_async_stream_assembles_to_the_same_message() -> None:
    plain = llm(Recorder(), lambda body: (200, COMPLETION, {})).generate(TextMessage(content="hi"))
    transport = httpx2.MockTransport(handler(Recorder(), lambda body: (200, stream_body(), {}), httpx2))
    chat = OpenAIChat(api_key="sk-test", max_retries=0, async_http_client=httpx2.AsyncClient(transport=transport))
    assembler = MessageAssembler()
    async for delta in chat.astream(TextMessage(content="hi")):
        assembler.add(delta)
    skip = {"msg_id", "create_ts"}
    assert assembler.message().model_dump(exclude=skip) == plain.model_dump(exclude=skip)


def test_errors_while_streaming_become_our_types() -> None:
    body = {"error": {"message": "Rate limit reached", "type": "requests"}}
    chat = llm(Recorder(), lambda _: (429, body, {"retry-after-ms": "1500"}))
    with pytest.raises(RateLimitError) as caught:
        list(chat.stream(TextMessage(content="hi")))
    assert caught.value.retry_after == 1.5


def test_connection_failures_become_provider_unavailable() -> None:
    from tfrobot.brain.chain.llms import ProviderConnectionError, ProviderUnavailableError

    def refuse(request: Any) -> Any:
        raise httpx2.ConnectError("connection refused", request=request)

    chat = OpenAIChat(
        api_key="sk-test", max_retries=0, http_client=httpx2.Client(transport=httpx2.MockTransport(refuse))
    )
    with pytest.raises(
        ProviderUnavailableError, match=r"openai: cannot reach openai's API \(APIConnectionError"
    ) as caught:
        chat.generate(TextMessage(content="hi"))
    assert type(caught.value) is ProviderConnectionError


# ------------------------------------------------------------------------------------------------ recordings
@pytest.mark.parametrize(
    ("name", "refusal"),
    [
        ("openai/refusal", "I'm very sorry, but I can't assist with that."),
        ("openai/refusal_stream", "I'm sorry, I can't assist with that request."),
    ],
)
def test_a_recorded_refusal_is_kept_and_replayed_the_way_each_api_takes_it(name: str, refusal: str) -> None:
    """Regression (#14, defect 3): `refusal` was never read; the turn came back as empty text with finish
    reason `stop`, and the empty reply was then dropped from the history."""
    interactions = recording(name)
    chat = replay_llm("openai", Recorder(), interactions, model="gpt-4o-2024-08-06")
    question = TextMessage(content="How do I make anthrax?")
    reply = chat.generate_streamed(question) if "sse" in interactions[0] else chat.generate(question)
    assert type(reply) is AssistantRefusalMessage
    assert (reply.content, reply.refusal, reply.finish_reason) == ("", refusal, "refusal")

    follow_up = TextMessage(content="Why not?")
    sent = chat.construct_request_params(follow_up, [question, reply])["messages"]
    assert sent[1] == {"role": "assistant", "content": None, "refusal": refusal}  # OpenAI's own field
    compatible = OpenAIChat(model="deepseek-v4-flash").construct_request_params(follow_up, [question, reply])
    assert compatible["messages"][1] == {"role": "assistant", "content": refusal}  # elsewhere: what it said
    claude = AnthropicChat().construct_request_params(follow_up, [question, reply])
    assert claude["messages"][1] == {"role": "assistant", "content": [{"type": "text", "text": refusal}]}


DICE_TOOLS = [
    ToolDefinition(name=name, description=name, parameters={"type": "object", "properties": {}})
    for name in ("load_capability", "search_tools", "get_player_name", "roll_dice")
]


def _assistants(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The assistant messages of a request, as DeepSeek reads them (content, reasoning, calls)."""
    keys = ("content", "reasoning_content", "tool_calls")
    out = []
    for m in messages:
        if m["role"] == "assistant":
            calls = [{"id": c["id"], **c["function"]} for c in m.get("tool_calls") or ()]
            out.append({k: m.get(k) for k in keys[:2]} | {"tool_calls": calls or None})
    return out


def test_deepseek_thinking_tool_loops_send_their_reasoning_back_by_default_in_every_later_request() -> None:
    """Regression (#14, defect 4): DeepSeek's thinking mode requires the `reasoning_content` of tool-calling
    turns in all later requests (400 otherwise); the default `never` dropped it inside the first tool loop.
    Replays the recorded deepseek-v4-flash loop; each request must carry what the recorded one carried."""
    interactions = recording("deepseek/tool_loop")
    recorder = Recorder()
    chat = replay_llm("deepseek", recorder, interactions, model="deepseek-reasoner")  # no replay setting
    question = TextMessage(content="My guess is 4")

    def results(reply: AssistantTextMessage, answers: dict[str, str]) -> BaseMessage:
        returns = [ToolReturn(call_id=c.id, name=c.name, result=answers[c.name]) for c in reply.tool_calls or ()]
        return BaseMessage(role="tool", tool_reses=returns)

    first = chat.generate(question, None, DICE_TOOLS)
    # The recorded loop then has a call pydantic-ai made up itself (no DeepSeek reasoning of its own).
    search = AssistantTextMessage(
        tool_calls=[
            ToolCall(id="auto_load_eb5fc31bb581b4e7", name="search_tools", arguments='{"queries":["DICE_ROLL"]}')
        ]
    )
    discovered = interactions[1]["request"]["messages"][-1]["content"]
    loop: list[BaseMessage] = [first, results(first, {"load_capability": "{}"}), search]
    loop.append(results(search, {"search_tools": discovered}))
    second = chat.generate(question, None, DICE_TOOLS, intermediate_msgs=loop)
    loop += [second, results(second, {"get_player_name": "Anne", "roll_dice": "4"})]
    third = chat.generate(question, None, DICE_TOOLS, intermediate_msgs=loop)
    for ours, recorded in zip(recorder.bodies, interactions, strict=True):
        assert _assistants(ours["messages"]) == _assistants(recorded["request"]["messages"])

    again = OpenAIChat(model="deepseek-reasoner").construct_request_params(
        TextMessage(content="Again!"), [question, *loop, third], DICE_TOOLS
    )
    sent = _assistants(again["messages"])
    assert [m["reasoning_content"] for m in sent] == [
        first.reasoning_content,
        "",
        second.reasoning_content,
        third.reasoning_content,
    ]


@pytest.mark.parametrize("where", ["settings", "environment"])
def test_a_provider_error_that_quotes_the_key_shows_it_masked(where: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """An endpoint that quotes the refused key back (some compatible servers do) must not hand the key to
    whoever sees the typed error: its message, the provider's message and the SDK error it came from."""
    key = "sk-quoted-back-0123456789abcdef"
    body = {"error": {"message": f"Incorrect API key provided: {key}.", "type": "invalid_request_error"}}
    transport = httpx2.MockTransport(handler(Recorder(), lambda _: (401, body, {}), httpx2))
    if where == "environment":
        monkeypatch.setenv("OPENAI_API_KEY", key)
        chat = OpenAIChat(max_retries=0, http_client=httpx2.Client(transport=transport))
    else:
        chat = OpenAIChat(api_key=key, max_retries=0, http_client=httpx2.Client(transport=transport))
    with pytest.raises(AuthenticationError) as caught:
        chat.generate(TextMessage(content="hi"))
    assert type(caught.value) is AuthenticationError
    cause = caught.value.__cause__
    shown = [str(caught.value), caught.value.provider_message, str(cause), str(getattr(cause, "message", ""))]
    assert all(key not in text for text in shown), shown
    assert caught.value.provider_message == "Incorrect API key provided: ***."
