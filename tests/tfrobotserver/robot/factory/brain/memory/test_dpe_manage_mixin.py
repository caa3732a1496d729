"""Document memory through the HTTP API, on SQLite and PostgreSQL: pages, cursors, search, ingestion, edits."""

from __future__ import annotations

import base64

import httpx

from ......tfrobotserver.conftest import act, refused
from .pdf import make_pdf


def b64(data: bytes | str) -> str:
    return base64.b64encode(data.encode() if isinstance(data, str) else data).decode()


async def test_page_and_cursor_variants_agree(api: httpx.AsyncClient) -> None:
    page = await act(api, "memory", "aget_docs", {"page": 3, "page_size": 5})
    assert [d["docId"] for d in page["items"]] == [11, 12, 13, 14, 15]
    assert (page["page"], page["pageSize"], page["total"]) == (3, 5, 42)
    seen: list[int] = []
    cursor = None
    while True:
        chunk = await act(api, "memory", "aget_docs_by_cursor", {"cursor": cursor, "page_size": 10})
        seen += [d["docId"] for d in chunk["items"]]
        cursor = chunk["nextCursor"]
        if cursor is None:
            break
    assert seen == list(range(1, 43))
    assert (await refused(api, "memory", "aget_docs_by_cursor", {"cursor": "x"}))["errors"][0]["path"] == "cursor"


async def test_keyword_search_pages_by_cursor(api: httpx.AsyncClient) -> None:
    first = await act(api, "memory", "asearch_docs", {"query": "topic-1", "mode": "keyword", "page_size": 5})
    assert [d["docId"] for d in first["items"]] == [1, 6, 11, 16, 21]
    rest = await act(
        api, "memory", "asearch_docs", {"query": "TOPIC-1", "mode": "keyword", "cursor": first["nextCursor"]}
    )
    assert ([d["docId"] for d in rest["items"]], rest["nextCursor"]) == ([26, 31, 36, 41], None)
    none = await act(api, "memory", "asearch_docs", {"query": "topic-9", "mode": "keyword"})
    assert none["items"] == []


async def test_ingest_text_markdown_and_pdf_then_full_text_search(api: httpx.AsyncClient) -> None:
    md = "# Quantum notes\n\nEntanglement links qubits. Entanglement survives distance; qubits decohere.\n"
    doc = await act(api, "memory", "aingest_file", {"file_name": "notes.md", "content_base64": b64(md)})
    assert (doc["docId"], doc["fileUri"], doc["fileType"]) == (43, "upload://demo/notes.md", "md")
    assert doc["keywords"][:2] == ["entanglement", "qubits"]
    assert doc["docMetadata"] == {"owner": "local", "fileName": "notes.md", "bytes": len(md.encode()),
                                  "title": "Quantum notes"}  # fmt: skip
    assert doc["excerpt"].startswith("# Quantum notes")
    txt = await act(
        api, "memory", "aingest_file",
        {"file_name": "plain.TXT", "content_base64": b64("Gardening with tomatoes"), "keywords": ["garden"]},
    )  # fmt: skip
    assert (txt["fileType"], txt["keywords"]) == ("txt", ["garden"])
    pdf = await act(
        api, "memory", "aingest_file",
        {"file_name": "paper.pdf", "content_base64": b64(make_pdf("Robots index portable documents; robots"))},
    )  # fmt: skip
    assert pdf["keywords"][0] == "robots"
    assert (pdf["docMetadata"]["pages"], pdf["docMetadata"]["title"]) == (1, "Test PDF")

    async def fulltext(query: str) -> list[int]:
        found = await act(api, "memory", "asearch_docs", {"query": query, "mode": "fulltext", "page_size": 50})
        return [d["docId"] for d in found["items"]]

    assert await fulltext("entanglement") == [43]
    assert await fulltext("qubits distance") == [43]
    assert await fulltext("qubits tomatoes") == []
    assert await fulltext("portable ROBOTS") == [45]
    assert len(await fulltext("demo document")) == 42
    await act(api, "memory", "adelete_doc", {"doc_id": 43})
    assert await fulltext("entanglement") == []
    assert (await refused(api, "memory", "asearch_docs", {"query": "!!!"}))["errors"][0]["path"] == "query"


async def test_ingest_refuses_what_it_cannot_read(api: httpx.AsyncClient) -> None:
    bad_type = await refused(api, "memory", "aingest_file", {"file_name": "x.exe", "content_base64": b64("MZ")})
    assert "file type must be one of" in bad_type["errors"][0]["message"]
    not_b64 = await refused(api, "memory", "aingest_file", {"file_name": "x.txt", "content_base64": "%%%"})
    assert not_b64["errors"][0]["path"] == "content_base64"
    bad_pdf = await refused(api, "memory", "aingest_file", {"file_name": "x.pdf", "content_base64": b64("nope")})
    assert "unreadable PDF" in bad_pdf["errors"][0]["message"]
    latin1 = await refused(api, "memory", "aingest_file", {"file_name": "x.txt", "content_base64": b64(b"\xe9t\xe9")})
    assert "not UTF-8" in latin1["errors"][0]["message"]


async def test_update_delete_batch_delete(api: httpx.AsyncClient) -> None:
    updated = await act(api, "memory", "aupdate_doc", {"doc_id": 2, "keywords": ["k"], "metadata": {"a": 1}})
    assert (updated["keywords"], updated["docMetadata"]) == (["k"], {"a": 1})
    by_kw = await act(api, "memory", "asearch_docs", {"query": "k", "mode": "keyword"})
    assert [d["docId"] for d in by_kw["items"]] == [2]
    assert await act(api, "memory", "adelete_docs", {"doc_ids": [1, 2, 3, 99]}) == 3
    assert (await act(api, "memory", "aget_docs"))["total"] == 39
    assert (await refused(api, "memory", "adelete_doc", {"doc_id": 2}))["errors"][0]["path"] == "doc_id"


async def test_file_types_are_configuration_changed_at_run_time(api: httpx.AsyncClient) -> None:
    unreadable = await refused(api, "memory", "aset_file_types", {"file_types": {"docx": "Word"}})
    assert "cannot ingest ['docx']" in unreadable["errors"][0]["message"]
    changed = await act(api, "memory", "aset_file_types", {"file_types": {"md": "Notes"}})
    assert changed["config"]["file_types"] == {"md": "Notes"}
    assert (await act(api, "memory", "aget_doc_types"))["types"] == [{"key": "md", "label": "Notes"}]
    txt = await refused(api, "memory", "aingest_file", {"file_name": "a.txt", "content_base64": b64("hello")})
    assert "must be one of ['md']" in txt["errors"][0]["message"]
    log = await act(api, "memory", "aget_config_changes")
    assert [(c["field"], c["newValue"]) for c in log["items"]] == [("file_types", {"md": "Notes"})]


async def test_cursors_beyond_the_id_range_are_refused(api: httpx.AsyncClient) -> None:
    for cursor in ("99999999999999999999", "٣", "-1"):
        plain = await refused(api, "memory", "aget_docs_by_cursor", {"cursor": cursor})
        search = await refused(api, "memory", "asearch_docs", {"cursor": cursor, "query": "topic", "mode": "keyword"})
        assert plain["errors"][0]["path"] == search["errors"][0]["path"] == "cursor"
    last = await act(api, "memory", "aget_docs_by_cursor", {"cursor": str(2**31 - 1)})
    assert last["items"] == []
