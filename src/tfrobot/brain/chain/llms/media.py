"""Capability tables and media resolution: which modality each provider takes where, and how to send it.

A provider's `Capabilities` maps (position, modality) to `native` or `detail`. `native` parts are sent as
media; `detail` parts are sent as their `detail` text with a `ModalityDegradedWarning`; a part that would
degrade but has no `detail` raises `UnsupportedContentError`, because sending a placeholder would drop
the content silently. Positions: `user` (a user turn, including forwarded history) and `tool_result`
(media a tool or a TFL run returned).
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
import posixpath
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Literal, TypeAlias
from urllib.parse import unquote_to_bytes

from pydantic import BaseModel, ConfigDict, Field

from tfrobot.brain.chain.llms.errors import ModalityDegradedWarning, UnsupportedContentError
from tfrobot.schema.message.msg_part import MediaPart

Modality: TypeAlias = Literal["image", "audio", "video", "file"]
Position: TypeAlias = Literal["user", "tool_result"]
Support: TypeAlias = Literal["native", "detail"]


class Capabilities(BaseModel):
    """What one provider accepts: per position, the modalities it takes natively (the rest degrade)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    user: frozenset[Modality] = Field(default=frozenset({"image"}), description="Modalities native in user turns.")
    tool_result: frozenset[Modality] = Field(
        default=frozenset({"image"}), description="Modalities native as tool/console result attachments."
    )
    url_sources: frozenset[Modality] = Field(
        default=frozenset({"image"}), description="Modalities the provider fetches by http(s) URL itself."
    )

    def support(self, position: Position, modality: Modality) -> Support:
        """`native` when the provider takes `modality` at `position`, else `detail`."""
        return "native" if modality in getattr(self, position) else "detail"


class ResolvedMedia(BaseModel):
    """A media part's bytes or URL, ready for a provider: exactly one of `url` and `data` is set."""

    model_config = ConfigDict(frozen=True)

    media_type: str
    url: str | None = None
    data: bytes | None = None

    @property
    def b64(self) -> str:
        """The inline bytes in base64 (empty when the media is a URL)."""
        return base64.b64encode(self.data or b"").decode("ascii")

    @property
    def data_url(self) -> str:
        """A `data:` URL of the bytes, or the remote URL itself."""
        return self.url if self.url is not None else f"data:{self.media_type};base64,{self.b64}"


def modality_of(part: MediaPart) -> Modality:
    """The capability-table key of a media part."""
    return part.type


def degrade(part: MediaPart, *, provider: str, position: Position, where: str) -> str:
    """The text sent instead of `part`, with a warning; raises when there is no `detail` to send."""
    kind = modality_of(part)
    if not part.detail:
        raise UnsupportedContentError(
            f"{where}: {provider} cannot take a {kind} part in a {position.replace('_', ' ')} "
            f"({part.source}) and the part has no `detail` text to send instead. "
            f"Fix: set `detail` on the part, or use a provider that takes {kind}."
        )
    warnings.warn(
        f"{where}: {provider} cannot take a {kind} part in a {position.replace('_', ' ')}; "
        f"sent its `detail` text instead ({part.source})",
        ModalityDegradedWarning,
        stacklevel=4,
    )
    return f"[{kind}: {part.detail}]"


_DEFAULT_TYPES: dict[str, str] = {
    "image": "image/png",
    "audio": "audio/wav",
    "video": "video/mp4",
    "file": "application/pdf",
}


def _guess(name: str, part: MediaPart) -> str:
    return part.media_type or _guessed_type(name) or _DEFAULT_TYPES[part.type]


def _guessed_type(name: str) -> str | None:
    """`mimetypes.guess_type(name)[0]`, looked up once per suffix: a URL image is resolved on every request
    that holds it, and `guess_type` (a URL split, then the suffix tables) cost 5 % of an OpenAI conversion.

    The type of a plain suffix depends on the suffix alone; a name whose type depends on more is guessed
    each time: a scheme (`data:` names carry their type), or a last suffix that is an encoding (`.gz`: the
    type is the one before it) or an alias (`.tgz`)."""
    if ":" in name:
        return mimetypes.guess_type(name)[0]
    suffix = posixpath.splitext(name)[1]
    folded = suffix.lower()
    if folded in mimetypes.suffix_map or folded in mimetypes.encodings_map:
        return mimetypes.guess_type(name)[0]
    return _suffix_type(suffix)


@lru_cache(maxsize=512)
def _suffix_type(suffix: str) -> str | None:
    """The type `mimetypes` gives a name ending in `suffix` (bounded: URLs may end in anything). Types added
    with `mimetypes.add_type` later are seen after `_suffix_type.cache_clear()`."""
    return mimetypes.guess_type(f"x{suffix}")[0]


@lru_cache(maxsize=1024)
def _remote(url: str, path: str, declared: str | None, kind: Modality) -> ResolvedMedia:
    """The media at a remote `url` (whose path is `path`): the same URL is resolved on every request that holds
    it, to the same frozen value, which is kept (bounded) rather than validated anew each time."""
    return ResolvedMedia(media_type=declared or _guessed_type(path) or _DEFAULT_TYPES[kind], url=url)


def resolve(part: MediaPart, *, media_roots: tuple[Path, ...], where: str) -> ResolvedMedia:
    """Where `part`'s media is: a remote URL, or bytes (inline data, a `data:` URL, or a file under a root).

    Local paths are read only below one of `media_roots`: a message is data, and data must not make the
    process read arbitrary files.
    """
    if part.data is not None:
        return ResolvedMedia(media_type=_guess("", part), data=part.data)
    if part.url is not None:
        text = str(part.url)
        if text.startswith("data:"):
            return _from_data_url(text, part, where)
        return _remote(text, part.url.path or "", part.media_type, part.type)
    path = Path(str(part.path)).expanduser()
    resolved = path.resolve()
    if not any(resolved.is_relative_to(root.resolve()) for root in media_roots):
        roots = ", ".join(str(r) for r in media_roots) or "none configured"
        raise UnsupportedContentError(
            f"{where}: {part.type} path {path} is outside the media roots ({roots}). "
            "Fix: add its folder to the LLM's `media_roots`, or send the bytes as `data`."
        )
    try:
        data = resolved.read_bytes()
    except OSError as exc:
        raise UnsupportedContentError(f"{where}: cannot read {part.type} file {path}: {exc}") from exc
    return ResolvedMedia(media_type=_guess(path.name, part), data=data)


def _from_data_url(text: str, part: MediaPart, where: str) -> ResolvedMedia:
    header, sep, payload = text[5:].partition(",")
    if not sep:
        raise UnsupportedContentError(f"{where}: malformed data: URL for a {part.type} part (no comma)")
    media_type = header.split(";")[0] or _guess("", part)
    try:
        data = base64.b64decode(payload, validate=True) if header.endswith(";base64") else unquote_to_bytes(payload)
    except binascii.Error as exc:
        raise UnsupportedContentError(f"{where}: data: URL of a {part.type} part is not valid base64: {exc}") from exc
    return ResolvedMedia(media_type=media_type, data=data)
