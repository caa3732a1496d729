"""Text extraction and keywords, without the server."""

from __future__ import annotations

import pytest

from tfrobotserver.robot.factory.brain.memory.ingest import IngestError, extract, file_type_of, keywords

from .pdf import make_pdf


def test_keywords_are_frequent_content_words_in_a_stable_order() -> None:
    text = "The robot reads. The robot writes; a robot's memory keeps what it reads and writes, in order."
    assert keywords(text, limit=4) == ["robot", "reads", "writes", "robot's"]
    assert keywords("a an the of 12 345") == []


def test_extract_each_type() -> None:
    assert extract("md", b"intro\n## Setup steps ##\nmore").metadata == {"title": "Setup steps"}
    assert extract("txt", "\ufeffcaf\u00e9".encode()).text == "caf\u00e9"
    pdf = extract("pdf", make_pdf("Hello PDF world", title="Greeting"))
    assert (pdf.text, pdf.metadata) == ("Hello PDF world", {"pages": 1, "title": "Greeting"})
    with pytest.raises(IngestError, match="cannot read 'docx' files"):
        extract("docx", b"")
    for junk in (b"", b"%PDF-1.4\n", b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << >>\n%%EOF"):
        with pytest.raises(IngestError, match="unreadable PDF"):
            extract("pdf", junk)
    assert (file_type_of("Notes.MD"), file_type_of("README")) == ("md", "")
