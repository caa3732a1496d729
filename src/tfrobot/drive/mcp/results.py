"""An MCP `CallToolResult` as a `ToolReturn`: text for the LLM, media as attachments, nothing dropped.

| MCP content                          | becomes                                                        |
|--------------------------------------|----------------------------------------------------------------|
| `text`                               | the result text (blocks joined by a blank line)                |
| `image` / `audio`                    | an `ImageUserMsgPart` / `AudioUserMsgPart` with the bytes      |
| `resource` with text                 | text: `resource <uri>:` and the resource's text                |
| `resource` with a blob               | a media part chosen by its MIME type (image, audio, video, file)|
| `resource_link`                      | text: `resource link: <name> <uri>` (never fetched)            |
| `structuredContent`                  | the result (JSON) without text; a text part beside other text |
| `isError: true`                      | `is_error=True`, with the same text and attachments            |
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import assert_never

from mcp import types

from tfrobot.schema.message import (
    AudioUserMsgPart,
    FileUserMsgPart,
    ImageUserMsgPart,
    MsgPart,
    TextUserMsgPart,
    ToolReturn,
    VideoUserMsgPart,
)

_BY_KIND: dict[str, type[ImageUserMsgPart | AudioUserMsgPart | VideoUserMsgPart]] = {
    "image": ImageUserMsgPart,
    "audio": AudioUserMsgPart,
    "video": VideoUserMsgPart,
}


def _decode(data: str, what: str) -> bytes:
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"the MCP server sent {what} whose data is not base64 ({exc})") from None


def _media(data: bytes, media_type: str, detail: str, uri: str | None = None) -> MsgPart:
    kind = media_type.split("/", 1)[0]
    part_type = _BY_KIND.get(kind)
    if part_type is not None:
        return part_type(data=data, media_type=media_type, detail=detail)
    filename = uri.rstrip("/").rsplit("/", 1)[-1] if uri else None
    return FileUserMsgPart(data=data, media_type=media_type, detail=detail, filename=filename or None)


def _block(block: types.ContentBlock, texts: list[str], attachments: list[MsgPart]) -> None:
    """Add one content block to the result's texts or attachments."""
    if isinstance(block, types.TextContent):
        texts.append(block.text)
    elif isinstance(block, types.ImageContent):
        data = _decode(block.data, "an image")
        attachments.append(ImageUserMsgPart(data=data, media_type=block.mimeType, detail=f"image ({block.mimeType})"))
    elif isinstance(block, types.AudioContent):
        data = _decode(block.data, "audio")
        attachments.append(AudioUserMsgPart(data=data, media_type=block.mimeType, detail=f"audio ({block.mimeType})"))
    elif isinstance(block, types.EmbeddedResource):
        res = block.resource
        uri = str(res.uri)
        if isinstance(res, types.TextResourceContents):
            texts.append(f"resource {uri}:\n{res.text}")
        else:
            media_type = res.mimeType or "application/octet-stream"
            data = _decode(res.blob, f"resource {uri}")
            attachments.append(_media(data, media_type, f"resource {uri} ({media_type}, {len(data)} bytes)", uri))
    elif isinstance(block, types.ResourceLink):
        about = f" — {block.description}" if block.description else ""
        texts.append(f"resource link: {block.name} <{block.uri}>{about}")
    else:
        assert_never(block)


def tool_return(result: types.CallToolResult, *, call_id: str, name: str) -> ToolReturn:
    """The `ToolReturn` of one MCP tool result of the call `call_id` to the tool `name`."""
    texts: list[str] = []
    attachments: list[MsgPart] = []
    for block in result.content:
        _block(block, texts, attachments)
    text = "\n\n".join(texts)
    structured = result.structuredContent
    if structured is not None and not any(_says(t, structured) for t in texts):
        shown = json.dumps(structured, ensure_ascii=False)
        if texts or attachments:
            attachments = [*attachments, TextUserMsgPart(text=f"structured content: {shown}")]
        else:
            text = shown
    if not text and not attachments and result.isError:
        text = "the tool reported an error without a message"
    return ToolReturn(call_id=call_id, name=name, result=text, is_error=result.isError, attachments=attachments)


def _says(text: str, structured: dict[str, object]) -> bool:
    """Whether a text block carries the structured content: its JSON, or — FastMCP's wrapping of a
    non-object return — the value of its only key `result`."""
    try:
        parsed: object = json.loads(text)
    except ValueError:
        parsed = text
    return parsed == structured or (set(structured) == {"result"} and parsed == structured["result"])
