"""`create_app`: the FastAPI application for a set of robots."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from fastapi import FastAPI

import tfrobot
from tfrobotserver.app.auth import Authenticator
from tfrobotserver.app.body_limit import BodyLimit
from tfrobotserver.app.chat import router as chat_router
from tfrobotserver.app.docs import mount_docs
from tfrobotserver.app.errors import install_error_handlers
from tfrobotserver.app.guard import BrowserGuard
from tfrobotserver.app.routes import router
from tfrobotserver.app.runtime import Runtime, load_robots
from tfrobotserver.app.security_headers import SecurityHeaders
from tfrobotserver.app.settings import ServerSettings
from tfrobotserver.app.static import mount_console
from tfrobotserver.robot.base import Robot
from tfrobotserver.robot.config import load_robot

logger = logging.getLogger("tfrobotserver")


def configured_robots(settings: ServerSettings) -> list[Robot]:
    """The robots `settings` names: `robots` (`module:callable`) first, then the `robot_configs` files."""
    return [*load_robots(settings.robots), *(load_robot(path) for path in settings.robot_configs)]


def create_app(
    settings: ServerSettings | None = None, robots: Sequence[Robot] | None = None, *, local_secret: str | None = None
) -> FastAPI:
    """The API for `robots` (default: `configured_robots(settings)`); OpenAPI docs at /docs, MCP per robot.

    Without configured tokens, `local_secret` is the bearer token every API call must send (`tfrobot
    serve` makes one at each start); None lets every caller that passes the browser guard in.
    """
    settings = settings or ServerSettings()
    if robots is None:
        robots = configured_robots(settings)
    runtime = Runtime(settings, robots)
    authenticator = Authenticator(settings.tokens, local_secret)
    # tfrobotserver.mcp is built on this package's modules (invoke, auth, runtime): imported at module level,
    # `import tfrobotserver.mcp` would run this package's __init__ and come back here half-initialized
    from tfrobotserver.mcp import McpEndpoint

    mcp = McpEndpoint(runtime, authenticator)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if not authenticator.enabled:
            logger.warning(
                "no token and no local secret: every local process has read and write access; serve on loopback only"
            )
        await runtime.ensure_started()
        async with mcp.running():
            yield
        await runtime.aclose()

    app = FastAPI(
        title="TFRobotServer",
        version=tfrobot.__version__,
        description="TFSAction API: every robot component's debug and data actions, described by JSON Schema.",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.runtime = runtime
    app.state.authenticator = authenticator
    app.include_router(router)
    app.include_router(chat_router)
    mcp.mount(app)
    install_error_handlers(app)
    mount_docs(app)
    mount_console(app)
    # the last added runs first: headers on every answer, then the guard, then the body limit
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(BrowserGuard, settings=settings)
    app.add_middleware(SecurityHeaders)
    return app
