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
import time
import uuid
from collections.abc import AsyncIterator, Mapping
from contextlib import ExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
from sqlalchemy.engine import make_url

ADMIN = os.environ.get("TFROBOT_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
DEMO_DOCS = "/api/robots/demo/components/memory/actions"


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


STARTUP_SECONDS = 90.0
"""How long a `tfrobot serve` may take to come up: with an MCP server beside other test servers on two shared
cores, start-up took 20-40 s (20 s was too short)."""


def wait_until_up(port: int, process: subprocess.Popen[bytes], log: Path | None = None) -> None:
    """Block until `process` accepts connections on 127.0.0.1:`port` (uvicorn listens once its lifespan, robots
    and MCP servers included, has started), at most `STARTUP_SECONDS`; a RuntimeError with the end of `log`
    (its output, when kept) if it exits or does not come up."""
    deadline = time.monotonic() + STARTUP_SECONDS
    while True:
        output = f":\n{log.read_text(errors='replace')[-4000:]}" if log is not None and log.is_file() else ""
        if process.poll() is not None:
            raise RuntimeError(f"tfrobot serve exited with {process.returncode} before answering{output}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"tfrobot serve did not come up within {STARTUP_SECONDS:g} s{output}") from None
            time.sleep(0.1)


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()


def _child_env(extra: Mapping[str, str] | None, traced: bool) -> dict[str, str]:
    """This process's environment plus `extra`; untraced: without what starts coverage in a Python child
    (`COVERAGE_PROCESS_CONFIG` of coverage's subprocess patch, pytest-cov's `COV_CORE_*`)."""
    child = {**os.environ, **(extra or {})}
    if not traced:
        child = {k: v for k, v in child.items() if k != "COVERAGE_PROCESS_CONFIG" and not k.startswith("COV_CORE_")}
    return child


@asynccontextmanager
async def serve(
    url: str | None,
    *,
    count: int = 1,
    workers: int = 1,
    robots: Mapping[str, str] | None = None,
    env: Mapping[str, str] | None = None,
    log: Path | None = None,
    traced: bool = True,
) -> AsyncIterator[list[Server]]:
    """`count` `tfrobot serve` processes (each with `workers` workers) on database `url` (None: SQLite in a
    temporary data dir), started at once on 127.0.0.1 and free ports, with a read and a write token;
    stopped afterwards. `robots`: robot files (name → YAML) served beside the demo robot; `env`: added to
    the servers' environment; `log`: where their output goes (discarded otherwise); `traced=False`: the servers
    run without the coverage tracer `make test` starts in every Python child (it doubles their CPU cost, which
    latency figures must not measure)."""
    read, write = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
    tfrobot = Path(sys.executable).with_name("tfrobot")
    servers: list[Server] = []
    with tempfile.TemporaryDirectory() as config, ExitStack() as outputs:
        database = f'database_url = "{url}"\n' if url is not None else f"data_dir = {json.dumps(config + '/data')}\n"
        listed = 'robots = ["tfrobotserver.robot.demo:build_demo_robot"]\n' if robots else ""
        Path(config, "server.toml").write_text(
            database + listed + f'[[tokens]]\nname = "reader"\nscopes = ["read"]\nsecret = "{read}"\n'
            f'[[tokens]]\nname = "writer"\nscopes = ["write"]\nsecret = "{write}"\n'
        )
        for name, text in (robots or {}).items():
            Path(config, name).write_text(text)
        output = outputs.enter_context(log.open("ab")) if log is not None else subprocess.DEVNULL
        try:
            for _ in range(count):
                port = _free_port()
                command = [str(tfrobot), "serve", "--config", config, "--port", str(port), "--no-access-log"]
                process = subprocess.Popen(
                    [*command, "--workers", str(workers)],
                    stdout=output,
                    stderr=subprocess.STDOUT if log is not None else subprocess.DEVNULL,
                    start_new_session=True,
                    env=_child_env(env, traced),
                )
                servers.append(Server(port, process, read, write))
            await asyncio.gather(*(asyncio.to_thread(wait_until_up, s.port, s.process, log) for s in servers))
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


async def update_doc(conn: HttpConnection, change: dict[str, Any], token: str) -> tuple[int, bytes]:
    """Read the document and send `change` with the version read; while another client updated it in between
    (409), send it again with the version the 409 names (the console's "overwrite"). The last answer."""
    status, body = await conn.post(f"{DEMO_DOCS}/aget_doc", {"doc_id": change["doc_id"]}, token)
    if status != 200:
        return status, body
    version = {"doc_version": json.loads(body)["version"]}
    for _ in range(20):
        status, body = await conn.post(f"{DEMO_DOCS}/aupdate_doc", {**change, **version}, token)
        if status != 409:
            break
        version = json.loads(body)["overwrite"]
    return status, body
