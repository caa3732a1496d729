"""Turning uploaded files into memory documents: text extraction (text, Markdown, PDF) and keywords.

PDF text comes from `pypdf`; keywords are the most frequent content words (stop words and short
tokens dropped), ties broken by first appearance so the result is deterministic.

Reading a PDF is CPU work (tens of milliseconds per page, and a small file can have many costly
pages), so `ingest` is bounded before it reads everything: the page count is checked first, and the
characters extracted and the clock are checked while a page is read (pypdf calls back for every
operator of its content), so a refused file costs at most what the limits allow. The caller runs it
in a worker process.
"""

from __future__ import annotations

import io
import re
import time
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
_YIELD_SECONDS = 0.002
"""Reading time between two voluntary releases of the GIL (pypdf is pure Python)."""
"""The file types `extract` reads."""


class IngestError(ValueError):
    """A file that cannot be turned into a document (unknown type, unreadable PDF, not UTF-8 text, too big)."""


class _Exceeded(Exception):
    """A limit was crossed while pypdf was reading a page (raised from its callbacks)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class IngestLimits:
    """What reading one file may cost; each refusal names its limit and the setting that raises it."""

    max_pages: int = 200
    """Pages of a PDF (`max_pdf_pages` of the memory component)."""
    max_chars: int = 2_000_000
    """Characters of extracted text (`max_text_chars`)."""
    max_seconds: float = 20.0
    """Wall time of the extraction."""


@dataclass
class Extracted:
    """The text of a file and what was learnt about it on the way."""

    text: str
    metadata: dict[str, Any] = field(default_factory=dict)


def file_type_of(file_name: str) -> str:
    """The lower-case suffix without the dot ("md" for notes.MD); "" when there is none."""
    _, dot, suffix = file_name.rpartition(".")
    return suffix.lower() if dot else ""


def extract(file_type: str, data: bytes, limits: IngestLimits | None = None) -> Extracted:
    """Text and metadata of a txt / md / pdf file, within `limits` (`IngestError` otherwise)."""
    limits = limits or IngestLimits()
    if file_type in ("txt", "md"):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise IngestError(f"not UTF-8 text (byte {exc.start})") from None
        _check_chars(len(text), limits)
        meta: dict[str, Any] = {}
        heading = _HEADING.search(text) if file_type == "md" else None
        if heading:
            meta["title"] = heading.group(1)
        return Extracted(text, meta)
    if file_type == "pdf":
        return _extract_pdf(data, limits)
    raise IngestError(f"cannot read {file_type!r} files; text (txt), Markdown (md) and PDF (pdf) are supported")


def ingest(file_type: str, data: bytes, limits: IngestLimits, with_keywords: bool) -> tuple[Extracted, list[str]]:
    """`extract`, then the text's `keywords` (when wanted): all the CPU work of an upload, for one worker."""
    extracted = extract(file_type, data, limits)
    return extracted, keywords(extracted.text) if with_keywords else []


def _check_chars(count: int, limits: IngestLimits) -> None:
    if count > limits.max_chars:
        raise IngestError(
            f"the file has more than {limits.max_chars:,} characters of text (max_text_chars); split it, or raise "
            "max_text_chars in the robot file"
        )


def _extract_pdf(data: bytes, limits: IngestLimits) -> Extracted:
    deadline = time.monotonic() + limits.max_seconds
    chars = 0
    yielded = [time.monotonic()]

    def on_operator(*_: Any) -> None:
        now = time.monotonic()
        if now > deadline:
            raise _Exceeded(f"reading the PDF took longer than {limits.max_seconds:g} s; split it into smaller files")
        if now - yielded[0] > _YIELD_SECONDS:  # let the event loop's thread take the GIL now, not in 5 ms
            time.sleep(0)
            yielded[0] = now

    def on_text(text: str, *_: Any) -> None:
        nonlocal chars
        chars += len(text)
        if chars > limits.max_chars:
            raise _Exceeded(
                f"the PDF has more than {limits.max_chars:,} characters of text (max_text_chars); split it, or "
                "raise max_text_chars in the robot file"
            )

    try:
        reader = PdfReader(io.BytesIO(data))
        count = len(reader.pages)
        if count > limits.max_pages:
            raise _Exceeded(
                f"the PDF has {count:,} pages; at most {limits.max_pages:,} are read (max_pdf_pages); split it, "
                "or raise max_pdf_pages in the robot file"
            )
        pages = [
            page.extract_text(visitor_operand_before=on_operator, visitor_text=on_text) or "" for page in reader.pages
        ]
        title = reader.metadata.title if reader.metadata is not None else None
    except _Exceeded as exc:
        raise IngestError(exc.message) from None
    except Exception as exc:
        raise IngestError(f"unreadable PDF: {type(exc).__name__}: {exc}") from None
    meta: dict[str, Any] = {"pages": len(pages)}
    if title:
        meta["title"] = str(title)
    return Extracted("\n\n".join(p.strip() for p in pages).strip(), meta)


def keywords(text: str, limit: int = 8) -> list[str]:
    """The `limit` most frequent content words of `text`, lower-cased."""
    words = [w.lower().strip("'-") for w in _WORD.findall(text)]
    counts = Counter(w for w in words if len(w) >= 3 and w not in STOP_WORDS)
    first: dict[str, int] = {}
    for i, w in enumerate(words):
        first.setdefault(w, i)
    ranked = sorted(counts, key=lambda w: (-counts[w], first[w]))
    return ranked[:limit]
