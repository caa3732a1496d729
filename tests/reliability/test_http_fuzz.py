"""Schemathesis against the server's own OpenAPI, in process on the ASGI app: no 500s, anywhere.

The generic action route takes any JSON object, so the document is extended with one concrete path per
action of every hosted robot, whose request body is that action's own `paramsSchema` (what the server
publishes for it): schemathesis then generates valid and invalid parameters for every action. Actions
added to a robot are picked up without editing this file. `RELIABILITY_SOAK=1` runs more examples.
The same runs on PostgreSQL (a fresh database per run), where text and JSONB refuse what SQLite takes.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, settings
from pydantic import SecretStr
from schemathesis.python.asgi import shutdown_lifespans
from sqlalchemy.engine import make_url

from tests.conftest import pg_execute, run_sync
from tests.reliability.servers import ADMIN
from tfrobotserver.app.factory import create_app
from tfrobotserver.app.runtime import load_robots
from tfrobotserver.app.settings import ServerSettings, TokenConfig

WRITE = "schemathesis-writer-5e1b7d3f"
EXAMPLES = 300 if os.environ.get("RELIABILITY_SOAK") == "1" else 25
PG_EXAMPLES = 300 if os.environ.get("RELIABILITY_SOAK") == "1" else 10
"""Fewer on PostgreSQL in the fast run: the generated inputs are the same kinds, each call costs more."""
CALLS: dict[int, int] = {}
"""Responses by status, printed at the end of the module (the README's figures)."""
PG_CALLS: dict[int, int] = {}
"""The same on PostgreSQL."""
DATA = Path(os.environ.get("TMPDIR", "/tmp")) / f"tfrobot-schemathesis-{os.getpid()}"


def _app(database_url: str | None = None) -> FastAPI:
    DATA.mkdir(parents=True, exist_ok=True)
    tokens = [TokenConfig(name="writer", scopes=["write"], secret=SecretStr(WRITE))]
    settings = ServerSettings(data_dir=DATA, tokens=tokens, database_url=database_url)
    return create_app(settings, robots=load_robots(settings.robots))


def _hoist_defs(schema: dict[str, Any], components: dict[str, Any], prefix: str) -> dict[str, Any]:
    """Move a JSON Schema's `$defs` under the document's components, rewriting its references."""
    schema = copy.deepcopy(schema)
    defs = schema.pop("$defs", {})
    text = json.dumps(schema)
    for name in defs:
        text = text.replace(f'"#/$defs/{name}"', f'"#/components/schemas/{prefix}{name}"')
    for name, definition in defs.items():
        body = json.dumps(definition)
        for other in defs:
            body = body.replace(f'"#/$defs/{other}"', f'"#/components/schemas/{prefix}{other}"')
        components[f"{prefix}{name}"] = json.loads(body)
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def action_document(app: FastAPI) -> dict[str, Any]:
    """The app's OpenAPI document plus one path per hosted action with its params schema."""
    doc = copy.deepcopy(app.openapi())
    components = doc.setdefault("components", {}).setdefault("schemas", {})
    generic = doc["paths"]["/api/robots/{robot}/components/{component}/actions/{action}"]["post"]
    for robot in app.state.runtime.robots.values():
        for component_name, component in robot.components.items():
            for name, bound in type(component).tfs_bound_actions().items():
                operation = copy.deepcopy(generic)
                operation["parameters"] = []
                operation["operationId"] = f"{robot.name}.{component_name}.{name}"
                schema = _hoist_defs(bound.params_schema, components, f"{robot.name}_{component_name}_{name}_")
                operation["requestBody"] = {"required": True, "content": {"application/json": {"schema": schema}}}
                doc["paths"][f"/api/robots/{robot.name}/components/{component_name}/actions/{name}"] = {
                    "post": operation
                }
    return doc


APP = _app()
DOCUMENT = action_document(APP)
SCHEMA = schemathesis.openapi.from_dict(DOCUMENT)
SCHEMA.app = APP
PG_DATABASE = f"tfrobot_fuzz_{uuid.uuid4().hex[:10]}"
"""Created when the module's tests start, dropped when they end (the app connects on its first request)."""
PG_APP = _app(make_url(ADMIN).set(drivername="postgresql+asyncpg", database=PG_DATABASE).render_as_string(False))
PG_SCHEMA = schemathesis.openapi.from_dict(action_document(PG_APP))
PG_SCHEMA.app = PG_APP


@pytest.fixture(scope="module", autouse=True)
def _close_app() -> Any:
    run_sync(pg_execute(ADMIN, f'CREATE DATABASE "{PG_DATABASE}"'))
    try:
        yield
        shutdown_lifespans()  # the PostgreSQL app's engine closes on the event loop its connections belong to
    finally:
        run_sync(pg_execute(ADMIN, f'DROP DATABASE IF EXISTS "{PG_DATABASE}" WITH (FORCE)'))
    asyncio.run(APP.state.runtime.aclose())
    operations = sum(map(len, DOCUMENT["paths"].values()))
    print(f"\nschemathesis: {sum(CALLS.values())} calls, {operations} operations, by status {sorted(CALLS.items())}")
    print(f"schemathesis on PostgreSQL: {sum(PG_CALLS.values())} calls, by status {sorted(PG_CALLS.items())}")


_HEALTH = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture]


def _check(case: schemathesis.Case, calls: dict[int, int]) -> None:
    # the server's own name: any other Host is refused before a route sees the case (DNS rebinding guard)
    response = case.call(headers={"Authorization": f"Bearer {WRITE}"}, base_url="http://127.0.0.1")
    calls[response.status_code] = calls.get(response.status_code, 0) + 1
    assert response.status_code < 500, f"{case.method} {case.formatted_path} {case.body!r}: {response.text}"
    if response.status_code >= 400:
        body = response.json()
        assert {"error", "message"} <= set(body), body
        assert body["error"] != "host_not_allowed", body  # the fuzzing must reach the routes


@SCHEMA.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=_HEALTH)
def test_no_server_errors(case: schemathesis.Case) -> None:
    _check(case, CALLS)


@PG_SCHEMA.parametrize()
@settings(max_examples=PG_EXAMPLES, deadline=None, suppress_health_check=_HEALTH)
def test_no_server_errors_on_postgresql(case: schemathesis.Case) -> None:
    """Regression: on PostgreSQL, NUL characters in documents, nodes and edges (and in the searches and
    reads of them) were 500s in 5 operations."""
    _check(case, PG_CALLS)


async def test_a_body_that_is_not_utf8_is_a_422(client: httpx.AsyncClient) -> None:
    """Regression (found by schemathesis): a non-UTF-8 body made the error handler itself fail with a 500."""
    for body in (b"\x80", b'{"page": "\xff"}', b"\xfe\xff\x00{"):
        headers = {"Content-Type": "application/json"}
        response = await client.post(
            "/api/robots/demo/components/memory/actions/aget_docs", content=body, headers=headers
        )
        assert response.status_code == 422, response.text
        assert response.json()["error"] == "invalid_params"


@pytest.mark.parametrize(
    ("action", "params"),
    [
        ("aget_doc", {"doc_id": 2**63}),
        ("adelete_doc", {"doc_id": 2**31}),
        ("aupdate_doc", {"doc_id": 2**64, "keywords": []}),
        ("adelete_docs", {"doc_ids": [1, 2**63]}),
        ("aget_docs", {"page": 2**62}),
    ],
)
async def test_an_id_beyond_the_database_range_is_a_422(
    client: httpx.AsyncClient, action: str, params: dict[str, Any]
) -> None:
    """Regression (found by schemathesis): such ids reached the database and failed there with a 500."""
    response = await client.post(f"/api/robots/demo/components/memory/actions/{action}", json=params)
    assert response.status_code == 422, response.text
