"""A real app over a temporary SQLite file, driven through httpx's ASGI transport."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from tfrobotserver.actions.alias import ActionAlias
from tfrobotserver.actions.component import TFSComponent
from tfrobotserver.actions.decorator import tfs_action
from tfrobotserver.app.factory import create_app
from tfrobotserver.app.settings import ServerSettings, TokenConfig
from tfrobotserver.robot.base import Robot
from tfrobotserver.robot.demo import build_demo_robot

READ_SECRET = "reader-secret-0123456789"
WRITE_SECRET = "writer-secret-0123456789"
INTERNAL_DETAIL = "db password is hunter2 at /srv/internal.py"


class Exploding(TFSComponent):
    """A component whose actions fail the way real ones do (for the 500 path)."""

    @tfs_action(alias=ActionAlias(resource="boom", resource_op_type="get"))
    async def aget_boom(self) -> int:
        raise RuntimeError(INTERNAL_DETAIL)

    @tfs_action(alias=ActionAlias(resource="boom", resource_op_type="get"))
    async def aget_missing_file(self) -> int:
        """An OSError that is not about the database: still a 500."""
        raise FileNotFoundError(2, "No such file or directory", "/srv/missing.pdf")

    @tfs_action(alias=ActionAlias(resource="boom", resource_op_type="get"))
    async def aget_refused(self) -> int:
        """What asyncpg raises, unwrapped, when PostgreSQL refuses connections: a 503."""
        raise ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 5432)")

    @tfs_action(alias=ActionAlias(resource="answer", resource_op_type="get"))
    def get_answer(self, plus: int = 0) -> int:
        """A sync action that works (run in the threadpool)."""
        return 42 + plus

    @tfs_action(alias=ActionAlias(resource="boom", resource_op_type="get"))
    def get_wrong_type(self) -> int:
        """A sync action whose result does not match its annotation."""
        return "not an int"  # type: ignore[return-value]


def robots() -> list[Robot]:
    return [build_demo_robot(), Robot("broken", {"exploding": Exploding()})]


ClientFactory = Callable[..., AsyncIterator[httpx.AsyncClient]]


@pytest.fixture
def settings(tmp_path: Path) -> ServerSettings:
    return ServerSettings(data_dir=tmp_path)


@pytest.fixture
async def client(settings: ServerSettings) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings, robots=robots())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as c:
        yield c
    await app.state.runtime.aclose()


@pytest.fixture
async def secured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[httpx.AsyncClient]:
    monkeypatch.setenv("TFROBOT_TEST_WRITER", WRITE_SECRET)
    tokens = [
        TokenConfig(name="reader", scopes=["read"], secret=SecretStr(READ_SECRET)),
        TokenConfig(name="writer", scopes=["write"], secret_env="TFROBOT_TEST_WRITER"),
    ]
    app = create_app(ServerSettings(data_dir=tmp_path, tokens=tokens), robots=robots())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as c:
        yield c
    await app.state.runtime.aclose()


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


ACTIONS = "/api/robots/demo/components/{component}/actions/{action}"


async def call(client: httpx.AsyncClient, component: str, action: str, params: Any = None, **kw: Any) -> httpx.Response:
    params = {} if params is None else params
    return await client.post(ACTIONS.format(component=component, action=action), json=params, **kw)
