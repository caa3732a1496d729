"""The browser guard over real HTTP, against a real `tfrobot serve` in local mode with `--no-local-token`
(nothing else stands in the way): what a DNS-rebound page, a foreign page's simple request, a form or a
preflight would send, for every route of the app and every action the server hosts.

Each test prints how many attacks it tried and how many held; an attack holds when the guard answers it
(403 for a Host or an origin, 415 for a content type) with an `ErrorBody` naming the fix, before any route
runs — no action's own 2xx, 404 or 422.
"""

from __future__ import annotations

import stat
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.security.conftest import LOCAL_SECRET, Served, all_actions, app_routes

FOREIGN_ORIGINS = ["http://evil.example", "http://127.0.0.2:8000", "http://localhost:1", "null", "https://127.0.0.1"]
FOREIGN_HOSTS = ["attacker.example", "127.0.0.1.nip.io", "localhost.attacker.example", "evil"]
NOT_JSON = ["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; b=x"]


@pytest.fixture(scope="module")
def http(guarded: Served) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=guarded.url, timeout=10) as client:
        yield client


def _refused(response: httpx.Response, status: int, error: str) -> bool:
    if response.status_code != status:
        return False
    body: dict[str, Any] = response.json()
    return body.get("error") == error and len(body.get("message", "")) > 40


def test_a_foreign_host_is_refused_on_every_route(http: httpx.Client, guarded: Served) -> None:
    routes = app_routes()
    assert {"/", "/docs", "/openapi.json", "/api/robots"} <= {path for _, path in routes}, routes
    tried = held = 0
    for method, path in routes:
        for name in FOREIGN_HOSTS:
            body: dict[str, Any] | None = {} if method == "POST" else None
            response = http.request(method, path, headers={"Host": f"{name}:{guarded.port}"}, json=body)
            tried += 1
            held += _refused(response, 403, "host_not_allowed")
            assert name in response.json()["message"]
            assert "allowed_hosts" in response.json()["message"], response.text
    print(f"\nDNS rebinding: {len(routes)} routes x {len(FOREIGN_HOSTS)} foreign Host names: {held}/{tried} refused")
    assert held == tried


def test_the_servers_own_names_are_served(http: httpx.Client, guarded: Served) -> None:
    for host in ("127.0.0.1", "localhost", "LOCALHOST", "127.0.0.1:1", f"127.0.0.1:{guarded.port}", "[::1]:9"):
        response = http.get("/api/robots", headers={"Host": host})
        assert response.status_code == 200, (host, response.text)
    assert http.get("/", headers={"Host": f"localhost:{guarded.port}"}).status_code == 200


def test_every_action_refuses_simple_requests_and_foreign_origins(http: httpx.Client, guarded: Served) -> None:
    actions = all_actions(guarded)
    assert len(actions) >= 30, [path for path, _ in actions]
    tried = held = 0
    for path, _ in actions:
        for content_type in [None, *NOT_JSON]:  # what a page may send cross-origin without a preflight
            headers = {"Content-Type": content_type} if content_type else {}
            response = http.post(path, content=b"{}" if content_type else b"", headers=headers)
            tried += 1
            held += _refused(response, 415, "unsupported_media_type")
            assert "send Content-Type: application/json" in response.json()["message"]
        for origin in FOREIGN_ORIGINS:  # a JSON request from a foreign page (a preflight would stop the browser)
            response = http.post(path, json={}, headers={"Origin": origin})
            tried += 1
            held += _refused(response, 403, "origin_not_allowed")
        for site in ("cross-site", "same-site"):  # a browser that sent no Origin still says where it came from
            response = http.post(path, json={}, headers={"Sec-Fetch-Site": site, "Sec-Fetch-Mode": "no-cors"})
            tried += 1
            held += _refused(response, 403, "origin_not_allowed")
    print(f"\nsimple requests and foreign origins: {len(actions)} actions, {held}/{tried} refused")
    assert held == tried


def test_the_servers_own_origin_and_plain_clients_pass(http: httpx.Client, guarded: Served) -> None:
    path = "/api/robots/demo/components/prompt/actions/aget_variables"
    own = [guarded.url, f"http://localhost:{guarded.port}"]
    for origin in own:
        host = origin.removeprefix("http://")
        response = http.post(path, json={}, headers={"Origin": origin, "Host": host, "Sec-Fetch-Site": "same-origin"})
        assert response.status_code == 200, (origin, response.text)
    assert http.post(path, json={}).status_code == 200  # curl, scripts: no Origin, no Sec-Fetch-*
    json_utf8 = {"Content-Type": "application/json; charset=utf-8"}
    assert http.post(path, content=b"", headers=json_utf8).status_code == 200  # empty JSON body means {}
    navigation = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}
    assert http.get("/", headers=navigation).status_code == 200  # a link to the console from elsewhere opens it
    assert http.post("/api/robots/demo/chat", json={"message": "hi"}, headers=navigation).status_code == 403


def test_no_preflight_and_no_answer_opens_cors(http: httpx.Client, guarded: Served) -> None:
    actions = all_actions(guarded)
    tried = 0
    for path, _ in actions:
        for origin in FOREIGN_ORIGINS:
            preflight = http.options(
                path,
                headers={
                    "Origin": origin,
                    "Access-Control-Request-Method": "POST",
                    "Access-Control-Request-Headers": "content-type, authorization",
                },
            )
            simple = http.post(path, content=b"{}", headers={"Origin": origin, "Content-Type": "text/plain"})
            for response in (preflight, simple):
                tried += 1
                assert response.status_code == 403, (path, origin, response.status_code)
                assert not [h for h in response.headers if h.lower().startswith("access-control-")], response.headers
    print(f"\nCORS: {tried} preflights and simple requests from {len(FOREIGN_ORIGINS)} origins, none opened")


def test_security_headers_on_every_route(http: httpx.Client) -> None:
    for method, path in app_routes():
        response = http.request(method, path, json={} if method == "POST" else None)
        headers = response.headers
        assert headers["x-content-type-options"] == "nosniff", path
        assert headers["x-frame-options"] == "DENY", path
        assert headers["referrer-policy"] == "no-referrer", path
        assert "frame-ancestors 'none'" in headers["content-security-policy"], path
        if path.startswith("/api/") or path == "/openapi.json":
            assert headers["cache-control"] == "no-store", path
            assert headers["content-security-policy"].startswith("default-src 'none'"), path
    console = http.get("/").headers["content-security-policy"]
    assert "script-src 'self';" in console
    assert "unsafe-inline" not in console.split("script-src", 1)[1].split(";")[0]
    docs = http.get("/docs")
    script_src = docs.headers["content-security-policy"].split("script-src", 1)[1].split(";")[0]
    assert script_src.split() == ["'self'", *script_src.split()[1:]]  # Swagger UI is served from here, no CDN
    assert "http" not in docs.headers["content-security-policy"]
    assert "'sha256-" in script_src
    assert "unsafe-inline" not in script_src
    assert http.get("/redoc").status_code == 404


def test_default_local_mode_wants_the_local_secret(default: Served) -> None:
    """As `make run` starts it: the guard, and no API answer without the secret printed at start."""
    with httpx.Client(base_url=default.url) as client:
        missing = client.get("/api/robots")
        assert missing.status_code == 401
        assert "local-token" in missing.json()["message"]
        wrong = client.get("/api/robots", headers={"Authorization": "Bearer not-the-local-secret-at-all"})
        assert wrong.status_code == 401
        assert client.get("/api/robots", headers=default.headers).status_code == 200
        assert client.get("/").status_code == 200  # the console page itself is public; its calls are not
        refused = client.post(
            "/api/robots/demo/components/prompt/actions/aset_template",
            content=b'{"template": "PWNED"}',
            headers={**default.headers, "Content-Type": "text/plain"},
        )
        assert refused.status_code == 415  # the guard holds with the secret too
    secret_file = default.data_dir / "local-token"
    assert secret_file.read_text().strip() == LOCAL_SECRET
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600
    log = default.log.read_text()
    assert f"/#token={LOCAL_SECRET}" in log  # the console link it printed
    assert log.count(LOCAL_SECRET) == 1  # and nowhere else: not in the access log, not in an error
