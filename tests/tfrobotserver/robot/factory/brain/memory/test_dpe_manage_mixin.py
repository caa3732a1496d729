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
    update = {"doc_id": 2, "doc_version": 1, "keywords": ["k"], "metadata": {"a": 1}}
    updated = await act(api, "memory", "aupdate_doc", update)
    assert (updated["keywords"], updated["docMetadata"], updated["version"]) == (["k"], {"a": 1}, 2)
    by_kw = await act(api, "memory", "asearch_docs", {"query": "k", "mode": "keyword"})
    assert [d["docId"] for d in by_kw["items"]] == [2]
    assert await act(api, "memory", "adelete_docs", {"doc_ids": [1, 2, 3, 99]}) == 3
    assert (await act(api, "memory", "aget_docs"))["total"] == 39
    assert (await refused(api, "memory", "adelete_doc", {"doc_id": 2}))["errors"][0]["path"] == "doc_id"
    gone = await refused(api, "memory", "aupdate_doc", {**update, "doc_version": 2})
    assert gone["errors"][0]["path"] == "doc_id"


async def test_a_stale_update_is_refused_with_what_changed_and_how_to_overwrite(api: httpx.AsyncClient) -> None:
    """Regression: an update over a version it had not read replaced the other writer's change silently."""
    read = await act(api, "memory", "aget_doc", {"doc_id": 5})
    mine = {"doc_id": 5, "doc_version": read["version"], "keywords": [*read["keywords"], "mine"], "metadata": {}}
    theirs = {**mine, "keywords": [*read["keywords"], "theirs"]}
    assert (await act(api, "memory", "aupdate_doc", theirs))["version"] == 2
    stale = await refused(api, "memory", "aupdate_doc", mine, status=409)
    assert stale["error"] == "conflict"
    assert stale["errors"] == [
        {"path": "doc_version", "message": stale["errors"][0]["message"], "type": "conflict", "value": 1}
    ]
    assert "changed since you read it" in stale["message"]
    assert "reload it and apply your change again, or overwrite it by sending doc_version 2" in stale["message"]
    assert stale["current"]["keywords"] == [*read["keywords"], "theirs"]
    assert stale["current"]["version"] == 2
    assert stale["overwrite"] == {"doc_version": 2}
    assert (await act(api, "memory", "aget_doc", {"doc_id": 5}))["keywords"] == [*read["keywords"], "theirs"]
    overwritten = await act(api, "memory", "aupdate_doc", {**mine, **stale["overwrite"]})
    assert (overwritten["keywords"], overwritten["version"]) == ([*read["keywords"], "mine"], 3)


async def test_owner_is_the_caller_not_the_body(api: httpx.AsyncClient) -> None:
    """Regression: `acreate_doc` stored whatever `owner_id` the body named."""
    forged = await refused(api, "memory", "acreate_doc", {"file_uri": "m://f", "file_type": "md", "owner_id": "boss"})
    assert (forged["errors"][0]["path"], forged["errors"][0]["value"]) == ("owner_id", "boss")
    assert "owned by whoever creates it, here 'local'" in forged["errors"][0]["message"]
    for params in ({}, {"owner_id": "local"}):
        doc = await act(api, "memory", "acreate_doc", {"file_uri": "m://o", "file_type": "md", **params})
        assert doc["docMetadata"] == {"owner": "local"}


async def test_ingested_text_and_its_title_lose_nul_characters(api: httpx.AsyncClient) -> None:
    """Regression: a file whose text holds NUL (U+0000) failed on PostgreSQL with a 500."""
    md = "# Ti\x00tle\n\nnul\x00 inside the body text\n"
    doc = await act(api, "memory", "aingest_file", {"file_name": "nul.md", "content_base64": b64(md)})
    assert doc["docMetadata"]["title"] == "Title"
    assert "\x00" not in doc["excerpt"]
    assert doc["excerpt"].startswith("# Title")


async def test_batch_delete_of_more_ids_than_a_statement_binds(api: httpx.AsyncClient) -> None:
    """Regression: 40,000 ids went into one IN (…): asyncpg's 32,767-parameter limit answered a 503 "retry"."""
    ids = list(range(1, 40_001))
    assert await act(api, "memory", "adelete_docs", {"doc_ids": ids}) == 42
    assert (await act(api, "memory", "aget_docs"))["total"] == 0
    too_many = await refused(api, "memory", "adelete_docs", {"doc_ids": list(range(1, 100_002))})
    assert (too_many["errors"][0]["path"], too_many["errors"][0]["type"]) == ("doc_ids", "too_long")


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
