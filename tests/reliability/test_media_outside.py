"""Content that points outside: local paths are read only under the media roots; URLs are never fetched.

Every provider (every `ChatLLM` subclass, so a new one is covered), every modality, user turns and tool
results. The server opens no connection while building a request with a URL to loopback or a cloud
metadata address: the URL is passed to a provider that fetches it itself, or the part degrades to its
`detail`; our process never reads it (a socket guard fails the test on any connection attempt).
"""

from __future__ import annotations

import json
import os
import socket
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tfrobot.brain.chain.base import Chain
from tfrobot.brain.chain.llms import ChatLLM, ModalityDegradedWarning, OpenAIChat, UnsupportedContentError
from tfrobot.drive import Drive
from tfrobot.schema.message import (
    AssistantTextMessage,
    AudioUserMsgPart,
    BaseMessage,
    FileUserMsgPart,
    ImageUserMsgPart,
    MultiPartMessage,
    TextMessage,
    TextUserMsgPart,
    ToolCall,
    ToolReturn,
    VideoUserMsgPart,
)

PARTS = {"image": ImageUserMsgPart, "audio": AudioUserMsgPart, "video": VideoUserMsgPart, "file": FileUserMsgPart}
SECRET = b"root:x:0:0:TOP-SECRET-LINE:/root:/bin/bash\n"
INTERNAL_URLS = [
    "http://127.0.0.1:5432/",
    "http://localhost/admin",
    "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://[::1]:8000/api/robots",
    "http://100.100.100.200/latest/meta-data/",
    "file:///etc/passwd",
]


def _providers() -> list[type[ChatLLM]]:
    found: list[type[ChatLLM]] = []
    todo = list(ChatLLM.__subclasses__())
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        found.append(cls)
    return sorted(set(found), key=lambda c: c.__name__)


PROVIDERS = _providers()


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """Fails any outgoing connection or name lookup made while building a request."""
    attempts: list[Any] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        attempts.append(args)
        raise AssertionError(f"the process tried to reach the network: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    yield attempts
    assert attempts == []


@pytest.fixture(autouse=True)
def _degrading_is_expected() -> Iterator[None]:
    """A part a provider cannot take natively degrades with a warning; here that is an expected outcome."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModalityDegradedWarning)
        yield


def _request(llm: ChatLLM, part: Any, position: str) -> str:
    if position == "user":
        turn: BaseMessage = MultiPartMessage(content=[TextUserMsgPart(text="see"), part])
        chain: list[BaseMessage] = []
    else:
        turn = TextMessage(content="go")
        chain = [
            AssistantTextMessage(tool_calls=[ToolCall(id="c1", name="render")]),
            BaseMessage(role="tool", tool_reses=[ToolReturn(call_id="c1", result="ok", attachments=[part])]),
        ]
    params = llm.construct_request_params(turn, intermediate_msgs=chain)
    return json.dumps(params, default=repr)


def _outcome(llm: ChatLLM, part: Any, position: str) -> str:
    """The request as JSON text, or `refused: <why>`."""
    try:
        return _request(llm, part, position)
    except UnsupportedContentError as exc:
        return f"refused: {exc}"


@pytest.fixture
def roots(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "media"
    root.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "passwd").write_bytes(SECRET)
    (root / "link").symlink_to(outside / "passwd")
    (root / "dirlink").symlink_to(outside)
    return root, outside


@pytest.mark.parametrize("cls", PROVIDERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("kind", sorted(PARTS))
@pytest.mark.parametrize("position", ["user", "tool_result"])
def test_paths_outside_the_media_roots_are_never_read(
    cls: type[ChatLLM], kind: str, position: str, roots: tuple[Path, Path], no_network: list[Any]
) -> None:
    root, outside = roots
    llm = cls(media_roots=(root,))
    attempts = [
        Path("/etc/passwd"),
        outside / "passwd",
        root / ".." / "outside" / "passwd",
        root / "link",
        root / "dirlink" / "passwd",
        Path("~") / ".." / ".." / "etc" / "passwd",
        Path(os.path.relpath(outside / "passwd")),
    ]
    for path in attempts:
        part = PARTS[kind](path=path, media_type="image/png" if kind == "image" else None, detail="d")
        text = _outcome(llm, part, position)
        assert "TOP-SECRET" not in text
        assert "cm9vdDp4" not in text  # base64 of the secret's start
        if text.startswith("refused:"):
            assert "outside the media roots" in text or "cannot" in text, text
        else:
            # not read at all: degraded to `detail`, or (ScriptedChat) the reference passed on as text
            assert f"[{kind}: d]" in text or '"path"' in text, text[:300]


@pytest.mark.parametrize("cls", PROVIDERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("kind", sorted(PARTS))
@pytest.mark.parametrize("url", INTERNAL_URLS)
def test_urls_are_passed_on_or_degraded_never_fetched(
    cls: type[ChatLLM], kind: str, url: str, no_network: list[Any]
) -> None:
    part = PARTS[kind](url=url, detail="d")
    text = _outcome(cls(), part, "user")
    if text.startswith("refused:"):
        return
    assert (f"[{kind}: d]" in text) or (json.dumps(url)[1:-1].rstrip("/") in text), text[:400]
    assert "root:x:0:0" not in text


async def test_through_the_openai_sdk_only_the_provider_is_contacted() -> None:
    """A whole turn over the SDK (httpx2 MockTransport): one request, to the API; the URL travels as text."""
    hosts: list[str] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        hosts.append(request.url.host)
        body = {
            "id": "r",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-4o",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
        }
        sent = json.loads(request.content)
        assert "169.254.169.254" in json.dumps(sent)
        return httpx2.Response(200, json=body)

    llm = OpenAIChat(
        model="gpt-4o",
        api_key="sk-test",
        max_retries=0,
        async_http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
    )
    turn = MultiPartMessage(
        content=[TextUserMsgPart(text="what is this?"), ImageUserMsgPart(url=INTERNAL_URLS[2], detail="d")]
    )
    answer = await Chain(llm, Drive([]), stream=False).arun(turn)
    assert answer.content == "ok"
    assert hosts == ["api.openai.com"]
