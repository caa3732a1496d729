"""The attacks on what the server holds — its credentials, its stored rows, its configuration — need a real
`tfrobot serve` on loopback per module and per store (SQLite, PostgreSQL): this package's target.

Each module gets a fresh PostgreSQL database (`fresh_database`). On "postgresql" it is the server's own
database, reached with a DSN that carries a password; on "sqlite" the server keeps its data in a SQLite
file, and the PostgreSQL database is still there as the `vault` robot's conversation store. Both stores
run the same attacks.

The server hosts the demo robot and `vault`, a robot whose configuration holds every kind of credential
the server may hold (`SECRETS`): a DSN password, an endpoint with a key in its query string, header values
in `extra_params.extra_headers`, and provider keys in the environment. `vault`'s OpenAI endpoint and the
environment's Anthropic endpoint are loopback listeners (`RecordingEndpoint`), so a test can see what, if
anything, the server sends where: no request leaves the machine.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from sqlalchemy.engine import make_url

from tests.reliability.servers import Server, fresh_database, serve

SECRETS = {
    "dsn password": "DSNPW-3f9a1c77e2",
    "server dsn password": "SRVPW-8b2d4e6f10",
    "query key": "QKEY-5e7a9c1b3d",
    "header key": "HKEY-2c4e6a8b0d",
    "bearer token": "BTOKEN-9d8c7b6a5f",
    "openai key": "sk-OPENAIENV-1a2b3c4d5e6f7a8b",
    "anthropic key": "sk-ant-ANTHROPICENV-6f5e4d3c2b1a",
}
"""Every credential the target holds; none may appear in an answer or a log line."""


@dataclass
class RecordingEndpoint:
    """A loopback HTTP endpoint that records each request it gets and answers 400 (no SDK retries that)."""

    requests: list[bytes] = field(default_factory=list)
    port: int = 0
    _server: asyncio.AbstractServer | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._answer, "127.0.0.1", 0)
        self.port = int(self._server.sockets[0].getsockname()[1])

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(
                (
                    int(line.split(b":", 1)[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                ),
                0,
            )
            self.requests.append(head + await reader.readexactly(length))
            body = b'{"error": {"type": "invalid_request_error", "message": "refused by the test listener"}}'
            writer.write(
                b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\nconnection: close\r\n"
                + f"content-length: {len(body)}\r\n\r\n".encode()
                + body
            )
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()


@dataclass
class Target:
    """A running server and what the attacker knows of it: its address and tokens (not its secrets)."""

    server: Server
    store: str
    log: Path
    openai_endpoint: RecordingEndpoint
    anthropic_endpoint: RecordingEndpoint

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.port}"

    def client(self, token: str | None = None) -> httpx.AsyncClient:
        """An HTTP client for the server with `token` (default: the write token) on every request."""
        headers = {"Authorization": f"Bearer {token or self.server.write}"}
        return httpx.AsyncClient(base_url=self.base, headers=headers, timeout=60)

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


def with_password(url: str, password: str) -> str:
    """`url` with `password` (the test database trusts loopback: the password is carried, not checked)."""
    return make_url(url).set(password=password).render_as_string(hide_password=False)


def vault_robot(database: str, openai_port: int) -> str:
    """The `vault` robot file: an OpenAI LLM on a loopback endpoint, with every kind of credential."""
    config = {
        "name": "vault",
        "description": "A robot whose configuration holds credentials",
        "llm": {
            "provider": "openai",
            "model": "gpt-4o",
            "params": {
                "base_url": f"http://127.0.0.1:{openai_port}/v1?key={SECRETS['query key']}",
                "max_retries": 0,
                "timeout": 10,
                "temperature": 0.2,
                "extra_params": {
                    "extra_headers": {
                        "x-api-key": SECRETS["header key"],
                        "Authorization": f"Bearer {SECRETS['bearer token']}",
                    }
                },
            },
        },
        "prompt": {"template": "You are {{ robot }}.", "defaults": {"robot": "Vault"}},
        "memory": {"url": with_password(database, SECRETS["dsn password"])},
        "documents": {"seed_docs": 3},
        "graph": {"seed": "demo"},
    }
    return json.dumps(config)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def target(store: str, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Target]:
    """A `tfrobot serve` with the demo and `vault` robots on `store`, a fresh database for this module."""
    openai_endpoint, anthropic_endpoint = RecordingEndpoint(), RecordingEndpoint()
    await openai_endpoint.start()
    await anthropic_endpoint.start()
    log = tmp_path_factory.mktemp(f"security-{store}") / "serve.log"
    env = {
        "OPENAI_API_KEY": SECRETS["openai key"],
        "ANTHROPIC_API_KEY": SECRETS["anthropic key"],
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{anthropic_endpoint.port}",
    }
    try:
        async with fresh_database() as database:
            server_url = with_password(database, SECRETS["server dsn password"])
            robots = {"vault.json": vault_robot(database, openai_endpoint.port)}
            url = server_url if store == "postgresql" else None
            async with serve(url, robots=robots, env=env, log=log) as (server,):
                yield Target(server, store, log, openai_endpoint, anthropic_endpoint)
    finally:
        await openai_endpoint.stop()
        await anthropic_endpoint.stop()


async def every_action(target: Target) -> list[tuple[str, str, str, dict[str, Any]]]:
    """(robot, component, action, action info) of every action the server lists, read with the read token."""
    found: list[tuple[str, str, str, dict[str, Any]]] = []
    async with target.client(target.server.read) as client:
        for robot in (await client.get("/api/robots")).json():
            base = f"/api/robots/{robot['name']}/components"
            for component in (await client.get(base)).json():
                for action in (await client.get(f"{base}/{component['name']}/actions")).json():
                    found.append((robot["name"], component["name"], action["name"], action))
    return found


def action_url(robot: str, component: str, action: str) -> str:
    return f"/api/robots/{robot}/components/{component}/actions/{action}"


def leaked(text: str) -> list[str]:
    """The names of the secrets `text` shows."""
    return [name for name, secret in SECRETS.items() if secret in text]


def branch(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    """`schema` with a `$ref` followed and an `anyOf` reduced to its first non-null branch."""
    while True:
        if "$ref" in schema:
            schema = root["$defs"][schema["$ref"].rsplit("/", 1)[1]]
        elif "anyOf" in schema:
            schema = next(b for b in schema["anyOf"] if b.get("type") != "null")
        else:
            return schema


def sample(schema: dict[str, Any], root: dict[str, Any]) -> Any:
    """A plain value of a parameter's type (the smallest the schema allows)."""
    schema = branch(schema, root)
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "integer":
        return max(1, int(schema.get("minimum", 1)))
    if kind == "number":
        return 0.5
    if kind == "boolean":
        return False
    if kind == "array":
        return [sample(schema.get("items", {"type": "string"}), root)] if schema.get("minItems") else []
    if kind == "object":
        return {"k": "v"} if schema.get("minProperties") else {}
    return "x" * max(1, int(schema.get("minLength", 1)))


def sample_params(params_schema: dict[str, Any]) -> dict[str, Any]:
    """Every required parameter of an action filled with `sample`."""
    properties: dict[str, Any] = params_schema.get("properties", {})
    return {name: sample(properties[name], params_schema) for name in params_schema.get("required", [])}
