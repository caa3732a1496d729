"""The example MCP server, started for real: over stdio by each source, over streamable HTTP once per module."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tfrobot.drive.mcp import MCPToolSource

ROOT = Path(__file__).resolve().parents[3]
SERVER = ["-m", "tests.drive.mcp.example_server"]
TOKEN = "example-bearer-token-0123456789"


def stdio_source(**options: object) -> MCPToolSource:
    """A source that starts the example server as a child process (its env names PYTHONPATH and a greeting)."""
    env = {"PYTHONPATH": str(ROOT), "EXAMPLE_GREETING": "Bonjour"}
    return MCPToolSource.stdio("example", sys.executable, [*SERVER, "stdio"], env=env, cwd=ROOT, **options)  # type: ignore[arg-type]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class HttpServer:
    url: str
    process: subprocess.Popen[bytes]


def start_http_server(token: str = TOKEN) -> HttpServer:
    """The example server on a free loopback port, requiring `Authorization: Bearer <token>`."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "EXAMPLE_TOKEN": token}
    process = subprocess.Popen(
        [sys.executable, *SERVER, "http", str(port)], cwd=ROOT, env=env, stdin=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the example MCP server exited with {process.returncode}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return HttpServer(f"http://127.0.0.1:{port}/mcp", process)
        time.sleep(0.1)
    process.kill()
    raise RuntimeError("the example MCP server did not listen within 20 s")


def stop(server: HttpServer) -> None:
    server.process.terminate()
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait()


@pytest.fixture(scope="module")
def http_server() -> Iterator[HttpServer]:
    server = start_http_server()
    yield server
    stop(server)
