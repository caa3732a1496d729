"""Real `tfrobot serve` processes on a fresh PostgreSQL database, and a lean HTTP client for them: the
load test and the two-server test share these."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
from sqlalchemy.engine import make_url

ADMIN = os.environ.get("TFROBOT_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")


async def _admin(statement: str) -> None:
    conn = await asyncpg.connect(ADMIN)
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


@asynccontextmanager
async def fresh_database() -> AsyncIterator[str]:
    """A new, empty PostgreSQL database (admin URL from $TFROBOT_TEST_PG_URL), dropped afterwards."""
    name = f"tfrobot_rel_{uuid.uuid4().hex[:10]}"
    await _admin(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(ADMIN).set(drivername="postgresql+asyncpg", database=name).render_as_string(hide_password=False)
    finally:
        await _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Server:
    """One running `tfrobot serve`: where it listens and the secrets of its read and write tokens."""

    port: int
    process: subprocess.Popen[bytes]
    read: str
    write: str


async def _wait_until_up(server: Server) -> None:
    for _ in range(400):
        if server.process.poll() is not None:
            raise RuntimeError(f"tfrobot serve exited with {server.process.returncode} before answering")
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", server.port)
        except OSError:
            await asyncio.sleep(0.05)
            continue
        writer.close()
        return
    raise RuntimeError("tfrobot serve did not come up within 20 s")


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()


@asynccontextmanager
async def serve(
    url: str, *, count: int = 1, workers: int = 1, files: dict[str, str] | None = None
) -> AsyncIterator[list[Server]]:
    """`count` `tfrobot serve` processes (each with `workers` workers) on database `url`, started at once
    on 127.0.0.1 and free ports, with a read and a write token; stopped afterwards. `files` (name → text)
    are written into the configuration folder beside server.toml: robot files replace the demo robot."""
    read, write = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
    tfrobot = Path(sys.executable).with_name("tfrobot")
    servers: list[Server] = []
    with tempfile.TemporaryDirectory() as config:
        Path(config, "server.toml").write_text(
            f'database_url = "{url}"\n'
            f'[[tokens]]\nname = "reader"\nscopes = ["read"]\nsecret = "{read}"\n'
            f'[[tokens]]\nname = "writer"\nscopes = ["write"]\nsecret = "{write}"\n'
        )
        for name, text in (files or {}).items():
            Path(config, name).write_text(text)
        try:
            for _ in range(count):
                port = _free_port()
                command = [str(tfrobot), "serve", "--config", config, "--port", str(port), "--no-access-log"]
                process = subprocess.Popen(
                    [*command, "--workers", str(workers)],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,
                )
                servers.append(Server(port, process, read, write))
            await asyncio.gather(*(_wait_until_up(server) for server in servers))
            yield servers
        finally:
            for server in servers:
                _stop(server.process)


class HttpConnection:
    """One keep-alive HTTP/1.1 connection: a JSON POST, the status and the body back.

    Asyncio streams directly: a general-purpose client (httpx tops out near 130 requests/s on one core)
    would make the load generator, not the server, the thing measured on a two-core machine. A request
    on a reused connection that the server closed while it was idle (uvicorn's keep-alive timeout) is
    sent again once on a new connection, as HTTP clients do: nothing was read of it.
    """

    def __init__(self, port: int, host: str = "127.0.0.1") -> None:
        self.host, self.port = host, port
        self._streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def post(self, path: str, payload: Any, token: str) -> tuple[int, bytes]:
        body = json.dumps(payload).encode()
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: application/json\r\nAccept: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        ).encode()
        reused = self._streams is not None
        try:
            return await self._exchange(head + body)
        except (ConnectionError, asyncio.IncompleteReadError):
            self.close()
            if not reused:
                raise
        return await self._exchange(head + body)

    async def _exchange(self, request: bytes) -> tuple[int, bytes]:
        if self._streams is None:
            self._streams = await asyncio.open_connection(self.host, self.port)
        reader, writer = self._streams
        writer.write(request)
        status_line, *header_lines = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        headers = dict(line.lower().split(": ", 1) for line in header_lines if ": " in line)
        if headers.get("transfer-encoding") == "chunked":
            body = b""
            while size := int((await reader.readuntil(b"\r\n"))[:-2], 16):
                body += (await reader.readexactly(size + 2))[:-2]
            await reader.readuntil(b"\r\n")
        else:
            body = await reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection") == "close":
            self.close()
        return int(status_line.split(" ", 2)[1]), body

    def close(self) -> None:
        if self._streams is not None:
            self._streams[1].close()
            self._streams = None
