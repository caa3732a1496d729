"""200 paths: listing robots, components and actions, and calling actions of every kind."""

from __future__ import annotations

import logging
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from tfrobotserver.app.factory import create_app
from tfrobotserver.app.settings import ServerSettings
from tfrobotserver.robot.demo import build_demo_robot
from tfrobotserver.robot.factory.brain.memory.memory_component import MemoryComponent

from .conftest import ACTIONS, call, robots


async def test_list_robots(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/robots")
    assert response.status_code == 200
    assert response.json() == [
        {
            "name": "demo",
            "description": "Offline demo: a scripted LLM with tools, documents, a knowledge graph and a prompt to "
            "debug.",
            "components": ["llm", "conversations", "tools", "prompt", "memory", "graph"],
            "chat": {"ready": True, "problems": []},
        },
        {"name": "broken", "description": "", "components": ["exploding"], "chat": None},
    ]


async def test_list_components_with_config(client: httpx.AsyncClient) -> None:
    body = (await client.get("/api/robots/demo/components")).json()
    assert [(c["name"], c["type"]) for c in body] == [
        ("llm", "LLMComponent"),
        ("conversations", "ConversationsComponent"),
        ("tools", "ToolsComponent"),
        ("prompt", "PromptComponent"),
        ("memory", "MemoryComponent"),
        ("graph", "GraphComponent"),
    ]
    config = {c["name"]: c["config"] for c in body}
    assert config["tools"] == {"tools": ["weather", "chart"]}  # the robot file's entries, shown, not writable
    assert config["memory"] == {
        "collection": "demo",
        "seed_docs": 42,
        "file_types": {"pdf": "PDF document", "md": "Markdown", "txt": "Text"},
        "max_pdf_pages": 200,
        "max_text_chars": 2_000_000,
    }
    assert config["prompt"] == {
        "template": "You are {{ robot }}. Answer {{ user }} in {{ language }}.",
        "defaults": {"robot": "TFRobot demo", "user": "the user", "language": "English"},
    }
    assert config["llm"] == {
        "provider": "scripted",
        "model": None,
        "params": {},
        "params_from": {"rules": "tfrobot.brain.demo:RULES"},
    }
    assert config["conversations"] == {"memory_url": None}


async def test_list_actions(client: httpx.AsyncClient) -> None:
    body = (await client.get("/api/robots/demo/components/memory/actions")).json()
    by_name = {a["name"]: a for a in body}
    assert list(by_name) == list(MemoryComponent.__tfs_actions__)
    docs = by_name["aget_docs"]
    assert set(docs) == {"name", "title", "alias", "description", "paramsSchema", "retSchema"}
    assert (docs["title"], by_name["aupdate_doc"]["title"]) == ("Get docs", "Update doc")  # the name in words
    assert docs["alias"] == {"category": "pageable", "resource": "doc", "resourceOpType": "get_list"}
    assert docs["description"] == "Documents, one page at a time (page numbers)."
    assert docs["retSchema"] == MemoryComponent.tfs_bound_actions()["aget_docs"].ret_schema
    assert docs["retSchema"]["$defs"]["AIMemoryDoc"]["x-namespace"]["docId"] == "docId"
    assert by_name["aget_current_user"]["alias"] == {"category": None, "resource": "user", "resourceOpType": "get"}
    assert by_name["aupdate_doc"]["paramsSchema"]["properties"]["doc_id"]["x-ref"] == "docId"


async def test_get_list_page_and_cursor(client: httpx.AsyncClient) -> None:
    page = (await call(client, "memory", "aget_docs", {"page": 3, "page_size": 5})).json()
    assert [d["docId"] for d in page["items"]] == [11, 12, 13, 14, 15]
    assert (page["page"], page["pageSize"], page["total"]) == (3, 5, 42)
    assert page["items"][0] == {
        "docId": 11,
        "fileUri": "memory://demo/doc-0011.txt",
        "fileType": "txt",
        "keywords": ["topic-1", "txt"],
        "docMetadata": {"seeded": True, "n": 11},
        "excerpt": "Demo document 11 of demo about topic 1, filed as Text.",
        "version": 1,
    }
    first = (await call(client, "memory", "aget_docs_by_cursor", {"page_size": 40})).json()
    assert (len(first["items"]), first["cursor"], first["nextCursor"]) == (40, None, "40")
    last = (await call(client, "memory", "aget_docs_by_cursor", {"page_size": 40, "cursor": "40"})).json()
    assert ([d["docId"] for d in last["items"]], last["nextCursor"]) == ([41, 42], None)


async def test_empty_body_means_no_params(client: httpx.AsyncClient) -> None:
    json_type = {"Content-Type": "application/json"}
    response = await client.post("/api/robots/demo/components/memory/actions/aget_docs", headers=json_type)
    assert response.status_code == 200
    assert response.json()["pageSize"] == 20


async def test_update_delete_and_batch_delete_docs(client: httpx.AsyncClient) -> None:
    update = {"doc_id": 2, "doc_version": 1, "keywords": ["k"], "metadata": {"a": 1}}
    updated = await call(client, "memory", "aupdate_doc", update)
    assert updated.json() == {"docId": 2, "fileUri": "memory://demo/doc-0002.txt", "fileType": "txt",
                              "keywords": ["k"], "docMetadata": {"a": 1},
                              "excerpt": "Demo document 2 of demo about topic 2, filed as Text.",
                              "version": 2}  # fmt: skip
    assert (await call(client, "memory", "aget_doc", {"doc_id": 2})).json()["keywords"] == ["k"]
    assert (await call(client, "memory", "adelete_doc", {"doc_id": 2})).json() is None
    assert (await call(client, "memory", "adelete_docs", {"doc_ids": [1, 2, 3, 4]})).json() == 3
    assert (await call(client, "memory", "aget_docs")).json()["total"] == 38


async def test_create_doc_and_current_user(client: httpx.AsyncClient) -> None:
    me = (await call(client, "memory", "aget_current_user")).json()
    assert me == {"userId": "local", "displayName": "local", "scopes": ["read", "write"]}
    created = await call(
        client, "memory", "acreate_doc", {"file_uri": "s3://x.pdf", "file_type": "pdf", "owner_id": "local"}
    )
    assert created.json() == {"docId": 43, "fileUri": "s3://x.pdf", "fileType": "pdf", "keywords": [],
                              "docMetadata": {"owner": "local"}, "excerpt": "", "version": 1}  # fmt: skip


async def test_graph_actions(client: httpx.AsyncClient) -> None:
    graph = (await call(client, "graph", "aget_graph")).json()
    assert [n["iri"] for n in graph["nodes"]] == ["ex:alice", "ex:bob", "ex:paris", "ex:tfrobot"]
    assert len(graph["edges"]) == 4
    nodes = (await call(client, "graph", "aget_nodes", {"page": 2, "page_size": 3})).json()
    assert ([n["iri"] for n in nodes["items"]], nodes["total"]) == (["ex:tfrobot"], 4)
    bob = {"iri": "ex:bob", "node_version": 1, "label": "Robert"}
    assert (await call(client, "graph", "aupdate_node", bob)).status_code == 200
    edge = {"source": "ex:alice", "target": "ex:paris", "property": "ex:livesIn"}
    relabel = {**edge, "edge_version": 1, "label": "resides in"}
    assert (await call(client, "graph", "aupdate_edge", relabel)).status_code == 200
    graph = (await call(client, "graph", "aget_graph")).json()
    assert graph["nodes"][1] == {"iri": "ex:bob", "label": "Robert", "cls": "Person", "properties": {"age": 29},
                                 "version": 2}  # fmt: skip
    assert {"source": "ex:alice", "target": "ex:paris", "label": "resides in", "property": "ex:livesIn",
            "properties": {"since": 2019}, "version": 2} in graph["edges"]  # fmt: skip
    assert (await call(client, "graph", "adelete_edge", edge)).status_code == 200
    assert (await call(client, "graph", "adelete_node", {"iri": "ex:bob"})).status_code == 200
    graph = (await call(client, "graph", "aget_graph")).json()
    assert [n["iri"] for n in graph["nodes"]] == ["ex:alice", "ex:paris", "ex:tfrobot"]
    assert [(e["source"], e["target"]) for e in graph["edges"]] == [("ex:alice", "ex:tfrobot")]


async def test_prompt_render_and_config(client: httpx.AsyncClient) -> None:
    rendered = await call(client, "prompt", "arender", {"variables": {"robot": "R2", "user": "Luke", "language": "en"}})
    assert rendered.json() == {
        "ok": True,
        "text": "You are R2. Answer Luke in en.",
        "error": None,
        "line": None,
        "variables": ["language", "robot", "user"],
    }
    configured = await call(client, "prompt", "aset_template", {"template": "Hi {{ name }}"})
    assert configured.json()["changed"] == ["template"]
    assert configured.json()["config"]["template"] == "Hi {{ name }}"
    assert (await call(client, "prompt", "arender", {"variables": {"name": "Ada"}})).json()["text"] == "Hi Ada"


async def test_sync_action(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/robots/broken/components/exploding/actions/get_answer", json={"plus": 1})
    assert (response.status_code, response.json()) == (200, 43)


async def test_openapi_docs(client: httpx.AsyncClient) -> None:
    assert (await client.get("/docs")).status_code == 200
    paths = (await client.get("/openapi.json")).json()["paths"]
    assert set(paths) == {
        "/api/robots",
        "/api/robots/{robot}/components",
        "/api/robots/{robot}/components/{component}/actions",
        "/api/robots/{robot}/components/{component}/actions/{action}",
        "/api/robots/{robot}/chat",
        "/api/robots/{robot}/chat/confirmations/{confirm_id}",
    }


def test_lifespan_starts_and_warns_without_tokens(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="tfrobotserver")
    app = create_app(ServerSettings(data_dir=tmp_path), robots=[build_demo_robot("lifespan")])
    with TestClient(app, base_url="http://127.0.0.1") as client:
        assert client.get("/api/robots").json()[0]["name"] == "lifespan"
    assert "no token and no local secret" in caplog.text


async def test_the_app_can_be_closed_and_started_again(settings: ServerSettings) -> None:
    """Regression: a second lifespan (a new test client, a reload) found the components' stores closed."""
    app = create_app(settings, robots=robots())
    for _ in range(2):
        async with (
            app.router.lifespan_context(app),
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as client,
        ):
            response = await client.post(
                ACTIONS.format(component="conversations", action="aget_conversations"), json={}
            )
            assert response.status_code == 200, response.text
