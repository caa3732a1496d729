"""Modality x provider x position: native, degraded to `detail` with a warning, or a clear error.

The expected table is written out here, not read from the adapters, so a capability change shows up
as a failing test that has to be updated on purpose.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from tests.brain.chain.llms.conftest import PDF, PNG, WAV, to_json
from tfrobot.brain.chain.llms import (
    AnthropicChat,
    ChatLLM,
    DoubaoChat,
    GeminiChat,
    ModalityDegradedWarning,
    OpenAIChat,
    OpenAIResponsesChat,
    UnsupportedContentError,
    ZhipuChat,
)
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

MP4 = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"
MEDIA: dict[str, tuple[type[Any], bytes, str]] = {
    "image": (ImageUserMsgPart, PNG, "image/png"),
    "audio": (AudioUserMsgPart, WAV, "audio/wav"),
    "video": (VideoUserMsgPart, MP4, "video/mp4"),
    "file": (FileUserMsgPart, PDF, "application/pdf"),
}
ALL = {"image", "audio", "video", "file"}
NATIVE: dict[type[ChatLLM], set[str]] = {
    OpenAIChat: {"image", "audio", "file"},
    OpenAIResponsesChat: {"image", "file"},
    AnthropicChat: {"image", "file"},
    GeminiChat: ALL,
    ZhipuChat: {"image", "video"},
    DoubaoChat: {"image", "video"},
}
"""Inline media each provider takes natively, in a user turn and as a tool/console result alike."""

CASES = [(cls, kind, pos) for cls in NATIVE for kind in sorted(ALL) for pos in ("user", "tool_result", "console")]


def payload(cls: type[ChatLLM], kind: str, position: str, detail: str) -> str:
    part_cls, data, media_type = MEDIA[kind]
    part = part_cls(data=data, media_type=media_type, detail=detail)
    turn = TextMessage(content="go", create_ts=1)
    if position == "user":
        turn = MultiPartMessage(content=[TextUserMsgPart(text="see"), part], create_ts=1)
        chain: list[BaseMessage] = []
    elif position == "tool_result":
        chain = [
            AssistantTextMessage(tool_calls=[ToolCall(id="c1", name="render")], create_ts=2),
            BaseMessage(
                role="tool", tool_reses=[ToolReturn(call_id="c1", result="ok", attachments=[part])], create_ts=3
            ),
        ]
    else:
        from tfrobot.schema.message import ConsoleResult

        chain = [
            BaseMessage(role="console", console_reses=[ConsoleResult(result="ok", attachments=[part])], create_ts=2)
        ]
    return json.dumps(to_json(cls().construct_request_params(turn, intermediate_msgs=chain)))


@pytest.mark.parametrize(("cls", "kind", "position"), CASES, ids=lambda v: getattr(v, "__name__", v))
def test_each_modality_is_native_degraded_or_refused(cls: type[ChatLLM], kind: str, position: str) -> None:
    encoded = base64.b64encode(MEDIA[kind][1]).decode()
    if kind in NATIVE[cls]:
        text = payload(cls, kind, position, detail="what it shows")
        assert encoded in text
        assert f"[{kind}: what it shows]" not in text
        return
    with pytest.warns(ModalityDegradedWarning, match=f"cannot take a {kind} part"):
        text = payload(cls, kind, position, detail="what it shows")
    assert f"[{kind}: what it shows]" in text
    assert encoded not in text
    with pytest.raises(UnsupportedContentError, match=f"cannot take a {kind} part.*Fix: set `detail`"):
        payload(cls, kind, position, detail="")


def test_media_paths_outside_the_media_roots_are_refused(tmp_path: Any) -> None:
    (tmp_path / "secret.png").write_bytes(PNG)
    turn = MultiPartMessage(content=[ImageUserMsgPart(path=tmp_path / "secret.png", detail="x")])
    with pytest.raises(UnsupportedContentError, match=r"outside the media roots \(none configured\).*media_roots"):
        OpenAIChat().construct_request_params(turn)
    text = json.dumps(OpenAIChat(media_roots=(tmp_path,)).construct_request_params(turn))
    assert base64.b64encode(PNG).decode() in text


def test_data_urls_are_decoded_to_bytes_for_providers_that_want_bytes() -> None:
    url = "data:image/png;base64," + base64.b64encode(PNG).decode()
    chat = AnthropicChat(prompt_cache={"enabled": False})  # (a breakpoint would join the block)
    payload = chat.construct_request_params(MultiPartMessage(content=[ImageUserMsgPart(url=url)]))
    block = payload["messages"][0]["content"][0]
    assert block == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": url.split(",")[1]},
    }


URL_NATIVE: dict[type[ChatLLM], set[str]] = {
    OpenAIChat: {"image"},
    OpenAIResponsesChat: {"image", "file"},
    AnthropicChat: {"image", "file"},
    GeminiChat: ALL,
    ZhipuChat: {"image", "video"},
    DoubaoChat: {"image", "video"},
}
"""Media each provider takes by http(s) URL (it fetches them itself); the rest degrade."""
URLS = {
    "image": "https://example.com/m.png",
    "audio": "https://example.com/m.wav",
    "video": "https://example.com/m.mp4",
    "file": "https://example.com/m.pdf",
}


@pytest.mark.parametrize(
    ("cls", "kind"), [(c, k) for c in URL_NATIVE for k in sorted(ALL)], ids=lambda v: getattr(v, "__name__", v)
)
def test_media_by_url_is_sent_as_url_or_degraded(cls: type[ChatLLM], kind: str) -> None:
    part = MEDIA[kind][0](url=URLS[kind], detail="what it shows")
    turn = MultiPartMessage(content=[TextUserMsgPart(text="see"), part])
    if kind in URL_NATIVE[cls]:
        text = json.dumps(cls().construct_request_params(turn))
        assert URLS[kind] in text
        return
    with pytest.warns(ModalityDegradedWarning):
        text = json.dumps(cls().construct_request_params(turn))
    assert URLS[kind] not in text
    assert f"[{kind}: what it shows]" in text
