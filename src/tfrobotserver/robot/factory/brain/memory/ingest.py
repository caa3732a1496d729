"""Turning uploaded files into memory documents: text extraction (text, Markdown, PDF) and keywords.

PDF text comes from `pypdf`; keywords are the most frequent content words (stop words and short
tokens dropped), ties broken by first appearance so the result is deterministic.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pypdf import PdfReader

_WORD = re.compile(r"[^\W\d_][\w'-]*", re.UNICODE)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
_STOP_TEXT = """
a about above after again against all also am an and any are as at be because been before being below between
both but by can could did do does doing down during each few for from further had has have having he her here hers
herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on once
only or other our ours ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yourself yourselves
"""
STOP_WORDS = frozenset(_STOP_TEXT.split())
READABLE_TYPES = ("md", "pdf", "txt")
"""The file types `extract` reads."""


class IngestError(ValueError):
    """A file that cannot be turned into a document (unknown type, unreadable PDF, not UTF-8 text)."""


@dataclass
class Extracted:
    """The text of a file and what was learnt about it on the way."""

    text: str
    metadata: dict[str, Any] = field(default_factory=dict)


def file_type_of(file_name: str) -> str:
    """The lower-case suffix without the dot ("md" for notes.MD); "" when there is none."""
    _, dot, suffix = file_name.rpartition(".")
    return suffix.lower() if dot else ""


def extract(file_type: str, data: bytes) -> Extracted:
    """Text and metadata of a txt / md / pdf file."""
    if file_type in ("txt", "md"):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise IngestError(f"not UTF-8 text (byte {exc.start})") from None
        meta: dict[str, Any] = {}
        heading = _HEADING.search(text) if file_type == "md" else None
        if heading:
            meta["title"] = heading.group(1)
        return Extracted(text, meta)
    if file_type == "pdf":
        try:
            reader = PdfReader(io.BytesIO(data))
            pages = [page.extract_text() or "" for page in reader.pages]
        except Exception as exc:
            raise IngestError(f"unreadable PDF: {type(exc).__name__}: {exc}") from None
        meta = {"pages": len(pages)}
        title = reader.metadata.title if reader.metadata is not None else None
        if title:
            meta["title"] = str(title)
        return Extracted("\n\n".join(p.strip() for p in pages).strip(), meta)
    raise IngestError(f"cannot read {file_type!r} files; text (txt), Markdown (md) and PDF (pdf) are supported")


def keywords(text: str, limit: int = 8) -> list[str]:
    """The `limit` most frequent content words of `text`, lower-cased."""
    words = [w.lower().strip("'-") for w in _WORD.findall(text)]
    counts = Counter(w for w in words if len(w) >= 3 and w not in STOP_WORDS)
    first: dict[str, int] = {}
    for i, w in enumerate(words):
        first.setdefault(w, i)
    ranked = sorted(counts, key=lambda w: (-counts[w], first[w]))
    return ranked[:limit]
