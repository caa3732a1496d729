"""A fixed conversation with every message kind, and HTTP recorders that stand in for the network.

Every provider test drives the provider's official SDK with an HTTP client whose transport is a
handler (`MockTransport`): the SDK serializes our request, the handler records it and answers with a
body in the provider's documented format, and the SDK parses that answer. Nothing of ours is mocked.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tfrobot.brain.chain.llms import ToolDefinition
from tfrobot.schema.message import (
    AssistantTextMessage,
    AttachmentMessage,
    AudioMessage,
    AudioUserMsgPart,
    BaseMessage,
    BaseUser,
    ConsoleResult,
    ContactMessage,
    FileUserMsgPart,
    FunctionReturn,
    HistoryMessage,
    ImageMessage,
    ImageUserMsgPart,
    MultiPartMessage,
    ReasoningBlock,
    TextMessage,
    TextUserMsgPart,
    ToolCall,
    ToolReturn,
    UrlMessage,
    VideoMessage,
    VideoUserMsgPart,
)

GOLDEN = Path(__file__).parent / "golden"
UPDATE_GOLDEN = os.environ.get("TFROBOT_UPDATE_GOLDEN") == "1"
"""Set to 1 to rewrite the golden files from the current code (then review the diff)."""

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgAAIAAAUAAXpeqz8AAAAASUVORK5CYII=")
WAV = (
    b"RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00@\x1f\x00\x00"
    b"\x80>\x00\x00\x02\x00\x10\x00data\x00\x00\x00\x00"
)
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"

TOOLS = [
    ToolDefinition(
        name="weather",
        description="Current weather of a city.",
        parameters={
            "type": "object",
            "x-namespace": "drive.weather",
            "properties": {
                "city": {"type": "string", "description": "City name", "x-ref": "$.city"},
                "x-id": {"type": "string", "x-default": "1"},
            },
            "required": ["city"],
            "$defs": {"Unit": {"type": "string", "enum": ["C", "F"], "x-fetch": "units"}},
        },
    )
]


def image(detail: str = "a one-pixel image") -> ImageUserMsgPart:
    return ImageUserMsgPart(data=PNG, media_type="image/png", detail=detail)


def recalled_turn() -> TextMessage:
    """Turn 1 as memory recalls it: the user's question with its whole trace (pre and post records)."""
    turn = TextMessage(
        content="What's the weather in Paris and Tokyo?",
        creator=BaseUser(uid="u1", name="Ann"),
        create_ts=1_000,
        msg_id="turn1",
    )
    before = BaseMessage(
        role="console",
        console_reses=[ConsoleResult(result="session restored", script="restore()")],
        create_ts=999,
        msg_id="t1-console-pre",
    )
    thinking = AssistantTextMessage(
        content="Checking both cities.",
        reasoning_content="The user wants two cities; call the tool twice.",
        reasoning_blocks=[
            ReasoningBlock(text="Two cities: two calls.", signature="c2lnLWFudGhyb3BpYw==", provider="anthropic"),
            ReasoningBlock(type="redacted_thinking", data="b3BhcXVl", provider="anthropic"),
            ReasoningBlock(text="", signature="Z2VtaW5pLXNpZw==", provider="gemini"),
        ],
        tool_calls=[
            ToolCall(id="call_paris", name="weather", arguments='{"city": "Paris"}'),
            ToolCall(id="call:tokyo/2", name="weather", arguments='{"city": "Tokyo"}'),
        ],
        model="anthropic:claude-sonnet-4-6",
        create_ts=1_001,
        msg_id="t1-think",
    )
    results = BaseMessage(
        role="tool",
        tool_reses=[
            ToolReturn(call_id="call_paris", name="weather", result="18C, sunny", attachments=[image("a weather map")]),
            ToolReturn(call_id="call:tokyo/2", name="weather", result="timeout", is_error=True),
        ],
        create_ts=1_002,
        msg_id="t1-tools",
    )
    answer = AssistantTextMessage(
        content="Paris is sunny at 18C; Tokyo did not answer. Let me count the cities.",
        tfl_scripts=["print(len(cities))"],
        model="anthropic:claude-sonnet-4-6",
        create_ts=1_003,
        msg_id="t1-answer",
    )
    console = BaseMessage(
        role="console",
        console_reses=[ConsoleResult(result="2", summary_result="2", attachments=[image("a chart")])],
        create_ts=1_004,
        msg_id="t1-console",
    )
    for record in (before, thinking, results, answer, console):
        turn.intermediate_trace.append(record)
    return turn


def conversation(media_root: Path) -> list[BaseMessage]:
    """The history before the current input: every user kind, a recalled trace, system at both ends."""
    (media_root / "photo.png").write_bytes(PNG)
    return [
        BaseMessage(role="system", content="You are TFRobot.", msg_id="sys1", create_ts=900),
        recalled_turn(),
        ImageMessage(content=ImageUserMsgPart(url="https://example.com/cat.png", detail="a cat"), msg_id="img"),
        AudioMessage(content=AudioUserMsgPart(data=WAV, media_type="audio/wav", detail="a voice note"), msg_id="aud"),
        VideoMessage(content=VideoUserMsgPart(url="https://example.com/clip.mp4", detail="a clip"), msg_id="vid"),
        AttachmentMessage(
            content=FileUserMsgPart(data=PDF, media_type="application/pdf", filename="report.pdf", detail="a report"),
            msg_id="pdf",
        ),
        ContactMessage(content=BaseUser(uid="u2", name="Bob"), msg_id="contact"),
        UrlMessage(content="https://example.com/post", title="A post", description="About weather", msg_id="url"),
        HistoryMessage(content=[TextMessage(content="old question", msg_id="old")], msg_id="hist"),
        MultiPartMessage(
            content=[
                TextUserMsgPart(text="look at this"),
                ImageUserMsgPart(path=media_root / "photo.png", detail="a photo"),
            ],
            msg_id="multi",
        ),
        AssistantTextMessage(content="Noted.", msg_id="ack", model="openai:gpt-4o"),
        BaseMessage(role="system", content="Answer in French from now on.", msg_id="sys2"),
        BaseMessage(role="function", function_res=FunctionReturn(name="clock", result="12:00"), msg_id="fn"),
    ]


def current_turn() -> tuple[TextMessage, list[BaseMessage]]:
    """The current input and the running chain's messages (a reasoning model's tool call and its result)."""
    turn = TextMessage(content="And in Berlin?", creator=BaseUser(uid="u1", name="Ann"), create_ts=5_000, msg_id="t2")
    call = AssistantTextMessage(
        reasoning_content="Berlin needs one more call.",
        tool_calls=[ToolCall(id="call_berlin", name="weather", arguments='{"city": "Berlin"}')],
        model="zhipu:glm-4.6",
        create_ts=5_001,
        msg_id="t2-call",
    )
    result = BaseMessage(
        role="tool",
        tool_reses=[ToolReturn(call_id="call_berlin", name="weather", result="12C")],
        create_ts=5_002,
        msg_id="t2-result",
    )
    return turn, [call, result]


def to_json(value: Any) -> Any:
    """A request payload as JSON data: bytes (Gemini inline data, signatures) in base64."""
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_json(v) for v in value]
    if isinstance(value, bytes):
        return {"__bytes__": base64.b64encode(value).decode()}
    return value


def check_golden(name: str, payload: dict[str, Any]) -> None:
    """Compare `payload` with `golden/<name>.json` (rewritten when TFROBOT_UPDATE_GOLDEN=1)."""
    path = GOLDEN / f"{name}.json"
    data = to_json(payload)
    if UPDATE_GOLDEN:
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    assert path.exists(), f"missing golden file {path}; run with TFROBOT_UPDATE_GOLDEN=1 and review it"
    assert data == json.loads(path.read_text()), f"payload differs from {path}"


@dataclass
class Recorder:
    """What the fake server saw: decoded JSON bodies, paths and headers of every request."""

    bodies: list[dict[str, Any]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)


def handler(
    recorder: Recorder, respond: Callable[[dict[str, Any]], tuple[int, Any, dict[str, str]]], httpx_module: Any
) -> Callable[[Any], Any]:
    """A MockTransport handler: record the request, answer with `respond(body)` -> (status, body, headers).

    A `str` body is sent as a server-sent-event stream; anything else as JSON."""

    def handle(request: Any) -> Any:
        body = json.loads(request.content or b"{}")
        recorder.bodies.append(body)
        recorder.paths.append(request.url.path)
        recorder.headers.append(dict(request.headers))
        status, answer, headers = respond(body)
        if isinstance(answer, str):
            return httpx_module.Response(
                status, content=answer.encode(), headers={"content-type": "text/event-stream", **headers}
            )
        return httpx_module.Response(status, json=answer, headers=headers)

    return handle


def sse(events: list[tuple[str | None, dict[str, Any] | str]]) -> str:
    """A server-sent-event body from (event name or None, data) pairs."""
    chunks = []
    for name, data in events:
        text = data if isinstance(data, str) else json.dumps(data)
        chunks.append((f"event: {name}\n" if name else "") + f"data: {text}\n\n")
    return "".join(chunks)


@pytest.fixture
def media_root(tmp_path: Path) -> Path:
    return tmp_path


def x_keywords(schema: Any, path: str = "$") -> list[str]:
    """Paths of every `x-*` schema keyword left in `schema` (property *names* starting with x- are fine)."""
    found: list[str] = []
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key.startswith("x-"):
                found.append(f"{path}.{key}")
            if key in ("properties", "$defs", "definitions", "patternProperties") and isinstance(value, dict):
                for name, sub in value.items():
                    found.extend(x_keywords(sub, f"{path}.{key}.{name}"))
            else:
                found.extend(x_keywords(value, f"{path}.{key}"))
    elif isinstance(schema, list):
        for i, item in enumerate(schema):
            found.extend(x_keywords(item, f"{path}[{i}]"))
    return found


# ------------------------------------------------------------------------------------------------ recordings
RECORDINGS = Path(__file__).parent / "recordings"
"""Real traffic of the providers' APIs (recordings/README.md says where each file came from)."""

HTTP_MODULES = {"anthropic": "httpx2", "openai": "httpx2", "openai-responses": "httpx2", "deepseek": "httpx2"}
"""The HTTP client module of each provider's SDK: httpx2 for openai/anthropic, httpx for the others."""


def recording(name: str) -> list[dict[str, Any]]:
    """The interactions of `recordings/<name>.json`: each a recorded `request` body (or None), the response's
    `status` and its body, `json` or `sse` (the event stream's text as it came)."""
    interactions: list[dict[str, Any]] = json.loads((RECORDINGS / f"{name}.json").read_text())["interactions"]
    return interactions


def recording_names(*, replies: bool = True) -> list[str]:
    """Every recording, as `<provider>/<name>`; with `replies`, only those that answer with a reply (the others
    record an error answer, which each adapter's error tests replay)."""
    names = sorted(str(p.relative_to(RECORDINGS).with_suffix("")) for p in RECORDINGS.glob("*/*.json"))
    return [name for name in names if recording(name)[0]["status"] == 200] if replies else names


def replaying(interactions: list[dict[str, Any]]) -> Callable[[dict[str, Any]], tuple[int, Any, dict[str, str]]]:
    """A `respond` for `handler`: the recorded responses in order, one per request (an extra request fails)."""
    queue = iter(interactions)

    def respond(body: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        answer = next(queue)
        return answer["status"], answer["sse"] if "sse" in answer else answer["json"], {}

    return respond


def replay_llm(provider: str, recorder: Recorder, interactions: list[dict[str, Any]], **settings: Any) -> Any:
    """The provider's `ChatLLM` on its official SDK, answered by the recorded responses (`deepseek` is
    `OpenAIChat` on DeepSeek's endpoint)."""
    import importlib

    from tfrobot.brain.chain.llms import (
        AnthropicChat,
        DoubaoChat,
        GeminiChat,
        OpenAIChat,
        OpenAIResponsesChat,
        ZhipuChat,
    )

    module = importlib.import_module(HTTP_MODULES.get(provider, "httpx"))
    client = module.Client(transport=module.MockTransport(handler(recorder, replaying(interactions), module)))
    if provider == "gemini":
        return GeminiChat(api_key="g-test", http_client=client, **settings)
    classes = {"anthropic": AnthropicChat, "openai": OpenAIChat, "deepseek": OpenAIChat, "zhipu": ZhipuChat,
               "doubao": DoubaoChat, "openai-responses": OpenAIResponsesChat}  # fmt: skip
    if provider == "deepseek":
        settings.setdefault("base_url", "https://api.deepseek.com")
    return classes[provider](api_key="key.secret", max_retries=0, http_client=client, **settings)
