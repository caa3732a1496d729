"""The knowledge graph through the HTTP API, on SQLite and PostgreSQL."""

from __future__ import annotations

import httpx

from ......tfrobotserver.conftest import act, refused


def iris(graph: dict[str, list[dict[str, str]]]) -> list[str]:
    return [n["iri"] for n in graph["nodes"]]


def pairs(graph: dict[str, list[dict[str, str]]]) -> set[tuple[str, str]]:
    return {(e["source"], e["target"]) for e in graph["edges"]}


async def test_whole_graph_and_neighbourhoods(api: httpx.AsyncClient) -> None:
    whole = await act(api, "graph", "aget_graph")
    assert iris(whole) == ["ex:alice", "ex:bob", "ex:paris", "ex:tfrobot"]
    assert len(whole["edges"]) == 4
    assert iris(await act(api, "graph", "aget_graph", {"limit": 2})) == ["ex:alice", "ex:bob"]
    await act(api, "graph", "acreate_node", {"iri": "ex:eve", "label": "Eve", "cls": "Person"})
    await act(api, "graph", "acreate_node", {"iri": "ex:lyon", "label": "Lyon", "cls": ["City"], "properties": {}})
    edge = {"source": "ex:eve", "target": "ex:bob", "property": "ex:knows", "label": "knows"}
    assert await act(api, "graph", "acreate_edge", edge) == {**edge, "properties": None, "version": 1}
    await act(api, "graph", "acreate_edge", {"source": "ex:lyon", "target": "ex:eve", "property": "ex:home",
                                            "label": "home of"})  # fmt: skip
    around_paris = await act(api, "graph", "aget_graph", {"iri": "ex:paris", "depth": 1})
    assert (iris(around_paris), pairs(around_paris)) == (["ex:paris", "ex:alice"], {("ex:alice", "ex:paris")})
    two = await act(api, "graph", "aget_graph", {"iri": "ex:paris", "depth": 2})
    assert set(iris(two)) == {"ex:paris", "ex:alice", "ex:bob", "ex:tfrobot"}
    assert pairs(two) == {("ex:alice", "ex:paris"), ("ex:alice", "ex:bob"), ("ex:alice", "ex:tfrobot"),
                          ("ex:bob", "ex:tfrobot")}  # fmt: skip
    three = await act(api, "graph", "aget_graph", {"iri": "ex:paris", "depth": 3})
    assert "ex:eve" in iris(three)
    assert "ex:lyon" not in iris(three)
    assert "ex:lyon" in iris(await act(api, "graph", "aget_graph", {"iri": "ex:paris", "depth": 4}))
    capped = await act(api, "graph", "aget_graph", {"iri": "ex:alice", "depth": 5, "limit": 3})
    assert len(capped["nodes"]) == 3
    assert iris(await act(api, "graph", "aget_graph", {"iri": "ex:paris", "depth": 0})) == ["ex:paris"]
    assert (await refused(api, "graph", "aget_graph", {"iri": "ex:nobody"}))["errors"][0]["path"] == "iri"


async def test_nodes_page_and_edits(api: httpx.AsyncClient) -> None:
    nodes = await act(api, "graph", "aget_nodes", {"page": 2, "page_size": 3})
    assert ([n["iri"] for n in nodes["items"]], nodes["total"]) == (["ex:tfrobot"], 4)
    assert await act(api, "graph", "aupdate_node", {"iri": "ex:bob", "node_version": 1, "label": "Robert"}) is None
    edge = {"source": "ex:alice", "target": "ex:paris", "property": "ex:livesIn"}
    await act(
        api, "graph", "aupdate_edge", {**edge, "edge_version": 1, "label": "resides in", "properties": {"since": 2020}}
    )
    graph = await act(api, "graph", "aget_graph")
    assert graph["nodes"][1] == {"iri": "ex:bob", "label": "Robert", "cls": "Person", "properties": {"age": 29},
                                 "version": 2}  # fmt: skip
    assert {**edge, "label": "resides in", "properties": {"since": 2020}, "version": 2} in graph["edges"]
    await act(api, "graph", "adelete_edge", edge)
    await act(api, "graph", "adelete_node", {"iri": "ex:bob"})
    graph = await act(api, "graph", "aget_graph")
    assert (iris(graph), pairs(graph)) == (["ex:alice", "ex:paris", "ex:tfrobot"], {("ex:alice", "ex:tfrobot")})


async def test_graph_refusals(api: httpx.AsyncClient) -> None:
    exists = await refused(api, "graph", "acreate_node", {"iri": "ex:alice", "label": "A", "cls": "P"}, status=409)
    assert (exists["error"], exists["errors"][0]["path"], exists["errors"][0]["value"]) == (
        "conflict",
        "iri",
        "ex:alice",
    )
    assert "a node 'ex:alice' exists" in exists["errors"][0]["message"]
    missing = await refused(
        api, "graph", "acreate_edge", {"source": "ex:alice", "target": "ex:zed", "property": "p", "label": "l"}
    )
    assert missing["errors"][0]["path"] == "target"
    dup = {"source": "ex:alice", "target": "ex:bob", "property": "ex:knows", "label": "knows"}
    twice = await refused(api, "graph", "acreate_edge", dup, status=409)
    assert (twice["errors"][0]["path"], twice["errors"][0]["value"]) == ("property", ["ex:alice", "ex:knows", "ex:bob"])
    nobody = await refused(api, "graph", "aupdate_node", {"iri": "ex:zed", "node_version": 1, "label": "Z"})
    assert nobody["errors"][0]["path"] == "iri"
    gone = {"source": "ex:bob", "target": "ex:alice", "property": "ex:knows"}
    assert (await refused(api, "graph", "adelete_edge", gone))["errors"][0]["path"] == "source"


async def test_stale_node_and_edge_updates_are_refused(api: httpx.AsyncClient) -> None:
    """Regression: an update over a node or edge changed since it was read replaced that change silently."""
    await act(api, "graph", "aupdate_node", {"iri": "ex:bob", "node_version": 1, "properties": {"age": 30}})
    stale = await refused(api, "graph", "aupdate_node", {"iri": "ex:bob", "node_version": 1, "label": "B"}, status=409)
    assert (stale["errors"][0]["path"], stale["overwrite"]) == ("node_version", {"node_version": 2})
    assert (stale["current"]["properties"], stale["current"]["label"]) == ({"age": 30}, "Bob")
    edge = {"source": "ex:alice", "target": "ex:bob", "property": "ex:knows"}
    await act(api, "graph", "aupdate_edge", {**edge, "edge_version": 1, "label": "met"})
    old = await refused(api, "graph", "aupdate_edge", {**edge, "edge_version": 1, "label": "knew"}, status=409)
    assert (old["errors"][0]["path"], old["current"]["label"], old["overwrite"]) == (
        "edge_version", "met", {"edge_version": 2}
    )  # fmt: skip
    await act(api, "graph", "aupdate_edge", {**edge, **old["overwrite"], "label": "knew"})
    assert {**edge, "label": "knew", "properties": None, "version": 3} in (await act(api, "graph", "aget_graph"))[
        "edges"
    ]


async def test_keys_longer_than_the_tables_hold_are_refused(api: httpx.AsyncClient) -> None:
    long_iri = "ex:" + "x" * 600
    assert (await refused(api, "graph", "acreate_node", {"iri": long_iri, "label": "L", "cls": "C"}))["errors"][0][
        "path"
    ] == "iri"
    assert (await refused(api, "graph", "aget_graph", {"iri": long_iri}))["errors"][0]["path"] == "iri"
