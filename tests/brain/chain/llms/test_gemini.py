"""GeminiChat through the real `google-genai` SDK on a mock transport: payload, response, stream, errors."""

from __future__ import annotations

import base64
import itertools
import json
import re
from pathlib import Path
from typing import Any

import httpx
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
    GeminiChat,
    InvalidConversationError,
    MessageAssembler,
    ProviderUnavailableError,
    RateLimitError,
    ToolDefinition,
)
from tfrobot.schema.message import (
    AssistantTextMessage,
    BaseMessage,
    ReasoningBlock,
    TextMessage,
    ToolCall,
    ToolReturn,
)

SIGNATURE = base64.b64encode(b"gemini-thought-signature").decode()

RESPONSE: dict[str, Any] = {
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [
                    {"text": "Two calls.", "thought": True},
                    {"text": "Checking."},
                    {"functionCall": {"name": "weather", "args": {"city": "Oslo"}}, "thoughtSignature": SIGNATURE},
                    {"functionCall": {"name": "weather", "args": {"city": "Rome"}}},
                ],
            },
            "finishReason": "STOP",
            "index": 0,
        }
    ],
    "usageMetadata": {
        "promptTokenCount": 100,
        "candidatesTokenCount": 20,
        "thoughtsTokenCount": 7,
        "cachedContentTokenCount": 40,
        "totalTokenCount": 127,
    },
    "modelVersion": "gemini-2.5-flash",
    "responseId": "resp-1",
}


def stream_body() -> str:
    parts = RESPONSE["candidates"][0]["content"]["parts"]
    chunks = []
    for i, part in enumerate(parts):
        chunk: dict[str, Any] = {
            "candidates": [{"content": {"role": "model", "parts": [part]}, "index": 0}],
            "modelVersion": "gemini-2.5-flash",
            "responseId": "resp-1",
        }
        if i == len(parts) - 1:
            chunk["candidates"][0]["finishReason"] = "STOP"
            chunk["usageMetadata"] = RESPONSE["usageMetadata"]
        chunks.append((None, chunk))
    return sse(chunks)


def llm(recorder: Recorder, respond: Any, **settings: Any) -> GeminiChat:
    transport = httpx.MockTransport(handler(recorder, respond, httpx))
    return GeminiChat(api_key="g-test", http_client=httpx.Client(transport=transport), **settings)


def full_request(chat: GeminiChat, root: Path) -> dict[str, Any]:
    turn, chain = current_turn()
    return chat.construct_request_params(turn, conversation(root), TOOLS, intermediate_msgs=chain)


def test_golden_payload_every_message_kind(media_root: Path) -> None:
    check_golden("gemini", full_request(GeminiChat(media_roots=(media_root,)), media_root))


def test_payload_validates_against_the_sdk_types(media_root: Path) -> None:
    from google.genai import types
    from pydantic import ValidationError

    payload = full_request(GeminiChat(media_roots=(media_root,)), media_root)
    contents = [types.Content.model_validate(c) for c in payload["contents"]]
    config = types.GenerateContentConfig.model_validate(payload["config"])
    with pytest.raises(ValidationError):
        types.Content.model_validate({"role": "user", "parts": [{"image_url": "x"}]})
    assert config.system_instruction == "You are TFRobot."
    roles = [c.role for c in contents]
    assert all(a != b for a, b in itertools.pairwise(roles)), roles
    assert x_keywords(payload["config"]["tools"][0]["function_declarations"][0]["parameters_json_schema"]) == []


def test_only_gemini_signatures_are_replayed(media_root: Path) -> None:
    payload = full_request(GeminiChat(media_roots=(media_root,)), media_root)
    model_turn = next(c for c in payload["contents"] if c["role"] == "model")
    signed = [p for p in model_turn["parts"] if "thought_signature" in p]
    assert len(signed) == 1
    assert "function_call" in signed[0]
    assert signed[0]["thought_signature"] == b"gemini-sig"
    text = json.dumps(payload, default=str)
    assert "c2lnLWFudGhyb3BpYw==" not in text
    assert "b3BhcXVl" not in text


def test_generate_maps_the_reply_and_sends_our_contents() -> None:
    recorder = Recorder()
    reply = llm(recorder, lambda body: (200, RESPONSE, {})).generate(TextMessage(content="hi"), tools=TOOLS)
    assert recorder.paths[0].endswith("/models/gemini-2.5-flash:generateContent")
    sent = recorder.bodies[0]
    assert sent["contents"] == [{"role": "user", "parts": [{"text": "hi"}]}]
    declaration = sent["tools"][0]["functionDeclarations"][0]
    schema = declaration.get("parametersJsonSchema", declaration.get("parameters_json_schema"))
    assert schema["required"] == ["city"]
    assert x_keywords(schema) == []
    assert type(reply) is AssistantTextMessage
    assert reply.content == "Checking."
    assert reply.reasoning_content == "Two calls."
    assert reply.reasoning_blocks == [ReasoningBlock(signature=SIGNATURE, provider="gemini")]
    assert [(c.id, json.loads(c.arguments)) for c in reply.tool_calls or ()] == [
        ("call_resp-1_0", {"city": "Oslo"}),
        ("call_resp-1_1", {"city": "Rome"}),
    ]
    assert reply.finish_reason == "tool_calls"
    assert reply.usage is not None
    assert (reply.usage.input_tokens, reply.usage.output_tokens, reply.usage.reasoning_tokens) == (100, 27, 7)
    assert reply.model == "gemini:gemini-2.5-flash"


def test_stream_assembles_to_the_message_generate_returns() -> None:
    plain = llm(Recorder(), lambda body: (200, RESPONSE, {})).generate(TextMessage(content="hi"))
    recorder = Recorder()
    deltas = list(llm(recorder, lambda body: (200, stream_body(), {})).stream(TextMessage(content="hi")))
    assert recorder.paths[0].endswith("/models/gemini-2.5-flash:streamGenerateContent")
    assembler = MessageAssembler()
    for delta in deltas:
        assembler.add(delta)
    skip = {"msg_id", "create_ts"}
    assert assembler.message().model_dump(exclude=skip) == plain.model_dump(exclude=skip)


def test_a_stream_cut_short_is_an_error_not_half_an_answer() -> None:
    """Regression: a stream whose last chunk (with `finishReason`) never came was assembled as a reply."""
    whole = stream_body()
    cut = whole[: whole.rindex("data:")]
    assert "finishReason" not in cut
    with pytest.raises(ProviderUnavailableError, match="ended before the response was complete"):
        list(llm(Recorder(), lambda body: (200, cut, {})).stream(TextMessage(content="hi")))


def test_rate_limit_becomes_our_type() -> None:
    body = {"error": {"code": 429, "message": "Resource has been exhausted", "status": "RESOURCE_EXHAUSTED"}}
    with pytest.raises(RateLimitError) as caught:
        llm(Recorder(), lambda _: (429, body, {"retry-after": "2"})).generate(TextMessage(content="hi"))
    assert type(caught.value) is RateLimitError
    assert "Resource has been exhausted" in str(caught.value)


# ------------------------------------------------------------------------------------------------ recordings
def _signature_sent(body: dict[str, Any]) -> bytes:
    """The thought signature a request body (as the SDK sent it: JSON, URL-safe base64) carries back."""
    model_turn = next(c for c in body["contents"] if c["role"] == "model")
    encoded = next(p["thoughtSignature"] for p in model_turn["parts"] if "thoughtSignature" in p)
    return base64.urlsafe_b64decode(encoded)


@pytest.mark.parametrize(
    ("name", "tool", "streamed"),
    [("gemini/thought_signature_stream", "get_country", True), ("gemini/thought_signature", "get_user_country", False)],
)
def test_a_recorded_thought_signature_goes_back_byte_for_byte(name: str, tool: str, streamed: bool) -> None:
    """Regression (#14, defect 1): the SDK dumps signatures URL-safe and the standard decoder dropped `-` and
    `_`: the recorded gemini-3 signature of 1,055 bytes went back as 1,026 ("Corrupted thought signature")."""
    interactions = recording(name)
    recorder = Recorder()
    chat = replay_llm("gemini", recorder, interactions, model="gemini-3-pro-preview")
    tools = [ToolDefinition(name=tool, description="", parameters={"type": "object", "properties": {}})]
    question = TextMessage(content="What is the capital of the user country? Call the tool")
    first = chat.generate_streamed(question, None, tools) if streamed else chat.generate(question, None, tools)
    call = (first.tool_calls or [])[0]
    result = BaseMessage(role="tool", tool_reses=[ToolReturn(call_id=call.id, name=call.name, result="Mexico")])
    loop = [first, result]
    second = (chat.generate_streamed if streamed else chat.generate)(question, None, tools, intermediate_msgs=loop)
    recorded_reply = json.dumps(interactions[0].get("json") or interactions[0]["sse"])
    issued = base64.b64decode(re.findall(r'thoughtSignature\\?": \\?"([^"\\]+)', recorded_reply)[0])
    assert _signature_sent(recorder.bodies[1]) == issued  # what Gemini issued, unchanged
    assert _signature_sent(recorder.bodies[1]) == _signature_sent(interactions[1]["request"])  # as recorded
    assert second.content.startswith("The ")


EVERY_BASE64_CHARACTER = bytes(range(256)) + b"\xfb\xff\xfe"  # standard: `+`, `/`, `=`; URL-safe: `-`, `_`


@pytest.mark.parametrize(
    "stored",
    [
        base64.b64encode(EVERY_BASE64_CHARACTER).decode(),
        base64.urlsafe_b64encode(EVERY_BASE64_CHARACTER).decode(),
        base64.urlsafe_b64encode(EVERY_BASE64_CHARACTER).decode().rstrip("="),
    ],
    ids=["standard", "url-safe", "url-safe-unpadded"],
)
def test_a_signature_in_either_base64_alphabet_goes_back_byte_for_byte(stored: str) -> None:
    assert {"+", "/"} <= set(stored) or {"-", "_"} <= set(stored)
    recorder = Recorder()
    chat = llm(recorder, lambda body: (200, RESPONSE, {}))
    reply = AssistantTextMessage(
        tool_calls=[ToolCall(id="c1", name="weather", arguments="{}")],
        reasoning_blocks=[ReasoningBlock(signature=stored, provider="gemini")],
        model="gemini:gemini-3-pro-preview",
    )
    result = BaseMessage(role="tool", tool_reses=[ToolReturn(call_id="c1", name="weather", result="sunny")])
    chat.generate(TextMessage(content="Weather?"), intermediate_msgs=[reply, result])
    assert _signature_sent(recorder.bodies[0]) == EVERY_BASE64_CHARACTER


def test_a_signature_that_is_not_base64_is_refused_naming_the_message() -> None:
    """Regression: a bare `binascii.Error` escaped from the request pipeline."""
    reply = AssistantTextMessage(
        content="Checking.",
        reasoning_blocks=[ReasoningBlock(signature="not*base64!", provider="gemini")],
        model="gemini:gemini-2.5-flash",
        msg_id="broken",
    )
    with pytest.raises(InvalidConversationError, match=r"messages\[1\]: the Gemini thought signature is not base64"):
        GeminiChat().construct_request_params(TextMessage(content="And?"), [TextMessage(content="Hi"), reply])
