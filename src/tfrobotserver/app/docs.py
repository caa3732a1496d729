"""The API docs at `/docs`: FastAPI's Swagger UI page, under a Content-Security-Policy made for it.

FastAPI's own `/docs` route sends no CSP and loads Swagger UI from a CDN, so it is blank offline or
behind a firewall. This one serves the same page (`get_swagger_ui_html`) with Swagger UI's script,
stylesheet and icon from the server itself: the console build carries them in `assets/swagger/`
(copied from npm's `swagger-ui-dist` by `web/vite.config.ts`). The policy allows what the page needs
and nothing more: scripts and styles from this server, its one inline script by hash (computed here
from the very HTML served, so the two cannot drift apart), requests to this server only, no framing.
Without a console build the page says how to build it (the OpenAPI document is at `/openapi.json`
either way). ReDoc (`/redoc`) is not served: `/docs` documents the same API.
No `from __future__ import annotations`: FastAPI reads these signatures at run time.
"""

import base64
import hashlib
import re
from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse

from tfrobotserver.app.static import STATIC_DIR

DOCS_URL = "/docs"
SWAGGER_ASSETS = "/assets/swagger"
"""Where the console build's copy of Swagger UI is served (`static/assets/swagger/`)."""
_INLINE_SCRIPT = re.compile(rb"<script>(.*?)</script>", re.S)

_NOT_BUILT = """<!doctype html><meta charset="utf-8"><title>TFRobot API docs</title>
<p>The API docs page needs the console build, which carries Swagger UI. Run <code>make web</code>
(Node.js 20+) and restart; the OpenAPI document is at <a href="/openapi.json">/openapi.json</a>.</p>"""


def docs_csp(html: bytes) -> str:
    """The policy for the docs page `html`: its inline scripts allowed by their SHA-256 hashes."""
    hashes = [f"'sha256-{base64.b64encode(hashlib.sha256(s).digest()).decode()}'" for s in _INLINE_SCRIPT.findall(html)]
    return "; ".join(
        [
            "default-src 'none'",
            " ".join(["script-src 'self'", *hashes]),
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",
            "connect-src 'self'",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
        ]
    )


def docs_html(openapi_url: str, title: str) -> bytes:
    """The Swagger UI page for `openapi_url`, loading Swagger UI from this server."""
    page = get_swagger_ui_html(
        openapi_url=openapi_url,
        title=title,
        swagger_js_url=f"{SWAGGER_ASSETS}/swagger-ui-bundle.js",
        swagger_css_url=f"{SWAGGER_ASSETS}/swagger-ui.css",
        swagger_favicon_url=f"{SWAGGER_ASSETS}/favicon-32x32.png",
    )
    return bytes(page.body)


def mount_docs(app: FastAPI, static_dir: Path = STATIC_DIR) -> None:
    """Serve Swagger UI for `app.openapi_url` at `/docs` with its own CSP."""
    assert app.openapi_url is not None  # the docs show the OpenAPI document; the app always publishes it
    built = (static_dir / "assets" / "swagger" / "swagger-ui-bundle.js").is_file()
    html = docs_html(app.openapi_url, f"{app.title} - Swagger UI") if built else _NOT_BUILT.encode()
    headers = {"Content-Security-Policy": docs_csp(html)}

    @app.get(DOCS_URL, include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        return HTMLResponse(html, headers=headers)
