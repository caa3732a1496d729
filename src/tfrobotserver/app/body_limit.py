"""The request body limit: a body above `max_body_bytes` is a 413 before it is read whole.

A declared `Content-Length` above the limit is answered at once, before one byte of the body is
read (the server discards the rest as it arrives). A body without one (chunked) is counted as it
streams in: the first chunk that crosses the limit stops the read with the same 413, so at most the
limit plus one chunk is ever held. Without it, one 48 MB ingest grew the server from 113 MB to 1.7 GB
(the body, its JSON, its base64 decoding).

FastAPI's `max_body_size` (Starlette's `RequestBodyLimitMiddleware`) counts the same way, but answers a
plain-text "Content Too Large" whenever a response starts before the body was read — every refusal
of the browser guard for a large request, for one; here every 413 is the API's `ErrorBody`, naming
the limit and the setting, and a declared length is refused before any guard or route runs.
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tfrobotserver.app.errors import ApiError, error_response

_SETS_THE_LIMIT = "`max_body_bytes` in server.toml sets the limit"


def too_large(limit: int, sent: str, what_sets_it: str = _SETS_THE_LIMIT) -> ApiError:
    """The 413 for a body of `sent` (a description) over `limit` bytes; `what_sets_it` names the setting."""
    return ApiError(
        413,
        "payload_too_large",
        f"the request body ({sent}) is larger than the server accepts: at most {limit:,} bytes"
        f"{f' ({limit / 2**20:g} MiB)' if limit >= 2**20 else ''}; {what_sets_it}",
    )


class BodyLimit:
    """ASGI middleware: 413 for a declared or streamed body over `max_bytes`."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length", "")
        if declared.isascii() and declared.isdigit() and int(declared) > self.max_bytes:
            await error_response(too_large(self.max_bytes, f"Content-Length {int(declared):,}"))(scope, receive, send)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    # raised inside the route's body read: the API's error handler answers it like any ApiError
                    raise too_large(self.max_bytes, f"at least {received:,} bytes, streamed")
            return message

        await self.app(scope, counted, send)
