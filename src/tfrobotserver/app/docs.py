"""The API docs at `/docs`: FastAPI's Swagger UI page, under a Content-Security-Policy made for it.

FastAPI's own `/docs` route sends no CSP; this one serves the same page (`get_swagger_ui_html`) with a
policy that allows what the page needs and nothing more: Swagger UI's script and stylesheet from
the CDN it loads them from, its one inline script by hash (computed here from the very HTML served,
so the two cannot drift apart), requests to this server only, no framing. ReDoc (`/redoc`) is not
served: it needs more from third parties (fonts, web workers), and `/docs` documents the same API.
No `from __future__ import annotations`: FastAPI reads these signatures at run time.
"""

import base64
import hashlib
import re

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse

DOCS_URL = "/docs"
CDN = "https://cdn.jsdelivr.net"
_INLINE_SCRIPT = re.compile(rb"<script>(.*?)</script>", re.S)


def docs_csp(html: bytes) -> str:
    """The policy for the docs page `html`: its inline scripts allowed by their SHA-256 hashes."""
    hashes = [f"'sha256-{base64.b64encode(hashlib.sha256(s).digest()).decode()}'" for s in _INLINE_SCRIPT.findall(html)]
    return "; ".join(
        [
            "default-src 'none'",
            " ".join(["script-src", CDN, *hashes]),
            f"style-src {CDN} 'unsafe-inline'",
            f"img-src 'self' data: {CDN} https://fastapi.tiangolo.com",
            "connect-src 'self'",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
        ]
    )


def mount_docs(app: FastAPI) -> None:
    """Serve Swagger UI for `app.openapi_url` at `/docs` with its own CSP."""
    assert app.openapi_url is not None  # the docs show the OpenAPI document; the app always publishes it
    html = bytes(get_swagger_ui_html(openapi_url=app.openapi_url, title=f"{app.title} - Swagger UI").body)
    headers = {"Content-Security-Policy": docs_csp(html)}

    @app.get(DOCS_URL, include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        return HTMLResponse(html, headers=headers)
