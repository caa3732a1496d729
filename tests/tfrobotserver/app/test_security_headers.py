"""Security headers on the real app in process: pages, API answers, errors (a 500 too), the docs' own CSP."""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

import httpx
from fastapi import FastAPI

from tfrobotserver.app.docs import docs_csp, mount_docs
from tfrobotserver.app.security_headers import API_CSP, CONSOLE_CSP, headers_for


def test_api_paths_and_pages_get_their_policies() -> None:
    assert headers_for("/api/robots")["Content-Security-Policy"] == API_CSP
    assert headers_for("/api/robots")["Cache-Control"] == "no-store"
    assert headers_for("/openapi.json")["Cache-Control"] == "no-store"
    assert headers_for("/")["Content-Security-Policy"] == CONSOLE_CSP
    assert "Cache-Control" not in headers_for("/assets/index.js")
    for path in ("/", "/api/robots", "/docs"):
        assert headers_for(path)["X-Frame-Options"] == "DENY"
        assert headers_for(path)["X-Content-Type-Options"] == "nosniff"
        assert headers_for(path)["Referrer-Policy"] == "no-referrer"


async def test_every_answer_carries_them_a_500_too(client: httpx.AsyncClient) -> None:
    ok = await client.get("/api/robots")
    boom = await client.post("/api/robots/broken/components/exploding/actions/aget_boom", json={})
    missing = await client.get("/nothing")
    assert (ok.status_code, boom.status_code, missing.status_code) == (200, 500, 404)
    for response in (ok, boom, missing):
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["cache-control"] == "no-store"
        assert response.headers["content-security-policy"] == API_CSP
    console = await client.get("/")
    assert console.headers["content-security-policy"] == CONSOLE_CSP
    assert console.headers["x-frame-options"] == "DENY"


async def test_the_docs_allow_their_own_inline_script_by_hash(client: httpx.AsyncClient) -> None:
    docs = await client.get("/docs")
    assert docs.status_code == 200
    policy = docs.headers["content-security-policy"]
    assert policy == docs_csp(docs.content)
    scripts = re.findall(rb"<script>(.*?)</script>", docs.content, re.S)
    assert len(scripts) == 1
    digest = base64.b64encode(hashlib.sha256(scripts[0]).digest()).decode()
    assert f"'sha256-{digest}'" in policy
    assert "frame-ancestors 'none'" in policy
    assert docs.headers["x-frame-options"] == "DENY"
    assert (await client.get("/redoc")).status_code == 404


async def test_the_docs_load_swagger_ui_from_the_server_itself(client: httpx.AsyncClient) -> None:
    """Offline and behind firewalls: no CDN in the page or its policy, the assets served here."""
    docs = await client.get("/docs")
    assert b"/assets/swagger/swagger-ui-bundle.js" in docs.content
    assert b"http" not in docs.content.split(b"<script>")[0]  # no stylesheet, icon or script from elsewhere
    assert "http" not in docs.headers["content-security-policy"]
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css"):
        assert (await client.get(f"/assets/swagger/{asset}")).status_code == 200


async def test_without_a_console_build_the_docs_say_how_to_build_it(tmp_path: Path) -> None:
    app = FastAPI(docs_url=None, redoc_url=None)  # as the server's app: /docs is ours
    mount_docs(app, static_dir=tmp_path)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as bare:
        docs = await bare.get("/docs")
    assert docs.status_code == 200
    assert "make web" in docs.text
    assert "/openapi.json" in docs.text
