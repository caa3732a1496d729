"""The demo robot served over HTTP on each SQL store: a SQLite file and this session's PostgreSQL database."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tfrobotserver.app.factory import create_app
from tfrobotserver.app.settings import ServerSettings
from tfrobotserver.robot.base import Robot
from tfrobotserver.robot.demo import build_demo_robot

from ..conftest import pg_execute, run_sync

SERVER_TABLES = "memory_docs, graph_nodes, graph_edges, component_configs, config_changes, robot_claims"


def empty_server_database(request: pytest.FixtureRequest, directory: Path) -> str:
    """An empty server database of the kind `request.param` names: a SQLite file in `directory`, or this
    session's PostgreSQL database with the server's tables dropped (the message store's left migrated)."""
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{directory / 'server.sqlite3'}"
    url: str = request.getfixturevalue("pg_url")
    run_sync(
        pg_execute(
            url,
            f"DROP TABLE IF EXISTS {SERVER_TABLES} CASCADE",
            "TRUNCATE messages, conversations, documents RESTART IDENTITY",
        )
    )
    return url


@pytest.fixture(params=["sqlite", "postgresql"])
def server_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty server database of each kind (the message store's tables migrated on PostgreSQL)."""
    return empty_server_database(request, tmp_path)


@pytest.fixture
async def serve(server_url: str, tmp_path: Path) -> AsyncIterator[Callable[[list[Robot] | None], Any]]:
    """`async with serve() as client`: an app over `server_url`; call it again to 'restart' on the same data."""
    apps: list[Any] = []

    def make(robots: list[Robot] | None = None) -> httpx.AsyncClient:
        app = create_app(
            ServerSettings(data_dir=tmp_path, database_url=server_url), robots=robots or [build_demo_robot()]
        )
        apps.append(app)
        return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1")

    yield make
    for app in apps:
        await app.state.runtime.aclose()


@pytest.fixture
async def api(serve: Callable[[list[Robot] | None], httpx.AsyncClient]) -> AsyncIterator[httpx.AsyncClient]:
    """The demo robot on `server_url`."""
    async with serve(None) as client:
        yield client


async def act(client: httpx.AsyncClient, component: str, action: str, params: Any = None, robot: str = "demo") -> Any:
    """Call an action and return its JSON result (any status other than 200 fails with the body)."""
    response = await client.post(
        f"/api/robots/{robot}/components/{component}/actions/{action}", json={} if params is None else params
    )
    assert response.status_code == 200, response.text
    return response.json()


async def refused(
    client: httpx.AsyncClient, component: str, action: str, params: Any = None, status: int = 422
) -> dict[str, Any]:
    """Call an action that must refuse its parameters (422, or `status`: 409 for a conflict) and return the
    error body."""
    response = await client.post(
        f"/api/robots/demo/components/{component}/actions/{action}", json={} if params is None else params
    )
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    return body
