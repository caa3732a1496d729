"""Every MCP content type maps to the `ToolReturn` the LLM reads, with the restored part types."""

from __future__ import annotations

import base64

import pytest
from mcp import types
from pydantic import AnyUrl

from tfrobot.drive.mcp import tool_return
from tfrobot.schema.message import (
    AudioUserMsgPart,
    FileUserMsgPart,
    ImageUserMsgPart,
    TextUserMsgPart,
    VideoUserMsgPart,
)

PNG = b"\x89PNG\r\n\x1a\nfake"
URI = AnyUrl("file:///srv/report.pdf")


def result(
    *content: types.ContentBlock, structured: dict[str, object] | None = None, error: bool = False
) -> types.CallToolResult:
    return types.CallToolResult(content=list(content), structuredContent=structured, isError=error)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def mapped(res: types.CallToolResult) -> tuple[str, list[object], bool]:
    out = tool_return(res, call_id="c1", name="t")
    return out.result, list(out.attachments), out.is_error


def test_text_blocks_are_the_result() -> None:
    two = result(types.TextContent(type="text", text="one"), types.TextContent(type="text", text="two"))
    assert mapped(two) == ("one\n\ntwo", [], False)


def test_images_and_audio_become_media_parts_with_their_bytes() -> None:
    text, parts, _ = mapped(
        result(
            types.ImageContent(type="image", data=b64(PNG), mimeType="image/png"),
            types.AudioContent(type="audio", data=b64(b"RIFF"), mimeType="audio/wav"),
        )
    )
    assert text == ""
    image, audio = parts
    assert type(image) is ImageUserMsgPart
    assert (image.data, image.media_type) == (PNG, "image/png")
    assert type(audio) is AudioUserMsgPart
    assert (audio.data, audio.media_type) == (b"RIFF", "audio/wav")


def test_embedded_resources_text_inline_and_blobs_by_media_type() -> None:
    text_res = types.TextResourceContents(uri=AnyUrl("file:///srv/notes.md"), text="# Notes", mimeType="text/markdown")
    blobs = [
        types.BlobResourceContents(uri=URI, blob=b64(b"%PDF-1.7"), mimeType="application/pdf"),
        types.BlobResourceContents(uri=AnyUrl("file:///srv/clip.mp4"), blob=b64(b"mp4"), mimeType="video/mp4"),
        types.BlobResourceContents(uri=AnyUrl("file:///srv/pic"), blob=b64(PNG), mimeType="image/png"),
    ]
    text, parts, _ = mapped(
        result(
            types.EmbeddedResource(type="resource", resource=text_res),
            *(types.EmbeddedResource(type="resource", resource=b) for b in blobs),
        )
    )
    assert text == "resource file:///srv/notes.md:\n# Notes"
    assert [type(p) for p in parts] == [FileUserMsgPart, VideoUserMsgPart, ImageUserMsgPart]
    pdf = parts[0]
    assert isinstance(pdf, FileUserMsgPart)
    assert (pdf.data, pdf.media_type, pdf.filename) == (b"%PDF-1.7", "application/pdf", "report.pdf")
    assert "resource file:///srv/report.pdf (application/pdf, 8 bytes)" in pdf.detail


def test_resource_links_are_named_not_fetched() -> None:
    link = types.ResourceLink(type="resource_link", name="report", uri=URI, description="the Q3 report")
    assert mapped(result(link)) == ("resource link: report <file:///srv/report.pdf> — the Q3 report", [], False)


def test_structured_content_is_the_result_unless_a_text_block_says_it() -> None:
    data = {"count": 3, "mean": 2.0}
    assert mapped(result(structured=data)) == ('{"count": 3, "mean": 2.0}', [], False)
    same = result(types.TextContent(type="text", text='{"mean": 2.0, "count": 3}'), structured=data)
    assert mapped(same) == ('{"mean": 2.0, "count": 3}', [], False)
    wrapped = result(types.TextContent(type="text", text="learned owl"), structured={"result": "learned owl"})
    assert mapped(wrapped) == ("learned owl", [], False)  # FastMCP's wrapping of a non-object return
    summary = result(types.TextContent(type="text", text="3 numbers"), structured=data)
    text, parts, _ = mapped(summary)
    assert text == "3 numbers"
    assert parts == [TextUserMsgPart(text='structured content: {"count": 3, "mean": 2.0}')]


def test_errors_keep_their_text_and_say_so_without_one() -> None:
    assert mapped(result(types.TextContent(type="text", text="disk full"), error=True)) == ("disk full", [], True)
    assert mapped(result(error=True)) == ("the tool reported an error without a message", [], True)


def test_data_that_is_not_base64_is_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match="an image whose data is not base64"):
        tool_return(result(types.ImageContent(type="image", data="***", mimeType="image/png")), call_id="c", name="t")
