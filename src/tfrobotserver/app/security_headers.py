"""Response headers that keep the console and the API out of other pages' reach.

Every response: `X-Content-Type-Options: nosniff` (a JSON answer is never run as a script or a
page), `X-Frame-Options: DENY` and CSP `frame-ancestors 'none'` (no page may frame the console and
click through it), `Referrer-Policy: no-referrer` (no URL of the console travels to a site it links
to). API answers (`/api/…`, `/openapi.json`) also get `Cache-Control: no-store` (no answer stays in a
shared cache or the browser's) and a CSP that runs nothing. Pages get the console's policy: scripts
only from the server itself, no inline script (the Vite build has none), no plugins, no `<base>`.
Styles allow inline `<style>`: Mantine writes its CSS variables in one at run time. Images may come
from anywhere over http(s) or `data:`: the console shows the images a conversation holds. A route
that sets its own `Content-Security-Policy` (the API docs) keeps it.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONSOLE_CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob: http: https:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
API_CSP = "default-src 'none'; frame-ancestors 'none'; sandbox"
API_PREFIXES = ("/api/", "/openapi.json")

_EVERY = {"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer"}
API_HEADERS = {**_EVERY, "Cache-Control": "no-store", "Content-Security-Policy": API_CSP}
"""What every API answer carries, error answers included."""
PAGE_HEADERS = {**_EVERY, "Content-Security-Policy": CONSOLE_CSP}
"""What the console, its assets and any other page carry (a route may set its own CSP)."""


def headers_for(path: str) -> dict[str, str]:
    """The security headers a response to `path` carries (unless the route set one itself)."""
    return API_HEADERS if path.startswith(API_PREFIXES) else PAGE_HEADERS


class SecurityHeaders:
    """ASGI middleware adding `headers_for(path)` to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = headers_for(scope["path"])

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in extra.items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, with_headers)
