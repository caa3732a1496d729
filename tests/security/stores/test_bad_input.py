"""Bad input is a 4xx, never a 5xx (THREATS.md): NUL characters and NaN / Infinity in every parameter of every
action, racing creates of one key, and batch deletes beyond a driver's parameter limit, on both stores.

The parameters are enumerated from the running server's own schemas: each string, array and object
parameter of each action gets a NUL character, a NaN and an overflowing number in turn (the other required
parameters plainly filled), so an action added to any robot is attacked without editing this file.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from typing import Any

import pytest

from .conftest import Target, action_url, branch, every_action, sample_params

pytestmark = pytest.mark.asyncio(loop_scope="module")

NUL = "a\x00b"
NON_FINITE = ("NaN", "Infinity", "-Infinity", "1e400")
"""JSON tokens Python's and pydantic's parsers read as non-finite floats (`1e400` overflows)."""


def _poisoned(schema: dict[str, Any], root: dict[str, Any]) -> list[tuple[str, str]]:
    """(how, JSON text) values of a parameter's type that carry NUL or a non-finite number."""
    kind = branch(schema, root).get("type")
    if kind == "string":
        return [("NUL", json.dumps(NUL))]
    if kind == "array":
        return [("NUL", json.dumps([NUL])), *((token, f"[{token}]") for token in NON_FINITE)]
    if kind == "object" or kind is None:
        return [("NUL", json.dumps({"k": NUL})), ("NUL key", '{"k\\u0000": 1}'),
                *((token, f'{{"k": {token}}}') for token in NON_FINITE)]  # fmt: skip
    if kind in ("number", "integer"):
        return [(token, token) for token in NON_FINITE]
    return []


async def test_nul_and_non_finite_numbers_in_every_parameter_of_every_action(target: Target) -> None:
    """Regression: on PostgreSQL, NUL in a document, node or edge field and NaN in metadata or properties
    were 500s (create, update, search, read and delete alike)."""
    statuses: Counter[int] = Counter()
    named = 0
    async with target.client() as client:
        for robot, component, name, info in await every_action(target):
            schema = info["paramsSchema"]
            base = sample_params(schema)
            for param, param_schema in schema.get("properties", {}).items():
                for how, value in _poisoned(param_schema, schema):
                    fields = {key: json.dumps(plain) for key, plain in base.items()} | {param: value}
                    body = "{" + ", ".join(f"{json.dumps(key)}: {text}" for key, text in fields.items()) + "}"
                    response = await client.post(
                        action_url(robot, component, name), content=body, headers={"Content-Type": "application/json"}
                    )
                    statuses[response.status_code] += 1
                    assert response.status_code < 500, (robot, component, name, param, how, response.text)
                    assert response.status_code == 422, (name, param, how, response.text)
                    paths = [e["path"] for e in response.json()["errors"]]
                    assert any(p == param or p.startswith(f"{param}.") for p in paths), (name, param, how, paths)
                    named += 1
    print(
        f"\nbad input ({target.store}): {sum(statuses.values())} bodies with NUL / NaN / Infinity / 1e400 in "
        f"every parameter of every action: by status {sorted(statuses.items())}, {named} naming the field"
    )


async def test_documents_nodes_and_edges_refuse_nul_and_nan_with_the_field(target: Target) -> None:
    docs = lambda action: action_url("demo", "memory", action)  # noqa: E731
    graph = lambda action: action_url("demo", "graph", action)  # noqa: E731
    cases = [
        (docs("acreate_doc"), '{"file_uri": "m://a\\u0000", "file_type": "md"}', "file_uri"),
        (docs("acreate_doc"), '{"file_uri": "m://a", "file_type": "md", "text": "x\\u0000"}', "text"),
        (docs("aupdate_doc"), '{"doc_id": 1, "doc_version": 1, "keywords": [], "metadata": {"n": NaN}}', "metadata.n"),
        (docs("aupdate_doc"), '{"doc_id": 1, "doc_version": 1, "keywords": ["\\u0000"], "metadata": {}}', "keywords.0"),
        (docs("asearch_docs"), '{"query": "a\\u0000b", "mode": "keyword"}', "query"),
        (docs("asearch_docs"), '{"query": "a\\u0000b"}', "query"),
        (docs("aget_docs_by_cursor"), '{"cursor": "\\u0000"}', "cursor"),
        (graph("acreate_node"), '{"iri": "ex:\\u0000", "label": "x", "cls": "C"}', "iri"),
        (graph("acreate_node"), '{"iri": "ex:n", "label": "x", "cls": "C", "properties": {"w": Infinity}}',
         "properties.w"),
        (graph("aget_graph"), '{"iri": "ex:\\u0000"}', "iri"),
        (graph("adelete_node"), '{"iri": "ex:\\u0000"}', "iri"),
        (graph("acreate_edge"), '{"source": "ex:alice", "target": "ex:bob", "property": "p\\u0000", "label": "l"}',
         "property"),
        (graph("aupdate_edge"), '{"source": "ex:alice", "target": "ex:bob", "property": "ex:knows", "edge_version": 1,'
         ' "properties": {"x": -Infinity}}', "properties.x"),
    ]  # fmt: skip
    async with target.client() as client:
        for url, body, path in cases:
            response = await client.post(url, content=body, headers={"Content-Type": "application/json"})
            assert response.status_code == 422, (url, body, response.text)
            assert [e["path"] for e in response.json()["errors"]] == [path], (url, body, response.text)


async def test_simultaneous_creates_of_one_node_or_edge_give_one_success_and_clear_conflicts(target: Target) -> None:
    """Regression: ten simultaneous creates of one node were one 200, some 422s and 500s (IntegrityError);
    of one edge, one 200 and nine 500s."""
    url, edge_url = action_url("demo", "graph", "acreate_node"), action_url("demo", "graph", "acreate_edge")
    node = {"iri": "ex:race", "label": "Race", "cls": "Thing"}
    edge = {"source": "ex:alice", "target": "ex:paris", "property": "ex:race", "label": "race"}
    async with target.client() as client:
        for attempt in range(3):  # three rounds: the race is likely, not certain, in any one of them
            nodes = await asyncio.gather(
                *(client.post(url, json={**node, "iri": f"ex:race{attempt}"}) for _ in range(10))
            )
            same = {**edge, "property": f"ex:race{attempt}"}
            edges = await asyncio.gather(*(client.post(edge_url, json=same) for _ in range(10)))
            for key, responses in ((f"ex:race{attempt}", nodes), (f"ex:race{attempt}", edges)):
                assert sorted(r.status_code for r in responses) == [200] + [409] * 9, [r.text for r in responses]
                for response in responses:
                    if response.status_code == 409:
                        body = response.json()
                        assert body["error"] == "conflict"
                        assert key in json.dumps(body["errors"][0]["value"]), body
    print(f"\nraces ({target.store}): 3 rounds x 10 simultaneous creates of one node and of one edge: "
          "one 200 and nine 409 `conflict` naming the key each time")  # fmt: skip


async def test_batch_delete_beyond_the_drivers_parameter_limit(target: Target) -> None:
    """Regression: 40,000 ids in `adelete_docs` were one `IN (…)`: asyncpg's 32,767 bind-parameter limit
    answered a 503 "retry", which no retry could fix."""
    url = action_url("vault", "memory", "adelete_docs")
    async with target.client() as client:
        deleted = await client.post(url, json={"doc_ids": list(range(1, 40_001))})
        assert (deleted.status_code, deleted.json()) == (200, 3), deleted.text
        too_many = await client.post(url, json={"doc_ids": list(range(1, 100_002))})
        assert too_many.status_code == 422
        assert too_many.json()["errors"][0]["path"] == "doc_ids"
