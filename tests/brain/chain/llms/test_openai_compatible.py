"""ZhipuChat and DoubaoChat: OpenAI-shaped vendors through their own SDKs (`zai-sdk`, Ark) on a mock transport."""

from __future__ import annotations

import copy
import importlib
import json
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
    image,
    sse,
)
from tfrobot.brain.chain.llms import (
    AuthenticationError,
    DoubaoChat,
    MessageAssembler,
    ModalityDegradedWarning,
    OpenAIChat,
    ZhipuChat,
)
from tfrobot.schema.message import AssistantTextMessage, ImageMessage, TextMessage

CASES: dict[str, tuple[type[OpenAIChat], str, str]] = {
    "zhipu": (ZhipuChat, "zai", "/api/paas/v4/chat/completions"),
    "doubao": (DoubaoChat, "volcenginesdkarkruntime", "/api/v3/chat/completions"),
}


def completion(model: str) -> dict[str, Any]:
    return {
        "id": "cmpl-1",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "Checking.",
                    "reasoning_content": "One call.",
                    "tool_calls": [
                        {
                            "id": "call_z",
                            "type": "function",
                            "function": {"name": "weather", "arguments": '{"city":"Xian"}'},
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 30, "completion_tokens": 9, "total_tokens": 39},
    }


def stream_body(model: str) -> str:
    base = {"id": "cmpl-1", "object": "chat.completion.chunk", "created": 1_700_000_000, "model": model}

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}

    call = {
        "index": 0,
        "id": "call_z",
        "type": "function",
        "function": {"name": "weather", "arguments": '{"city":"Xian"}'},
    }
    return sse(
        [
            (None, chunk({"role": "assistant", "reasoning_content": "One call."})),
            (None, chunk({"content": "Checking."})),
            (None, chunk({"tool_calls": [call]})),
            (None, chunk({}, "tool_calls", usage=completion(model)["usage"])),
            (None, "[DONE]"),
        ]
    )


def llm(name: str, recorder: Recorder, respond: Any, **settings: Any) -> OpenAIChat:
    cls, module, _ = CASES[name]
    importlib.import_module(module)  # the vendor SDK must be installed (dev extra)
    transport = httpx.MockTransport(handler(recorder, respond, httpx))
    return cls(api_key="key.secret", max_retries=0, http_client=httpx.Client(transport=transport), **settings)


@pytest.mark.parametrize("name", CASES)
def test_golden_payload_every_message_kind(name: str, media_root: Path) -> None:
    cls = CASES[name][0]
    turn, chain = current_turn()
    with pytest.warns(ModalityDegradedWarning) as warned:
        payload = cls(media_roots=(media_root,)).construct_request_params(
            turn, conversation(media_root), TOOLS, intermediate_msgs=chain
        )
    assert {str(w.message).split(" cannot take a ")[1].split(" ")[0] for w in warned} == {"audio", "file"}
    check_golden(name, payload)
    assert all("name" not in m for m in payload["messages"] if m["role"] == "user")


@pytest.mark.parametrize("name", CASES)
def test_own_reasoning_is_replayed_in_the_tool_loop_only(name: str) -> None:
    cls = CASES[name][0]
    turn, chain = current_turn()
    chain[0] = chain[0].model_copy(update={"model": f"{name}:m1"})
    payload = cls().construct_request_params(turn, intermediate_msgs=chain)
    assistant = next(m for m in payload["messages"] if m["role"] == "assistant")
    assert assistant["reasoning_content"] == "Berlin needs one more call."
    other = "doubao" if name == "zhipu" else "zhipu"
    chain[0] = chain[0].model_copy(update={"model": f"{other}:m1"})
    payload = cls().construct_request_params(turn, intermediate_msgs=chain)
    assert "reasoning_content" not in next(m for m in payload["messages"] if m["role"] == "assistant")


@pytest.mark.parametrize("name", CASES)
def test_generate_through_the_vendor_sdk(name: str) -> None:
    recorder = Recorder()
    chat = llm(name, recorder, lambda body: (200, completion("m1"), {}), temperature=0.5, max_tokens=64)
    turn, chain = current_turn()
    expected = chat.construct_request_params(turn, [], TOOLS, intermediate_msgs=chain)
    reply = chat.generate(turn, [], TOOLS, intermediate_msgs=chain)
    assert recorder.paths == [CASES[name][2]]
    sent = recorder.bodies[0]
    assert sent["messages"] == json.loads(json.dumps(expected["messages"]))
    assert sent["max_tokens"] == 64
    assert sent["tools"] == expected["tools"]
    assert type(reply) is AssistantTextMessage
    assert (reply.content, reply.reasoning_content, reply.finish_reason) == ("Checking.", "One call.", "tool_calls")
    assert [(c.id, c.name) for c in reply.tool_calls or ()] == [("call_z", "weather")]
    assert reply.model == f"{name}:m1"
    assert reply.usage is not None
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (30, 9)


@pytest.mark.parametrize("name", CASES)
def test_stream_assembles_to_the_message_generate_returns(name: str) -> None:
    plain = llm(name, Recorder(), lambda body: (200, completion("m1"), {})).generate(TextMessage(content="hi"))
    recorder = Recorder()
    chat = llm(name, recorder, lambda body: (200, stream_body("m1"), {}))
    assembler = MessageAssembler()
    for delta in chat.stream(TextMessage(content="hi")):
        assembler.add(delta)
    assert recorder.bodies[0]["stream"] is True
    skip = {"msg_id", "create_ts"}
    assert assembler.message().model_dump(exclude=skip) == plain.model_dump(exclude=skip)


@pytest.mark.parametrize("name", CASES)
def test_auth_error_becomes_our_type(name: str) -> None:
    body = {"error": {"code": "1000", "message": "Authentication failed"}}
    with pytest.raises(AuthenticationError) as caught:
        llm(name, Recorder(), lambda _: (401, body, {})).generate(TextMessage(content="hi"))
    assert type(caught.value) is AuthenticationError
    assert caught.value.status == 401


@pytest.mark.parametrize("variable", ["ZAI_API_KEY", "ZHIPUAI_API_KEY"])
def test_zhipu_takes_its_key_from_either_variable(variable: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: after the move to `zai-sdk`, a key in ZHIPUAI_API_KEY (the old SDK's variable, in users'
    environments) was a missing key; `zai-sdk` itself reads ZAI_API_KEY only."""
    for name in ZhipuChat.api_key_env:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, "key.secret")
    recorder = Recorder()
    transport = httpx.MockTransport(handler(recorder, lambda body: (200, completion("m1"), {}), httpx))
    chat = ZhipuChat(max_retries=0, http_client=httpx.Client(transport=transport))
    assert chat.readiness() is None
    turn, chain = current_turn()
    chat.generate(turn, [], TOOLS, intermediate_msgs=chain)
    assert recorder.headers[0]["authorization"].startswith("Bearer ")


@pytest.mark.parametrize("stream", [False, True], ids=["generate", "stream"])
def test_zhipu_sends_image_data_urls_without_changing_the_request(stream: bool) -> None:
    """Regression (R18): `zai-sdk` strips `data:image/...;base64,` off the image URLs of the messages it is
    given, in place, so a request sent was changed (and with it every later step's request of a
    `RequestBuilder`, which share the history's messages). The SDK gets copies: the request stays as built,
    and the wire carries what the SDK makes of it (the bare base64)."""
    recorder = Recorder()
    chat = llm("zhipu", recorder, lambda body: (200, stream_body("m1") if stream else completion("m1"), {}))
    request = chat.construct_request_params(ImageMessage(content=image("a cat")), [TextMessage(content="Hi.")])
    kept = copy.deepcopy(request)
    url = next(p for p in request["messages"][-1]["content"] if p["type"] == "image_url")["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    if stream:
        list(chat.stream_request(request, None))
    else:
        chat.generate_request(request, None)
    assert request == kept
    sent = next(p for p in recorder.bodies[0]["messages"][-1]["content"] if p["type"] == "image_url")
    assert sent["image_url"]["url"] == url.split("base64,")[-1]
