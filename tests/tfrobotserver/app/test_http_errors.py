"""Every error status the API answers: 401, 403, 404, 422, 500 and 503, each with an ErrorBody."""

from __future__ import annotations

import logging

import httpx
import pytest

from .conftest import INTERNAL_DETAIL, READ_SECRET, WRITE_SECRET, bearer, call


async def test_401_without_or_with_a_bad_token(secured: httpx.AsyncClient, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    missing = await secured.get("/api/robots")
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"] == "Bearer"
    assert missing.json() == {
        "error": "unauthorized",
        "message": "send `Authorization: Bearer <token>`; this server requires a token",
    }
    for headers in (bearer("wrong-secret-0123456789"), {"Authorization": f"Basic {READ_SECRET}"}, bearer("")):
        response = await call(secured, "memory", "aget_docs", headers=headers)
        assert response.status_code == 401, headers
        assert response.json()["error"] == "unauthorized"
    assert READ_SECRET not in caplog.text
    assert "wrong-secret" not in caplog.text


async def test_403_when_a_read_token_calls_a_write_action(secured: httpx.AsyncClient) -> None:
    assert (await call(secured, "memory", "aget_docs", headers=bearer(READ_SECRET))).status_code == 200
    for action, params in (
        ("aupdate_doc", {"doc_id": 1, "doc_version": 1, "keywords": [], "metadata": {}}),
        ("adelete_docs", {"doc_ids": [1]}),
    ):
        response = await call(secured, "memory", action, params, headers=bearer(READ_SECRET))
        assert response.status_code == 403
        assert response.json()["error"] == "forbidden"
        assert "needs the 'write' scope; token 'reader' has ['read']" in response.json()["message"]
    assert (await call(secured, "memory", "aget_docs", headers=bearer(READ_SECRET))).json()["total"] == 42


async def test_write_token_reads_and_writes(secured: httpx.AsyncClient) -> None:
    headers = bearer(WRITE_SECRET)
    assert (await secured.get("/api/robots", headers=headers)).status_code == 200
    assert (await call(secured, "memory", "adelete_docs", {"doc_ids": [1]}, headers=headers)).json() == 1
    me = (await call(secured, "memory", "aget_current_user", headers=headers)).json()
    assert me == {"userId": "writer", "displayName": "writer", "scopes": ["read", "write"]}


@pytest.mark.parametrize(
    ("method", "path", "message"),
    [
        ("GET", "/api/robots/nobody/components", "no robot 'nobody'; known robots: ['broken', 'demo']"),
        ("GET", "/api/robots/demo/components/nothing/actions", "robot 'demo' has no component 'nothing'; it has"),
        ("POST", "/api/robots/nobody/components/memory/actions/aget_docs", "no robot 'nobody'"),
        ("POST", "/api/robots/demo/components/nothing/actions/aget_docs", "has no component 'nothing'"),
        ("POST", "/api/robots/demo/components/memory/actions/aget_nothing", "has no action 'aget_nothing'; it has"),
        ("GET", "/api/elsewhere", "Not Found"),
    ],
)
async def test_404(client: httpx.AsyncClient, method: str, path: str, message: str) -> None:
    response = await client.request(method, path, json={} if method == "POST" else None)
    assert response.status_code == 404
    assert response.json()["error"] == "not_found"
    assert message in response.json()["message"]


async def test_422_lists_every_invalid_field(client: httpx.AsyncClient) -> None:
    response = await call(client, "memory", "aget_docs", {"page": 0, "page_size": "many", "pgae": 2})
    assert response.status_code == 422
    assert response.json() == {
        "error": "invalid_params",
        "message": "3 invalid parameter(s) for 'aget_docs'; see `errors`",
        "errors": [
            {"path": "page", "message": "Input should be greater than or equal to 1",
             "type": "greater_than_equal", "value": 0},
            {"path": "page_size", "message": "Input should be a valid integer, unable to parse string as an integer",
             "type": "int_parsing", "value": "many"},
            {"path": "pgae", "message": "Extra inputs are not permitted", "type": "extra_forbidden", "value": 2},
        ],
    }  # fmt: skip


async def test_422_for_missing_nested_and_non_object_params(client: httpx.AsyncClient) -> None:
    missing = await call(client, "memory", "aupdate_doc", {"keywords": ["a", 3]})
    assert [(e["path"], e["type"]) for e in missing.json()["errors"]] == [
        ("doc_id", "missing"),
        ("doc_version", "missing"),
        ("keywords.1", "string_type"),
        ("metadata", "missing"),
    ]
    array = await call(client, "memory", "aget_docs", [1, 2])
    assert array.status_code == 422
    assert array.json()["errors"][0]["path"] == "(params)"
    broken = await client.post(
        "/api/robots/demo/components/memory/actions/aget_docs",
        content=b"{nope",
        headers={"Content-Type": "application/json"},
    )
    assert broken.status_code == 422
    assert broken.json()["errors"][0]["type"] == "json_invalid"


async def test_422_when_the_component_refuses_a_value(client: httpx.AsyncClient) -> None:
    response = await call(client, "memory", "aget_doc", {"doc_id": 999})
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {"path": "doc_id", "message": "no document 999 in collection 'demo'", "type": "action_input", "value": 999}
    ]
    template = await call(client, "prompt", "aset_template", {"template": "{% if %}"})
    assert template.status_code == 422
    assert template.json()["errors"][0]["path"] == "template"
    assert "syntax error on line 1" in template.json()["errors"][0]["message"]


async def test_500_has_an_error_id_and_no_internals(
    client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="tfrobotserver")
    for action in ("aget_boom", "get_wrong_type", "aget_missing_file"):
        response = await client.post(f"/api/robots/broken/components/exploding/actions/{action}", json={})
        assert response.status_code == 500
        body = response.json()
        assert set(body) == {"error", "message", "errorId"}
        assert body["error"] == "internal_error"
        assert len(body["errorId"]) == 32
        assert body["errorId"] in body["message"]
        assert INTERNAL_DETAIL not in response.text
        assert "Traceback" not in response.text
        assert body["errorId"] in caplog.text
    assert INTERNAL_DETAIL in caplog.text  # the log keeps what the response hides


async def test_503_when_the_database_refuses_connections(
    client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="tfrobotserver")
    response = await client.post("/api/robots/broken/components/exploding/actions/aget_refused", json={})
    assert response.status_code == 503
    assert response.headers["retry-after"] == "1"
    body = response.json()
    assert body["error"] == "unavailable"
    assert "the database is unavailable right now; retry in a moment" in body["message"]
    assert body["errorId"] in body["message"]
    assert body["errorId"] in caplog.text
    assert "Connect call failed" not in response.text


@pytest.mark.parametrize(
    ("component", "action"), [("memory", "aget_docs"), ("graph", "aget_nodes"), ("llm", "aget_config_changes")]
)
async def test_a_page_beyond_what_a_database_can_offset_is_a_422(
    client: httpx.AsyncClient, component: str, action: str
) -> None:
    """Regression (found by schemathesis): page 461168601842738792 reached SQLite as an OFFSET (500)."""
    response = await call(client, component, action, {"page": 461168601842738792})
    assert response.status_code == 422, response.text
    assert [(e["path"], e["type"]) for e in response.json()["errors"]] == [("page", "less_than_equal")]


async def test_an_empty_robot_segment_is_a_404_that_says_so(client: httpx.AsyncClient) -> None:
    """Regression (issue 13, F): the console asked `GET /api/robots//chat` before a robot was chosen and
    read a bare "Not Found"."""
    for method, path in [("GET", "/api/robots//chat"), ("POST", "/api/robots//components/llm/actions/adry_run")]:
        response = await client.request(method, path, json={} if method == "POST" else None)
        assert response.status_code == 404
        assert response.json() == {
            "error": "not_found",
            "message": f"{path} names no robot (the segment after /api/robots/ is empty); "
            "GET /api/robots lists the robots: put one's name there",
        }
