"""MCP clients of the official SDK against real servers: `tfrobot serve` (HTTP) and `tfrobot mcp` (stdio)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest_asyncio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.reliability.servers import Server, fresh_database, serve

TFROBOT = Path(sys.executable).with_name("tfrobot")
SERVER_DOC = Path(__file__).resolve().parents[3] / "docs" / "server.md"


def doc_configs() -> list[dict[str, Any]]:
    """The `mcpServers` entries of docs/server.md's MCP section, in order (stdio, then HTTP)."""
    text = SERVER_DOC.read_text(encoding="utf-8").split("## MCP: a robot in any MCP client\n", 1)[1]
    text = text.split("\n## ", 1)[0]
    blocks = [b.split("```", 1)[0] for b in text.split("```json\n")[1:]]
    return [json.loads(b)["mcpServers"]["tfrobot-demo"] for b in blocks]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server(pg_url: str) -> AsyncIterator[Server]:
    """One `tfrobot serve` (demo robot, a read and a write token) on a new PostgreSQL database."""
    async with fresh_database() as url, serve(url) as [one]:
        yield one


def endpoint(server: Server, robot: str = "demo") -> str:
    return f"http://127.0.0.1:{server.port}/api/robots/{robot}/mcp"


@asynccontextmanager
async def http_session(server: Server, token: str | None) -> AsyncIterator[ClientSession]:
    """An initialized MCP session over streamable HTTP, sending `token` as the bearer token."""
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    async with (
        httpx.AsyncClient(headers=headers, timeout=30) as http,
        streamable_http_client(endpoint(server), http_client=http) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


@asynccontextmanager
async def stdio_session(command: str, args: list[str]) -> AsyncIterator[ClientSession]:
    """An initialized MCP session with a `tfrobot mcp` subprocess (`command` `tfrobot` is this venv's).

    The environment is passed whole: the SDK's default keeps only a few variables, and the test
    session's private XDG data dir must reach the subprocess."""
    executable = str(TFROBOT) if command == "tfrobot" else command
    params = StdioServerParameters(command=executable, args=args, env=dict(os.environ))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session
