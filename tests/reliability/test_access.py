"""Access: every action of every robot refuses a missing or wrong token (401) and a read token on a write
action (403); tokens are compared in constant time and never logged or echoed; CORS is closed by default.

The actions are enumerated from the running server (robots from the default configuration plus the test
robots), so an action added anywhere is checked without editing this file.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from tests.tfrobotserver.app.conftest import robots
from tfrobotserver.app.factory import create_app
from tfrobotserver.app.runtime import load_robots
from tfrobotserver.app.settings import ServerSettings, TokenConfig

READ = "reliability-reader-7f3a9c1e55d0"
WRITE = "reliability-writer-0b8e6d2a4c91"
WRONG = [None, "", "Bearer", "Bearer ", "Basic " + READ, "bearer wrong-token-0000000000", f"Bearer {READ}x", READ]


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    tokens = [
        TokenConfig(name="reader", scopes=["read"], secret=SecretStr(READ)),
        TokenConfig(name="writer", scopes=["write"], secret=SecretStr(WRITE)),
    ]
    settings = ServerSettings(data_dir=tmp_path, tokens=tokens)
    every_robot = [*load_robots(settings.robots), *(r for r in robots() if r.name != "demo")]
    app = create_app(settings, robots=every_robot)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as client:
        yield client
    await app.state.runtime.aclose()


def _auth(header: str | None) -> dict[str, str]:
    return {} if header is None else {"Authorization": header}


async def all_actions(client: httpx.AsyncClient) -> list[tuple[str, dict[str, Any]]]:
    """(url, action info) of every action of every component of every robot the server hosts."""
    found: list[tuple[str, dict[str, Any]]] = []
    headers = _auth(f"Bearer {READ}")
    for robot in (await client.get("/api/robots", headers=headers)).json():
        base = f"/api/robots/{robot['name']}/components"
        for component in (await client.get(base, headers=headers)).json():
            url = f"{base}/{component['name']}/actions"
            for action in (await client.get(url, headers=headers)).json():
                found.append((f"{url}/{action['name']}", action))
    return found


async def test_every_action_refuses_missing_and_wrong_tokens(server: httpx.AsyncClient) -> None:
    actions = await all_actions(server)
    assert len(actions) >= 15, [url for url, _ in actions]
    for url, _ in actions:
        for header in WRONG:
            response = await server.post(url, json={}, headers=_auth(header))
            assert response.status_code == 401, (url, header, response.text)
            assert READ not in response.text
            assert WRITE not in response.text
    print(f"\naccess: {len(actions)} actions x {len(WRONG)} missing or wrong headers: all 401")
    for url in ["/api/robots", "/api/robots/demo/components", "/api/robots/demo/components/prompt/actions"]:
        for header in WRONG:
            assert (await server.get(url, headers=_auth(header))).status_code == 401, (url, header)


async def test_a_read_token_on_every_write_action_is_403(server: httpx.AsyncClient) -> None:
    writes = 0
    for url, action in await all_actions(server):
        robot, component, name = url.split("/")[3], url.split("/")[5], action["name"]
        runtime_action = await _bound(server, robot, component, name)
        response = await server.post(url, json={}, headers=_auth(f"Bearer {READ}"))
        if runtime_action.is_read:
            assert response.status_code != 403, (url, response.text)
            assert response.status_code != 401
        else:
            writes += 1
            assert response.status_code == 403, (url, response.text)
            assert response.json()["error"] == "forbidden"
            with_write = await server.post(url, json={}, headers=_auth(f"Bearer {WRITE}"))
            assert with_write.status_code not in (401, 403), (url, with_write.text)
    assert writes >= 5
    print(f"access: {writes} write actions refused to a read token")


async def _bound(client: httpx.AsyncClient, robot: str, component: str, name: str) -> Any:
    app = client._transport.app  # type: ignore[attr-defined]
    comp = app.state.runtime.robots[robot].components[component]
    return type(comp).tfs_bound_actions()[name]


async def test_tokens_are_compared_in_constant_time_against_every_token(
    server: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """hmac.compare_digest, once per configured token whatever matches (no early exit, no `==`)."""
    calls: list[tuple[bytes, bytes]] = []
    real: Callable[..., bool] = hmac.compare_digest

    def spy(a: Any, b: Any) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    for secret in (READ, WRITE, "not-a-token-000000000"):
        calls.clear()
        await server.get("/api/robots", headers=_auth(f"Bearer {secret}"))
        assert len(calls) == 2, secret
        assert {a for a, _ in calls} == {READ.encode(), WRITE.encode()}


async def test_tokens_are_never_logged_or_echoed(server: httpx.AsyncClient, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    bodies: list[str] = []
    for secret in (READ, WRITE, "wrong-token-that-should-not-appear-1"):
        for url, _ in (await all_actions(server))[:50]:
            headers = {**_auth(f"Bearer {secret}"), "Content-Type": "application/json"}
            response = await server.post(url, content=b"{not json", headers=headers)
            bodies.append(response.text + str(response.headers))
    text = caplog.text + "".join(bodies)
    for secret in (READ, WRITE, "wrong-token-that-should-not-appear-1"):
        assert secret not in text


@pytest.mark.parametrize("origin", ["http://evil.example", "http://127.0.0.1:9999", "null"])
async def test_cors_is_closed_by_default(server: httpx.AsyncClient, origin: str) -> None:
    preflight = await server.options(
        "/api/robots/demo/components/prompt/actions/aset_template",
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization",
        },
    )
    assert preflight.status_code >= 400
    assert not any(h.lower().startswith("access-control-allow") for h in preflight.headers)
    simple = await server.get("/api/robots", headers={"Origin": origin, "Authorization": f"Bearer {READ}"})
    assert simple.status_code == 403  # a foreign page gets nothing, not even an answer it could not read
    assert simple.json()["error"] == "origin_not_allowed"
    assert not any(h.lower().startswith("access-control-allow") for h in simple.headers)
