"""Messages of every kind, for the tests of the message layer."""

from __future__ import annotations

import pytest

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

PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489")


def every_message() -> list[BaseMessage]:
    """One message of every class and role, with the fields that are easiest to lose filled in."""
    image = ImageUserMsgPart(data=PNG, media_type="image/png", detail="a one-pixel image")
    assistant = AssistantTextMessage(
        content="calling tools",
        reasoning_content="think",
        reasoning_blocks=[ReasoningBlock(text="think", signature="sig==", provider="anthropic")],
        tool_calls=[ToolCall(id="c1", name="weather", arguments='{"city": "Paris"}')],
        tfl_scripts=["print(1)"],
    )
    tool = BaseMessage(
        role="tool", tool_reses=[ToolReturn(call_id="c1", name="weather", result="18C", attachments=[image])]
    )
    console = BaseMessage(
        role="console", console_reses=[ConsoleResult(result="1", summary_result="1", attachments=[image])]
    )
    text = TextMessage(content="hello", creator=BaseUser(uid="u1", name="Ann"))
    for record in (assistant, tool, console):
        text.intermediate_trace.append(record)
    return [
        text,
        ImageMessage(content=image),
        AudioMessage(content=AudioUserMsgPart(url="https://example.com/a.mp3", detail="a song")),
        VideoMessage(content=VideoUserMsgPart(path="/media/v.mp4")),
        AttachmentMessage(content=FileUserMsgPart(url="https://example.com/x.pdf", filename="x.pdf")),
        ContactMessage(content=BaseUser(uid="u2", name="Bob")),
        UrlMessage(content="https://example.com/post", title="A post"),
        HistoryMessage(content=[TextMessage(content="old"), assistant]),
        MultiPartMessage(content=[TextUserMsgPart(text="look"), image]),
        assistant,
        tool,
        console,
        BaseMessage(role="system", content="be brief"),
        BaseMessage(role="function", function_res=FunctionReturn(name="f", result="r")),
    ]


@pytest.fixture
def messages() -> list[BaseMessage]:
    return every_message()
