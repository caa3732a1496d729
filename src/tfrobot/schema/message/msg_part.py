"""Content parts of multimodal messages: text, image, audio, video and files (PDF and other documents).

A media part points at its bytes in exactly one way (a URL, a local path, or inline `data` with a
`media_type`) and carries a `detail` text: what a provider that cannot take the modality receives
instead, so that nothing is dropped silently (seed: "不支持时走 detail 文本降级").
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal, Self, TypeAlias

from pydantic import AnyUrl, BaseModel, ConfigDict, Field, model_validator

from tfrobot.schema.omission import IS_EMPTY, IS_NONE


class TextUserMsgPart(BaseModel):
    """A run of plain text inside a multipart message."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    type: Literal["text"] = "text"
    text: str = Field(description="The text itself.")


class _MediaPart(BaseModel):
    """Shared shape of every media part; the concrete classes only fix `type`."""

    model_config = ConfigDict(extra="allow", ser_json_bytes="base64", val_json_bytes="base64", defer_build=True)

    url: AnyUrl | None = Field(
        default=None, exclude_if=IS_NONE, description="Where the media can be fetched (http(s), data:, s3:, …)."
    )
    path: Path | None = Field(
        default=None, exclude_if=IS_NONE, description="A local file; only read from configured media roots."
    )
    data: bytes | None = Field(
        default=None, exclude_if=IS_NONE, description="Inline bytes (base64 in JSON); needs `media_type`."
    )
    media_type: str | None = Field(
        default=None, exclude_if=IS_NONE, description="MIME type, e.g. image/png; inferred when absent."
    )
    detail: str = Field(
        default="",
        exclude_if=IS_EMPTY,
        description="Text sent instead of the media to a provider that cannot take this modality.",
    )

    @model_validator(mode="after")
    def _one_source(self) -> Self:
        given = [name for name in ("url", "path", "data") if getattr(self, name) is not None]
        kind = getattr(self, "type", "media")
        if len(given) != 1:
            got = ", ".join(given) if given else "none"
            raise ValueError(
                f"a {kind} part needs exactly one source: `url`, `path` or `data` (with `media_type`); got {got}"
            )
        if self.data is not None and not self.media_type:
            raise ValueError(f"a {kind} part with inline `data` needs `media_type` (e.g. 'image/png')")
        return self

    @property
    def source(self) -> str:
        """A short human description of where the media is, for `detail` fallbacks and logs."""
        if self.url is not None:
            text = str(self.url)
            return text if len(text) <= 80 else f"{text[:60]}…({len(text)} chars)"
        if self.path is not None:
            return str(self.path)
        return f"inline {self.media_type}, {len(self.data or b'')} bytes"


class ImageUserMsgPart(_MediaPart):
    """An image (PNG, JPEG, GIF, WebP)."""

    type: Literal["image"] = "image"


class AudioUserMsgPart(_MediaPart):
    """An audio clip (WAV, MP3, …)."""

    type: Literal["audio"] = "audio"


class VideoUserMsgPart(_MediaPart):
    """A video clip."""

    type: Literal["video"] = "video"


class FileUserMsgPart(_MediaPart):
    """A document: PDF, plain text, or any other file attached to a message."""

    type: Literal["file"] = "file"
    filename: str | None = Field(
        default=None, exclude_if=IS_NONE, description="Original file name, shown to the model."
    )


MediaPart: TypeAlias = ImageUserMsgPart | AudioUserMsgPart | VideoUserMsgPart | FileUserMsgPart
"""Every part that carries bytes rather than text."""

MsgPart: TypeAlias = Annotated[
    TextUserMsgPart | ImageUserMsgPart | AudioUserMsgPart | VideoUserMsgPart | FileUserMsgPart,
    Field(discriminator="type"),
]
"""Any content part, dispatched on its `type` literal."""
