"""The body limit in process: a declared or streamed body over the limit is a 413 naming limit and setting."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
from fastapi import FastAPI, Request

from tfrobotserver.app.body_limit import BodyLimit
from tfrobotserver.app.errors import install_error_handlers

LIMIT = 1024


def _limited() -> tuple[FastAPI, list[int]]:
    app = FastAPI()
    read: list[int] = []

    @app.post("/upload")
    async def upload(request: Request) -> int:
        read.append(len(await request.body()))
        return read[-1]

    install_error_handlers(app)
    app.add_middleware(BodyLimit, max_bytes=LIMIT)
    return app, read


async def _post(app: FastAPI, content: bytes | AsyncIterator[bytes]) -> httpx.Response:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as client:
        return await client.post("/upload", content=content)


async def test_a_declared_body_over_the_limit_is_refused_unread() -> None:
    app, read = _limited()
    response = await _post(app, b"x" * (LIMIT + 1))
    assert response.status_code == 413
    body = response.json()
    assert body["error"] == "payload_too_large"
    assert body["message"] == (
        "the request body (Content-Length 1,025) is larger than the server accepts: at most 1,024 bytes; "
        "`max_body_bytes` in server.toml sets the limit"
    )
    assert read == []  # the route never ran


async def test_a_streamed_body_is_counted_as_it_arrives() -> None:
    app, read = _limited()

    async def stream() -> AsyncIterator[bytes]:
        for _ in range(100):
            yield b"x" * 512

    response = await _post(app, stream())
    assert response.status_code == 413
    assert "at least 1,536 bytes, streamed" in response.json()["message"]
    assert read == []


async def test_a_body_at_the_limit_is_read() -> None:
    app, read = _limited()
    assert (await _post(app, b"x" * LIMIT)).json() == LIMIT
    assert read == [LIMIT]
