"""Nothing overwritten silently, owners from the principal (THREATS.md "Nothing acknowledged is lost",
"Isolation"): concurrent read-modify-write clients of one document or node over real HTTP, on both stores."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from .conftest import Target, action_url

pytestmark = pytest.mark.asyncio(loop_scope="module")

CLIENTS = 20


async def _add_until_applied(
    client: httpx.AsyncClient, read: tuple[str, dict[str, Any]], write: str, change: Any, tally: dict[str, int]
) -> None:
    """Read, change, write back with the version read; on 409 read again and retry (what the console's
    "reload" does). `tally` counts first attempts applied, 409s, and anything else."""
    first = True
    while True:
        current = (await client.post(read[0], json=read[1])).json()
        await asyncio.sleep(0)  # let the other clients read the same version
        response = await client.post(write, json=change(current))
        if first:
            key = {200: "applied", 409: "refused"}.get(response.status_code, f"HTTP {response.status_code}")
            tally[key] = tally.get(key, 0) + 1
            first = False
        if response.status_code == 200:
            return
        assert response.status_code == 409, response.text
        assert response.json()["error"] == "conflict"


async def test_concurrent_read_modify_write_of_a_document_loses_nothing(target: Target) -> None:
    """Regression: 20 clients reading a document and adding a keyword: 19 updates were lost, all answered 200."""
    async with target.client() as client:
        created = await client.post(action_url("demo", "memory", "acreate_doc"), json={"file_uri": "m://rmw",
                                                                                     "file_type": "md"})  # fmt: skip
        doc_id = created.json()["docId"]
        read = (action_url("demo", "memory", "aget_doc"), {"doc_id": doc_id})

        def add(n: int) -> Any:
            def change(doc: dict[str, Any]) -> dict[str, Any]:
                keywords = [*doc["keywords"], f"k{n}"]
                return {"doc_id": doc_id, "doc_version": doc["version"], "keywords": keywords, "metadata": {}}

            return change

        tally: dict[str, int] = {}
        write = action_url("demo", "memory", "aupdate_doc")
        await asyncio.gather(*(_add_until_applied(client, read, write, add(n), tally) for n in range(CLIENTS)))
        final = (await client.post(read[0], json=read[1])).json()
    assert sorted(final["keywords"]) == sorted(f"k{n}" for n in range(CLIENTS))
    assert final["version"] == CLIENTS + 1
    assert set(tally) <= {"applied", "refused"}, tally
    assert tally["applied"] + tally.get("refused", 0) == CLIENTS
    print(f"\nread-modify-write ({target.store}): {CLIENTS} clients on one document: first attempts {tally}; "
          f"after retrying the refused ones all {CLIENTS} keywords kept (version {final['version']})")  # fmt: skip


async def test_concurrent_read_modify_write_of_a_node_loses_nothing(target: Target) -> None:
    async with target.client() as client:
        iri = "ex:counter"
        await client.post(action_url("demo", "graph", "acreate_node"), json={"iri": iri, "label": "C", "cls": "T",
                                                                           "properties": {}})  # fmt: skip
        read = (action_url("demo", "graph", "aget_graph"), {"iri": iri, "depth": 0})

        def add(n: int) -> Any:
            def change(graph: dict[str, Any]) -> dict[str, Any]:
                node = graph["nodes"][0]
                return {"iri": iri, "node_version": node["version"], "properties": {**node["properties"], f"p{n}": n}}

            return change

        tally: dict[str, int] = {}
        write = action_url("demo", "graph", "aupdate_node")
        await asyncio.gather(*(_add_until_applied(client, read, write, add(n), tally) for n in range(CLIENTS)))
        node = (await client.post(read[0], json=read[1])).json()["nodes"][0]
    assert node["properties"] == {f"p{n}": n for n in range(CLIENTS)}
    print(f"\nread-modify-write ({target.store}): {CLIENTS} clients on one node: first attempts {tally}; all kept")


async def test_the_owner_is_the_caller_whatever_the_body_says(target: Target) -> None:
    """Regression: `acreate_doc` stored the `owner_id` the body named, so a token could file documents as
    anyone."""
    url = action_url("demo", "memory", "acreate_doc")
    async with target.client() as writer:
        forged = await writer.post(url, json={"file_uri": "m://forged", "file_type": "md", "owner_id": "reader"})
        assert forged.status_code == 422, forged.text
        assert forged.json()["errors"][0]["path"] == "owner_id"
        mine = await writer.post(url, json={"file_uri": "m://mine", "file_type": "md"})
        assert mine.json()["docMetadata"] == {"owner": "writer"}
        me = (await writer.post(action_url("demo", "memory", "aget_current_user"), json={})).json()
        shown = await writer.post(url, json={"file_uri": "m://shown", "file_type": "md", "owner_id": me["userId"]})
        assert shown.json()["docMetadata"] == {"owner": "writer"}
