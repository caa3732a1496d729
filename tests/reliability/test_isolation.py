"""Isolation: two robots on one database (a SQLite file, a PostgreSQL database) see only their own
conversations, documents and graph. Robot beta is given robot alpha's ids in every read, update and delete
action it has (enumerated from its components, so a new action is tried without editing this file) and in
its chat; every attempt is refused (404/422) or touches nothing, and alpha's data is unchanged afterwards.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.tfrobotserver.conftest import act, serve, server_url
from tfrobotserver.app.factory import create_app
from tfrobotserver.app.settings import ServerSettings
from tfrobotserver.robot.base import Robot
from tfrobotserver.robot.demo import build_demo_robot
from tfrobotserver.robot.factory.brain.memory.memory_component import MemoryComponent

__all__ = ["serve", "server_url"]

FILLERS: dict[str, Any] = {
    "keywords": ["beta-was-here"],
    "metadata": {"beta": True},
    "label": "beta was here",
    "properties": {"beta": True},
    "message": "hello from beta",
    "depth": 1,
    "doc_version": 1,  # the version alpha's rows have: the update is refused for being beta's, not for being stale
    "node_version": 1,
    "edge_version": 1,
    "step": 0,  # the first LLM step of alpha's turn (the request view)
}
"""Values for the other parameters an action needs next to the ids."""
READ_OR_CHANGE = {"get", "get_one", "get_list", "get_graph", "update", "delete"}
"""The operations tried: creating a row with alpha's key in beta's collection makes a row of beta's own."""


async def _alpha_ids(client: httpx.AsyncClient) -> dict[str, Any]:
    """Alpha's data, made for the occasion: a conversation, a document, a node and an edge of its own."""
    turn = await client.post("/api/robots/alpha/chat", json={"message": "weather in Paris and Tokyo?"})
    assert turn.status_code == 200, turn.text
    doc = await act(
        client, "memory", "acreate_doc", {"file_uri": "memory://alpha/secret.txt", "file_type": "txt",
                                          "text": "alpha's secret"}, robot="alpha",
    )  # fmt: skip
    node = {"iri": "ex:alpha-only", "label": "Alpha only", "cls": "Secret"}
    await act(client, "graph", "acreate_node", node, robot="alpha")
    edge = {"source": "ex:alpha-only", "target": "ex:alice", "property": "ex:alphaOnly", "label": "alpha only"}
    await act(client, "graph", "acreate_edge", edge, robot="alpha")
    conversation_id = turn.json()["conversationId"]
    messages = await act(client, "conversations", "aget_messages", {"conversation_id": conversation_id}, robot="alpha")
    return {
        "conversation_id": conversation_id,
        "msg_id": messages["items"][0]["msgId"],
        "doc_id": doc["docId"],
        "doc_ids": [doc["docId"]],
        "iri": "ex:alpha-only",
        "source": "ex:alpha-only",
        "target": "ex:alice",
        "property": "ex:alphaOnly",
    }


async def _snapshot(client: httpx.AsyncClient, robot: str, conversation_id: str | None = None) -> dict[str, Any]:
    """Everything a robot has, as its own actions list it."""
    shot = {
        "docs": await act(client, "memory", "aget_docs", {"page_size": 200}, robot=robot),
        "graph": await act(client, "graph", "aget_graph", {"limit": 10_000}, robot=robot),
        "conversations": await act(client, "conversations", "aget_conversations", {"page_size": 200}, robot=robot),
    }
    if conversation_id is not None:
        shot["messages"] = await act(
            client, "conversations", "aget_messages", {"conversation_id": conversation_id}, robot=robot
        )
    return shot


async def _attempts(client: httpx.AsyncClient, ids: dict[str, Any]) -> list[tuple[str, int, Any]]:
    """Every read/update/delete action of beta that takes one of alpha's ids, called with them."""
    tried: list[tuple[str, int, Any]] = []
    components = (await client.get("/api/robots/beta/components")).json()
    for component in components:
        name = component["name"]
        for action in (await client.get(f"/api/robots/beta/components/{name}/actions")).json():
            schema = action["paramsSchema"]
            params_named = set(schema.get("properties", {}))
            if action["alias"]["resourceOpType"] not in READ_OR_CHANGE or not params_named & set(ids):
                continue
            params: dict[str, Any] = {}
            for param in sorted(params_named & set(ids)) + sorted(schema.get("required", [])):
                if param in params:
                    continue
                if param not in ids and param not in FILLERS:
                    pytest.fail(f"beta/{name}/{action['name']} needs {param!r}: add a value to FILLERS")
                params[param] = ids.get(param, FILLERS.get(param))
            response = await client.post(f"/api/robots/beta/components/{name}/actions/{action['name']}", json=params)
            tried.append((f"{name}/{action['name']}", response.status_code, response.json()))
    return tried


async def test_a_robot_given_another_robots_ids_reaches_none_of_its_data(
    serve: Callable[[list[Robot] | None], httpx.AsyncClient], server_url: str
) -> None:
    async with serve([build_demo_robot("alpha"), build_demo_robot("beta")]) as client:
        ids = await _alpha_ids(client)
        before = await _snapshot(client, "alpha", ids["conversation_id"])
        beta_before = await _snapshot(client, "beta")

        tried = await _attempts(client, ids)
        chat = [
            await client.post(
                "/api/robots/beta/chat", json={"message": "go on", "conversationId": ids["conversation_id"]}
            ),
            await client.post(
                "/api/robots/beta/chat",
                json={"message": "go on", "conversationId": ids["conversation_id"]},
                headers={"Accept": "text/event-stream"},
            ),
            await client.post(
                "/api/robots/beta/chat",
                json={"message": "go on", "conversationId": ids["conversation_id"], "dryRun": True},
            ),
            await client.post(  # a create action, so not enumerated above, but it reads the conversation
                "/api/robots/beta/components/llm/actions/acall",
                json={"message": "go on", "conversation_id": ids["conversation_id"]},
            ),
        ]
        tried += [(f"chat #{n}", r.status_code, r.json()) for n, r in enumerate(chat)]

        touched_nothing = {"memory/adelete_docs": 0}  # a batch delete of ids it does not have deletes none
        for where, status, body in tried:
            if where in touched_nothing:
                assert (status, body) == (200, touched_nothing[where]), where
            else:
                assert status in (404, 422), (where, status, body)
        assert [s for w, s, _ in tried if w.startswith(("conversations/", "chat"))] == [404] * 6
        assert await _snapshot(client, "alpha", ids["conversation_id"]) == before
        after = await _snapshot(client, "beta")
        assert after == beta_before
        assert ids["doc_id"] not in [d["docId"] for d in after["docs"]["items"]]
        assert "ex:alpha-only" not in [n["iri"] for n in after["graph"]["nodes"]]
        assert ids["conversation_id"] not in [c["conversationId"] for c in after["conversations"]["items"]]
    dialect = server_url.split(":", 1)[0]
    print(f"\nisolation on {dialect}: {len(tried)} attempts with another robot's ids, {len(tried)} held:")
    print("  " + ", ".join(f"{where} {status}" for where, status, _ in tried))


def test_two_robots_naming_one_collection_are_refused(tmp_path: Any) -> None:
    shared = [
        Robot("alpha", {"memory": MemoryComponent(collection="kb")}),
        Robot("beta", {"memory": MemoryComponent(collection="kb")}),
    ]
    with pytest.raises(ValueError, match="robots 'alpha' and 'beta' both keep documents in collection 'kb'"):
        create_app(ServerSettings(data_dir=tmp_path), robots=shared)
    own = [Robot("alpha", {"a": MemoryComponent(collection="kb"), "b": MemoryComponent(collection="kb")})]
    create_app(ServerSettings(data_dir=tmp_path), robots=own)  # one robot's own components may share one
