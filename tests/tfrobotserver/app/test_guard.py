"""The browser guard's rules one by one: which Host names, origins and content types pass, in process."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI, Request

from tfrobotserver.app.guard import BrowserGuard, HostPolicy, split_authority
from tfrobotserver.app.settings import ServerSettings


def _guarded(settings: ServerSettings) -> FastAPI:
    app = FastAPI()

    @app.api_route("/echo", methods=["GET", "POST", "PUT", "DELETE", "OPTIONS"])
    async def echo(request: Request) -> dict[str, str]:
        return {"body": (await request.body()).decode()}

    app.add_middleware(BrowserGuard, settings=settings)
    return app


async def _send(app: FastAPI, method: str, headers: dict[str, str], body: bytes = b"") -> httpx.Response:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:8000") as client:
        return await client.request(method, "/echo", headers=headers, content=body)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("localhost:8000", ("localhost", 8000)),
        ("LocalHost", ("localhost", None)),
        ("[::1]:9", ("::1", 9)),
        ("::1", ("::1", None)),
        ("127.0.0.1", ("127.0.0.1", None)),
    ],
)
def test_split_authority(value: str, expected: tuple[str, int | None]) -> None:
    assert split_authority(value) == expected


@pytest.mark.parametrize("value", ["localhost:99999", "localhost:8a", "[::1]x", "a b:80", "x/y", ""])
def test_split_authority_refuses_what_is_not_one(value: str) -> None:
    with pytest.raises(ValueError, match="is not"):
        split_authority(value)


def test_host_policy_loopback_bound_host_and_allowed_names() -> None:
    policy = HostPolicy.of(ServerSettings(allowed_hosts=["robots.example.com", "192.168.1.20"]))
    for name in ("localhost", "127.0.0.1", "127.0.0.9", "::1", "robots.example.com", "192.168.1.20"):
        assert policy.allows(name), name
    for name in ("attacker.example", "localhost.attacker.example", "10.0.0.1", "example.com", "robots"):
        assert not policy.allows(name), name
    assert policy.describe() == "localhost, robots.example.com, 127.0.0.1, 192.168.1.20, loopback addresses"


def test_host_policy_bound_to_all_interfaces_takes_any_address_but_no_other_name() -> None:
    policy = HostPolicy.of(ServerSettings(host="0.0.0.0"))
    assert policy.allows("10.1.2.3")
    assert policy.allows("fe80::1")
    assert not policy.allows("attacker.example")
    named = HostPolicy.of(ServerSettings(host="robots.internal"))
    assert named.allows("robots.internal")
    assert not named.allows("10.1.2.3")


async def test_a_foreign_host_is_refused_with_the_fix() -> None:
    response = await _send(_guarded(ServerSettings()), "GET", {"Host": "attacker.example:8000"})
    assert response.status_code == 403
    body = response.json()
    assert body["error"] == "host_not_allowed"
    assert "'attacker.example:8000'" in body["message"]
    assert "`allowed_hosts` in server.toml" in body["message"]
    assert "--allowed-host attacker.example" in body["message"]
    allowed = _guarded(ServerSettings(allowed_hosts=["Attacker.Example"]))
    assert (await _send(allowed, "GET", {"Host": "attacker.example:8000"})).status_code == 200


@pytest.mark.parametrize(
    ("origin", "status"),
    [
        ("http://127.0.0.1:8000", 200),
        ("http://127.0.0.1:8001", 403),
        ("http://localhost:8000", 403),  # not the Host this request names
        ("https://127.0.0.1:8000", 200),  # the same authority behind a TLS proxy
        ("null", 403),
        ("http://evil.example", 403),
        ("garbage", 403),
    ],
)
async def test_the_origin_must_be_the_requests_own(origin: str, status: int) -> None:
    response = await _send(_guarded(ServerSettings()), "POST", {"Origin": origin, "Content-Type": "application/json"})
    assert response.status_code == status, response.text
    if status == 403:
        assert response.json()["error"] == "origin_not_allowed"


async def test_allowed_origins_pass() -> None:
    app = _guarded(ServerSettings(allowed_origins=["https://robots.example.com"]))
    headers = {"Origin": "https://robots.example.com", "Content-Type": "application/json"}
    assert (await _send(app, "POST", headers)).status_code == 200


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE"])
@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded", "application/jsonx"])
async def test_state_changing_methods_need_json(method: str, content_type: str | None) -> None:
    headers = {"Content-Type": content_type} if content_type else {}
    response = await _send(_guarded(ServerSettings()), method, headers, b'{"a": 1}' if content_type else b"")
    assert response.status_code == 415
    assert response.json()["error"] == "unsupported_media_type"
    assert "send Content-Type: application/json" in response.json()["message"]


async def test_json_with_parameters_passes_and_safe_methods_need_none() -> None:
    app = _guarded(ServerSettings())
    response = await _send(app, "POST", {"Content-Type": "Application/JSON; charset=utf-8"}, b'{"a": 1}')
    assert response.json() == {"body": '{"a": 1}'}
    assert (await _send(app, "GET", {})).status_code == 200
    assert (await _send(app, "OPTIONS", {})).status_code == 200


@pytest.mark.parametrize(("site", "mode", "status"), [("cross-site", "cors", 403), ("same-site", "no-cors", 403),
                                                      ("same-origin", "cors", 200), ("none", "navigate", 200),
                                                      ("cross-site", "navigate", 200)])  # fmt: skip
async def test_fetch_metadata_without_an_origin(site: str, mode: str, status: int) -> None:
    response = await _send(_guarded(ServerSettings()), "GET", {"Sec-Fetch-Site": site, "Sec-Fetch-Mode": mode})
    assert response.status_code == status
