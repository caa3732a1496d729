"""The MCP endpoint of `tfrobot serve`: `POST /api/robots/{robot}/mcp`, one robot per endpoint.

Streamable HTTP through the SDK's `StreamableHTTPSessionManager`, stateless and with JSON responses:
every POST is answered on its own (no session to keep, hijack or leak between tokens, nothing held
open), so GET (a server-to-client event stream) and DELETE (ending a session) answer 405 as the
specification allows. The endpoint is a route of the FastAPI app, so it sits under every middleware of
the app (request guard: Host, Origin, content type, body size) and its errors are the API's error
bodies: a missing or unknown bearer token is a 401 before anything else (as on every other route: the
unauthenticated learn no robot's name, not even whether it exists), then an unknown robot is a 404,
both before any MCP message is read. The principal the token authenticated travels with the request to the tool handlers
(`principal_of`), where scopes are checked per call by `invoke`.

Bodies: one JSON-RPC message is at most the lower of `max_body_bytes` and the SDK's own limit (4 MiB), and
the endpoint reads it itself before the SDK sees it, so that a larger one is the API's 413 body naming the
limit and the setting (declared: before a byte is read; streamed: at the first chunk that crosses it),
never the SDK's plain-text answer.

The managers run inside the app's lifespan (`running()`); a manager runs once, so every lifespan
gets new ones and an app can be started again.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from fastapi import FastAPI
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send

from tfrobotserver.actions.injected import Principal
from tfrobotserver.app.auth import Authenticator
from tfrobotserver.app.body_limit import too_large
from tfrobotserver.app.errors import ApiError
from tfrobotserver.app.invoke import find_robot
from tfrobotserver.app.runtime import Runtime
from tfrobotserver.mcp.server import build_server

MCP_PATH = "/api/robots/{robot}/mcp"
_PRINCIPAL = "tfrobot.principal"
"""The ASGI scope key under which an authenticated request carries its principal."""


def principal_of(request: Any) -> Principal:
    """The principal the endpoint authenticated for this MCP request."""
    principal = request.scope.get(_PRINCIPAL) if isinstance(request, Request) else None
    if not isinstance(principal, Principal):
        raise RuntimeError("an MCP request reached a tool handler without the principal its endpoint authenticated")
    return principal


class McpEndpoint:
    """The ASGI app behind `MCP_PATH`: authenticate, then hand the request to the robot's MCP server."""

    def __init__(self, runtime: Runtime, authenticator: Authenticator) -> None:
        self._runtime = runtime
        self._authenticator = authenticator
        self._servers = {name: build_server(runtime, name, principal_of) for name in runtime.robots}
        self._managers: dict[str, StreamableHTTPSessionManager] | None = None
        self._max_bytes = min(runtime.settings.max_body_bytes, DEFAULT_MAX_REQUEST_BODY_SIZE)

    def mount(self, app: FastAPI) -> None:
        """Add the endpoint to `app` (outside the OpenAPI document: its body is JSON-RPC, not an action)."""
        app.router.routes.append(Route(MCP_PATH, self, include_in_schema=False))

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Run one fresh session manager per robot for as long as the app runs."""
        managers = {
            name: StreamableHTTPSessionManager(
                server, json_response=True, stateless=True, max_request_body_size=self._max_bytes
            )
            for name, server in self._servers.items()
        }
        async with AsyncExitStack() as stack:
            for manager in managers.values():
                await stack.enter_async_context(manager.run())
            self._managers = managers
            try:
                yield
            finally:
                self._managers = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        principal = self._authenticator.authenticate(Headers(scope=scope).get("authorization"))  # before the robot
        robot = find_robot(self._runtime, scope["path_params"]["robot"]).name
        if scope["method"] != "POST":
            raise ApiError(
                405,
                "method_not_allowed",
                f"the MCP endpoint takes POST only (stateless streamable HTTP: no event stream, no session to end); "
                f"{scope['method']} is not served",
            )
        if self._managers is None:
            raise RuntimeError("the MCP endpoint is used outside the app's lifespan; run the app with its lifespan")
        replay = await self._read_body(scope, receive)
        await self._runtime.ensure_started()
        await self._managers[robot].handle_request({**scope, _PRINCIPAL: principal}, replay, send)

    async def _read_body(self, scope: Scope, receive: Receive) -> Receive:
        """Read the whole body (at most `_max_bytes`: the API's 413 otherwise) and return a `receive` that hands
        it to the SDK, then whatever the client sends next (its disconnect)."""
        limit = self._max_bytes
        what_sets_it = (
            "the MCP endpoint takes the lower of `max_body_bytes` (server.toml sets it) and the MCP SDK's limit of "
            f"{DEFAULT_MAX_REQUEST_BODY_SIZE / 2**20:g} MiB per message"
        )
        declared = Headers(scope=scope).get("content-length", "")
        if declared.isascii() and declared.isdigit() and int(declared) > limit:
            raise too_large(limit, f"Content-Length {int(declared):,}", what_sets_it)
        chunks: list[bytes] = []
        received = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            received += len(chunks[-1])
            if received > limit:
                raise too_large(limit, f"at least {received:,} bytes, streamed", what_sets_it)
            if not message.get("more_body", False):
                break
        pending: list[Message] = [{"type": "http.request", "body": b"".join(chunks), "more_body": False}]

        async def replay() -> Message:
            return pending.pop() if pending else await receive()

        return replay
