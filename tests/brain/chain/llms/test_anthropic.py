"""AnthropicChat through the real `anthropic` SDK on a mock transport: payload, response, stream, errors."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import httpx2  # the HTTP client of the anthropic SDK
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
    MessageAssembler,
    ModalityDegradedWarning,
    RateLimitError,
    ReasoningBlockDelta,
)
from tfrobot.brain.chain.llms.wire import clean_nones
from tfrobot.schema.message import AssistantTextMessage, BaseMessage, ReasoningBlock, TextMessage

USAGE = {"input_tokens": 100, "output_tokens": 20, "cache_read_input_tokens": 40, "cache_creation_input_tokens": 10}

MESSAGE: dict[str, Any] = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-6",
    "content": [
        {"type": "thinking", "thinking": "Two calls.", "signature": "EqQBCkYIAR=="},
        {"type": "redacted_thinking", "data": "ZW5jcnlwdGVk"},
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "toolu_a", "name": "weather", "input": {"city": "Oslo"}},
        {"type": "tool_use", "id": "toolu_b", "name": "weather", "input": {"city": "Rome"}},
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": USAGE,
}


def stream_body() -> str:
    start = {**MESSAGE, "content": [], "stop_reason": None, "usage": {**USAGE, "output_tokens": 1}}
    events: list[tuple[str | None, dict[str, Any] | str]] = [
        ("message_start", {"type": "message_start", "message": start})
    ]

    def block(index: int, content_block: dict[str, Any], deltas: list[dict[str, Any]]) -> None:
        events.append(
            ("content_block_start", {"type": "content_block_start", "index": index, "content_block": content_block})
        )
        for delta in deltas:
            events.append(("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))

    block(
        0,
        {"type": "thinking", "thinking": "", "signature": ""},
        [
            {"type": "thinking_delta", "thinking": "Two "},
            {"type": "thinking_delta", "thinking": "calls."},
            {"type": "signature_delta", "signature": "EqQBCkYIAR=="},
        ],
    )
    block(1, {"type": "redacted_thinking", "data": "ZW5jcnlwdGVk"}, [])
    block(
        2,
        {"type": "text", "text": ""},
        [{"type": "text_delta", "text": "Check"}, {"type": "text_delta", "text": "ing."}],
    )
    for index, call in ((3, MESSAGE["content"][3]), (4, MESSAGE["content"][4])):
        args = json.dumps(call["input"], ensure_ascii=False)
        block(
            index,
            {"type": "tool_use", "id": call["id"], "name": call["name"], "input": {}},
            [
                {"type": "input_json_delta", "partial_json": args[:4]},
                {"type": "input_json_delta", "partial_json": args[4:]},
            ],
        )
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                "usage": {"output_tokens": 20},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return sse(events)


def llm(recorder: Recorder, respond: Any, **settings: Any) -> AnthropicChat:
    transport = httpx2.MockTransport(handler(recorder, respond, httpx2))
    return AnthropicChat(
        api_key="sk-ant-test", max_retries=0, http_client=httpx2.Client(transport=transport), **settings
    )


def full_request(chat: AnthropicChat, root: Path) -> dict[str, Any]:
    turn, chain = current_turn()
    with pytest.warns(ModalityDegradedWarning) as warned:
        payload = chat.construct_request_params(turn, conversation(root), TOOLS, intermediate_msgs=chain)
    assert sorted(str(w.message).split(" cannot take a ")[1].split(" ")[0] for w in warned) == ["audio", "video"]
    return payload


def test_golden_payload_every_message_kind(media_root: Path) -> None:
    check_golden("anthropic", full_request(AnthropicChat(media_roots=(media_root,)), media_root))


def test_payload_validates_against_the_sdk_types_and_follows_the_turn_rules(media_root: Path) -> None:
    from anthropic.types import MessageParam, ToolParam
    from pydantic import TypeAdapter, ValidationError

    payload = full_request(AnthropicChat(media_roots=(media_root,)), media_root)
    messages = TypeAdapter(MessageParam)
    for message in payload["messages"]:
        messages.validate_python(message, strict=True)
    with pytest.raises(ValidationError):
        messages.validate_python({"role": "user"}, strict=True)
    for tool in payload["tools"]:
        TypeAdapter(ToolParam).validate_python(tool, strict=True)
    assert x_keywords(payload["tools"][0]["input_schema"]) == []

    assert payload["system"] == [{"type": "text", "text": "You are TFRobot.", "cache_control": {"type": "ephemeral"}}]
    roles = [m["role"] for m in payload["messages"]]
    assert all(a != b for a, b in itertools.pairwise(roles)), roles
    ids_ok = all(
        block.get("id", "ok").replace("_", "").replace("-", "").isalnum()
        and block.get("tool_use_id", "ok").replace("_", "").replace("-", "").isalnum()
        for m in payload["messages"]
        for block in m["content"]
    )
    assert ids_ok
    for index, message in enumerate(payload["messages"]):
        uses = [b["id"] for b in message["content"] if b["type"] == "tool_use"]
        if uses:
            following = payload["messages"][index + 1]["content"]
            assert [b["tool_use_id"] for b in following[: len(uses)]] == uses


def test_thinking_blocks_replay_unchanged_and_only_anthropic_ones(media_root: Path) -> None:
    payload = full_request(AnthropicChat(media_roots=(media_root,)), media_root)
    assistant = next(m for m in payload["messages"] if m["role"] == "assistant")
    assert assistant["content"][:2] == [
        {"type": "thinking", "thinking": "Two cities: two calls.", "signature": "c2lnLWFudGhyb3BpYw=="},
        {"type": "redacted_thinking", "data": "b3BhcXVl"},
    ]
    text = json.dumps(payload)
    assert "Z2VtaW5pLXNpZw==" not in text  # the Gemini signature
    assert "Berlin needs one more call." not in text  # Zhipu's reasoning_content
    assert "call the tool twice" not in text  # reasoning_content is never sent as text


def test_tool_media_goes_inside_its_tool_result(media_root: Path) -> None:
    payload = full_request(AnthropicChat(media_roots=(media_root,)), media_root)
    results = [b for m in payload["messages"] for b in m["content"] if b["type"] == "tool_result"]
    paris = next(b for b in results if b["tool_use_id"] == "call_paris")
    assert [b["type"] for b in paris["content"]] == ["text", "image"]
    tokyo = next(b for b in results if b["tool_use_id"] != "call_paris" and b["tool_use_id"] != "call_berlin")
    assert tokyo["is_error"] is True
    assert tokyo["tool_use_id"].startswith("call_tokyo_2_")


def test_generate_sends_the_constructed_params_and_maps_the_reply() -> None:
    recorder = Recorder()
    chat = llm(recorder, lambda body: (200, MESSAGE, {}), temperature=0.3)
    turn, chain = current_turn()
    expected = chat.construct_request_params(
        turn, [BaseMessage(role="system", content="Be brief.")], TOOLS, intermediate_msgs=chain
    )
    reply = chat.generate(turn, [BaseMessage(role="system", content="Be brief.")], TOOLS, intermediate_msgs=chain)

    assert recorder.paths == ["/v1/messages"]
    sent = dict(expected)
    extra = sent.pop("extra_body")
    assert recorder.bodies[0] == json.loads(json.dumps({**sent, **extra}))
    assert recorder.bodies[0]["temperature"] == 0.3
    assert type(reply) is AssistantTextMessage
    assert reply.content == "Checking."
    assert reply.reasoning_blocks == [
        ReasoningBlock(text="Two calls.", signature="EqQBCkYIAR==", provider="anthropic"),
        ReasoningBlock(type="redacted_thinking", data="ZW5jcnlwdGVk", provider="anthropic"),
    ]
    assert reply.reasoning_content == "Two calls."
    assert [(c.id, json.loads(c.arguments)) for c in reply.tool_calls or ()] == [
        ("toolu_a", {"city": "Oslo"}),
        ("toolu_b", {"city": "Rome"}),
    ]
    assert reply.finish_reason == "tool_calls"
    assert reply.usage is not None
    assert (reply.usage.input_tokens, reply.usage.cache_read_tokens, reply.usage.cache_write_tokens) == (150, 40, 10)
    assert reply.usage.raw["input_tokens"] == 100


def test_stream_assembles_to_the_message_generate_returns() -> None:
    plain = llm(Recorder(), lambda body: (200, MESSAGE, {})).generate(TextMessage(content="hi"))
    recorder = Recorder()
    deltas = list(llm(recorder, lambda body: (200, stream_body(), {})).stream(TextMessage(content="hi")))
    assert recorder.bodies[0]["stream"] is True
    assert any(type(d) is ReasoningBlockDelta and d.signature for d in deltas)
    assembler = MessageAssembler()
    for delta in deltas:
        assembler.add(delta)
    skip = {"msg_id", "create_ts"}
    assert assembler.message().model_dump(exclude=skip) == plain.model_dump(exclude=skip)


def test_a_reply_replayed_next_turn_keeps_its_signatures() -> None:
    reply = llm(Recorder(), lambda body: (200, MESSAGE, {})).generate(TextMessage(content="hi"))
    turn = TextMessage(content="go on")
    payload = AnthropicChat().construct_request_params(turn, intermediate_msgs=[reply])
    assistant = next(m for m in payload["messages"] if m["role"] == "assistant")
    assert assistant["content"][0] == {"type": "thinking", "thinking": "Two calls.", "signature": "EqQBCkYIAR=="}
    assert assistant["content"][1] == {"type": "redacted_thinking", "data": "ZW5jcnlwdGVk"}


@pytest.mark.parametrize(
    ("status", "message", "headers", "error"),
    [
        (401, "invalid x-api-key", {}, AuthenticationError),
        (429, "Number of request tokens has exceeded your rate limit", {"retry-after": "3"}, RateLimitError),
        (400, "prompt is too long: 210000 tokens > 200000 maximum", {}, ContextTooLongError),
    ],
)
def test_provider_errors_become_our_types(
    status: int, message: str, headers: dict[str, str], error: type[Exception]
) -> None:
    kind = {401: "authentication_error", 429: "rate_limit_error", 400: "invalid_request_error"}[status]
    body = {"type": "error", "error": {"type": kind, "message": message}}
    with pytest.raises(error) as caught:
        llm(Recorder(), lambda _: (status, body, headers)).generate(TextMessage(content="hi"))
    assert type(caught.value) is error
    assert message in str(caught.value)
    if isinstance(caught.value, RateLimitError):
        assert caught.value.retry_after == 3.0


async def test_async_generate_and_stream() -> None:
    def client(respond: Any) -> AnthropicChat:
        transport = httpx2.MockTransport(handler(Recorder(), respond, httpx2))
        return AnthropicChat(api_key="k", max_retries=0, async_http_client=httpx2.AsyncClient(transport=transport))

    plain = await client(lambda body: (200, MESSAGE, {})).agenerate(TextMessage(content="hi"))
    assert type(plain) is AssistantTextMessage
    assembler = MessageAssembler()
    async for delta in client(lambda body: (200, stream_body(), {})).astream(TextMessage(content="hi")):
        assembler.add(delta)
    skip = {"msg_id", "create_ts"}
    assert assembler.message().model_dump(exclude=skip) == plain.model_dump(exclude=skip)


# ------------------------------------------------------------------------------------------------ recordings
def _response_blocks(interaction: dict[str, Any]) -> list[dict[str, Any]]:
    """The content blocks of a recorded reply: the JSON body's, or the stream's blocks put together as the
    API documents it (`content_block_start`, then its deltas)."""
    if "json" in interaction:
        blocks: list[dict[str, Any]] = interaction["json"]["content"]
        return blocks
    out: dict[int, dict[str, Any]] = {}
    partial: dict[int, str] = {}
    for line in interaction["sse"].splitlines():
        if not line.startswith("data: "):
            continue
        event = json.loads(line[6:])
        if event["type"] == "content_block_start":
            out[event["index"]] = dict(event["content_block"])
        elif event["type"] == "content_block_delta":
            block, delta = out[event["index"]], event["delta"]
            if delta["type"] == "text_delta":
                block["text"] += delta["text"]
            elif delta["type"] == "citations_delta":
                block.setdefault("citations", []).append(delta["citation"])
            elif delta["type"] == "input_json_delta":
                partial[event["index"]] = partial.get(event["index"], "") + delta["partial_json"]
    for index, text in partial.items():
        if text:
            out[index]["input"] = json.loads(text)
    return [out[i] for i in sorted(out)]


SERVER_SIDE = [
    "anthropic/web_search",
    "anthropic/web_search_stream",
    "anthropic/web_fetch",
    "anthropic/web_fetch_stream",
    "anthropic/code_execution",
    "anthropic/code_execution_stream",
    "anthropic/text_editor_code_execution",
    "anthropic/text_editor_code_execution_stream",
    "anthropic/mcp",
    "anthropic/mcp_stream",
    "anthropic/advisor",
    "anthropic/advisor_stream",
]


def _kept_whole(block: dict[str, Any]) -> bool:
    """Whether a reply keeps this block as it came: a server-side block, or text with citations."""
    return block["type"] != "text" or bool(block.get("citations"))


@pytest.mark.parametrize("name", SERVER_SIDE)
def test_recorded_server_side_blocks_are_kept_as_they_came_and_replayed_where_they_came(name: str) -> None:
    """Regression (#14, defect 2): server-side and MCP tool blocks became tool calls with an empty id and
    name (streamed) or vanished (not streamed), so the next request replayed a broken turn."""
    interactions = recording(name)
    recorder = Recorder()
    chat = replay_llm("anthropic", recorder, [interactions[0]], model="claude-sonnet-4-6")
    question = TextMessage(content="Go.")
    reply = chat.generate_streamed(question) if "sse" in interactions[0] else chat.generate(question)
    assert reply.tool_calls is None  # nothing for us to run
    recorded = [b for b in _response_blocks(interactions[0]) if b["type"] not in ("thinking", "redacted_thinking")]
    kept = [b.block for b in reply.server_tool_blocks if b.type != "container"]  # (the reply's container: #14 B4)
    assert kept == [b for b in recorded if _kept_whole(b)]

    payload = chat.construct_request_params(TextMessage(content="And then?"), [question, reply])
    replayed = [b for b in payload["messages"][1]["content"] if b["type"] not in ("thinking", "redacted_thinking")]
    # The same blocks in the same order, cited text blocks as they came (#14 B3), the other text between them
    # where it was (adjacent uncited text blocks come back joined).
    expected: list[dict[str, Any]] = []
    for block in recorded:
        if _kept_whole(block):
            expected.append(block)
        elif expected and not _kept_whole(expected[-1]):
            expected[-1] = {"type": "text", "text": expected[-1]["text"] + block["text"]}
        else:
            expected.append({"type": "text", "text": block["text"]})
    assert replayed == [b for b in expected if b["type"] != "text" or b["text"].strip()]
    follow_up = interactions[1]["request"]["messages"] if len(interactions) > 1 else []
    if len(follow_up) > 1 and follow_up[1]["role"] == "assistant":  # the API took these blocks back (200)
        accepted = [clean_nones(b) for b in follow_up[1]["content"] if b["type"] not in ("text", "thinking")]
        assert [clean_nones(b) for b in replayed if b["type"] != "text"] == accepted


@pytest.mark.parametrize(("name", "thinking"), [("anthropic/thinking_usage", 33), ("anthropic/advisor_stream", 47)])
def test_recorded_thinking_tokens_are_reasoning_tokens(name: str, thinking: int) -> None:
    """Regression (#14, defect 5): `output_tokens_details.thinking_tokens` was not read (always 0)."""
    interactions = recording(name)
    chat = replay_llm("anthropic", Recorder(), interactions, model="claude-sonnet-4-6")
    question = TextMessage(content="What is 2+2?")
    reply = chat.generate_streamed(question) if "sse" in interactions[0] else chat.generate(question)
    assert reply.usage is not None
    assert reply.usage.reasoning_tokens == thinking


def test_recorded_cache_reads_and_writes_are_in_the_usage() -> None:
    interactions = recording("anthropic/cache_usage")
    chat = replay_llm("anthropic", Recorder(), interactions, model="claude-sonnet-4-6")
    usages = [chat.generate(TextMessage(content="Python?")).usage for _ in interactions]
    assert [(u.input_tokens, u.cache_read_tokens, u.cache_write_tokens) for u in usages if u] == [
        (3 + 1111, 1111, 0),
        (3 + 1111 + 418, 1111, 418),
    ]
