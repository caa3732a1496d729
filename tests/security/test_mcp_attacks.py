"""An attacker's review of the MCP endpoint and the robot-file tools (THREATS.md), against a real `tfrobot serve`.

The served robot `shop` names its tools the way the README shows a robot file doing it: Python tools (one
of them a `confirm` tool), an MCP server over stdio with settings on its command line and in its
environment, and an optional MCP server over HTTP whose URL carries credentials. Every attack runs on
SQLite and on PostgreSQL, through real HTTP and the official `mcp` SDK client. Each test is named for
the promise it checks and fails while that promise is broken.
"""

from __future__ import annotations

import http.server
import json
import os
import secrets
import subprocess
import sys
import threading
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from sqlalchemy import make_url

from tests.conftest import pg_execute, run_sync
from tests.e2e.conftest import ROOT, _free_port
from tests.reliability.servers import ADMIN, wait_until_up

ARGS_CANARY = "sk-args-canary-0123456789abcdef"
ENV_CANARY = "sk_live_env_canary_0123456789abcdef"
URL_PASSWORD_CANARY = "pw-url-canary-0123456789"
URL_KEY_CANARY = "qk-url-canary-0123456789"
CANARIES = (ARGS_CANARY, ENV_CANARY, URL_PASSWORD_CANARY, URL_KEY_CANARY)

SHOP = f"""\
name: shop
description: Orders and files, through Python and MCP tools
llm:
  provider: scripted
  params:
    rules:
      - {{user: refund, tool_calls: [{{name: refund_order, arguments: {{order_id: B-2}}}}]}}
      - {{after: "tool:*", reply: "Done: {{results}}"}}
tools:
  - tests.tfrobotserver.robot.tools.shop:*
  - mcp: files
    command: {json.dumps(sys.executable)}
    args: [-m, tests.drive.mcp.example_server, stdio, --api-key, {ARGS_CANARY}]
    env: {{PYTHONPATH: {json.dumps(str(ROOT))}, STRIPE_KEY: {ENV_CANARY}}}
    prefix: files_
  - mcp: remote
    url: "http://admin:{URL_PASSWORD_CANARY}@127.0.0.1:9/mcp?api_key={URL_KEY_CANARY}"
    optional: true
    prefix: remote_
confirm_timeout: 2
"""


@dataclass
class Shop:
    """A running server with the shop robot, its tokens, and where its output (its log) goes."""

    url: str
    read: str
    write: str
    log: Path

    def headers(self, token: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}


@contextmanager
def _serve_shop(
    folder: Path, database_url: str | None, robot: str = SHOP, env: dict[str, str] | None = None
) -> Iterator[Shop]:
    """`tfrobot serve` with the shop and demo robots and a read and a write token, once it answers (the shared
    `wait_until_up`: a start-up with an MCP server beside other test servers on two cores takes 20-40 s)."""
    read, write = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
    store = f"database_url = {json.dumps(database_url)}" if database_url else f"data_dir = {json.dumps(str(folder))}"
    (folder / "server.toml").write_text(
        f'{store}\nrobots = ["tfrobotserver.robot.demo:build_demo_robot"]\n'
        f'[[tokens]]\nname = "reader"\nscopes = ["read"]\nsecret = "{read}"\n'
        f'[[tokens]]\nname = "writer"\nscopes = ["read", "write"]\nsecret = "{write}"\n'
    )
    (folder / "shop.yaml").write_text(robot)
    port, log = _free_port(), folder / "serve.log"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1", **(env or {})}
    command = [str(Path(sys.executable).with_name("tfrobot")), "serve", "--config", str(folder), "--port", str(port)]
    with log.open("wb") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    shop = Shop(f"http://127.0.0.1:{port}", read, write, log)
    try:
        wait_until_up(port, process, log)
        yield shop
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def shop(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shop]:
    """The shop server on SQLite, then on a new PostgreSQL database."""
    folder = tmp_path_factory.mktemp(f"shop-{request.param}")
    if request.param == "sqlite":
        with _serve_shop(folder, None) as served:
            yield served
        return
    request.getfixturevalue("pg_url")  # skips with the PostgreSQL tests when asked to
    name = f"tfrobot_attack_{uuid.uuid4().hex[:10]}"
    run_sync(pg_execute(ADMIN, f'CREATE DATABASE "{name}"'))
    try:
        url = make_url(ADMIN).set(drivername="postgresql+asyncpg", database=name).render_as_string(hide_password=False)
        with _serve_shop(folder, url) as served:
            yield served
    finally:
        run_sync(pg_execute(ADMIN, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@asynccontextmanager
async def mcp_session(shop: Shop, token: str, robot: str = "shop") -> AsyncIterator[ClientSession]:
    """An initialized session of the official MCP client with the robot's endpoint."""
    async with (
        httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http,
        streamable_http_client(f"{shop.url}/api/robots/{robot}/mcp", http_client=http) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


async def test_secrets_never_leave_in_log_lines_of_tool_sources(shop: Shop) -> None:
    """Attack: read the server's log after start-up; the MCP sources' URL password, URL key and command-line key
    are printed in clear (`MCP server 'remote' (http://admin:<password>@…?api_key=<key>): ConnectError`)."""
    async with httpx.AsyncClient(base_url=shop.url, headers=shop.headers(shop.read)) as client:
        assert (await client.get("/api/robots")).status_code == 200
    text = shop.log.read_text(errors="replace")
    leaked = [canary for canary in CANARIES if canary in text]
    lines = [line for line in text.splitlines() if any(canary in line for canary in CANARIES)]
    print(f"log lines: {len(text.splitlines())}, lines with a credential: {len(lines)}, canaries leaked: {leaked}")
    assert leaked == [], "\n".join(lines[:5])


async def test_secrets_never_leave_to_a_read_token_from_tool_settings(shop: Shop) -> None:
    """Attack: a read token lists the robot's components; the tools entries show an inline `env` key
    (`STRIPE_KEY: sk_live_…`) and a key on the MCP command line (`--api-key sk-…`) as written."""
    async with httpx.AsyncClient(base_url=shop.url, headers=shop.headers(shop.read)) as client:
        components = (await client.get("/api/robots/shop/components")).text
        actions = "/api/robots/shop/components/tools/actions"
        tools = (await client.post(f"{actions}/aget_tools", json={})).text
        sources = (await client.post(f"{actions}/aget_tool_sources", json={})).text
    shown = {"components": components, "aget_tools": tools, "aget_tool_sources": sources}
    leaked = {where: [c for c in CANARIES if c in text] for where, text in shown.items()}
    print(f"read-token views tried: {len(shown)}, leaks: {leaked}")
    assert all(found == [] for found in leaked.values()), leaked


async def test_the_model_is_not_trusted_confirm_tools_wait_for_a_person_over_mcp(shop: Shop) -> None:
    """Attack: an MCP client's model calls the `tools__acall_tool` tool (annotated not destructive) with the
    robot's `confirm` tool `refund_order`; the refund runs at once, nobody is asked."""
    async with mcp_session(shop, shop.write) as session:
        listed = {tool.name: tool for tool in (await session.list_tools()).tools}
        hint = listed["tools__acall_tool"].annotations
        chat = await session.call_tool("chat", {"message": "refund please"})
        called = await session.call_tool(
            "tools__acall_tool", {"tool_name": "refund_order", "arguments": {"order_id": "B-2"}}
        )
    chat_text = chat.content[0].text if chat.content and chat.content[0].type == "text" else ""
    text = called.content[0].text if called.content and called.content[0].type == "text" else ""
    destructive = hint.destructiveHint if hint else None
    refused = "needs the user" in chat_text
    print(f"chat refused the confirm tool: {refused}; acall_tool destructiveHint={destructive}; result: {text[:160]}")
    assert "needs the user's confirmation" in chat_text  # the chat tool holds
    assert "refunded B-2" not in text, "a confirm tool ran over MCP without anyone confirming it"


async def test_no_ambient_authority_the_mcp_endpoint_names_no_robot_without_a_token(shop: Shop) -> None:
    """Attack: POST to `/api/robots/<guess>/mcp` without a token; the 404 lists every robot the server hosts,
    where every other route answers 401 first."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient(base_url=shop.url, headers=headers) as client:
        answers = {
            path: await client.post(path, json=body)
            for path in ("/api/robots/guess/mcp", "/api/robots/guess/components/x/actions/y", "/api/robots/shop/mcp")
        }
    seen = {path: (r.status_code, r.text[:120]) for path, r in answers.items()}
    print(f"unauthenticated requests: {len(seen)}: {seen}")
    assert all(r.status_code == 401 for r in answers.values()), seen
    assert not any("shop" in r.text or "demo" in r.text for r in answers.values()), seen


BAD_CHAT_ARGUMENTS = {
    "NUL in the message": '{"message": "hi\\u0000there"}',
    "NUL in the conversation id": '{"message": "hi", "conversation_id": "a\\u0000b"}',
    "a 300-character conversation id": json.dumps({"message": "hi", "conversation_id": "c" * 300}),
    "a lone surrogate in the message": '{"message": "hi\\ud800"}',
}


async def test_bad_input_is_a_4xx_for_the_mcp_chat_tool(shop: Shop) -> None:
    """Attack: call the MCP `chat` tool with what `POST …/chat` refuses as a 422 (NUL, a conversation id over 255
    characters, a lone surrogate); the tool answers `internal_error` (an error id: a 500) or the endpoint a 500."""
    headers = {**shop.headers(shop.write), "Accept": "application/json, text/event-stream"}
    seen: dict[str, tuple[int, str]] = {}
    async with httpx.AsyncClient(base_url=shop.url, headers=headers, timeout=30) as client:
        for what, arguments in BAD_CHAT_ARGUMENTS.items():
            params = f'{{"name": "chat", "arguments": {arguments}}}'
            call = f'{{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {params}}}'
            answer = await client.post("/api/robots/shop/mcp", content=call.encode())
            result = answer.json().get("result") or {}
            text = result.get("content", [{}])[0].get("text", "") if result.get("isError") else ""
            kind = json.loads(text).get("error", "") if text.startswith("{") else answer.text[:100]
            seen[what] = (answer.status_code, kind)
    print(f"bad chat arguments tried: {len(seen)}: {seen}")
    assert all(status == 200 and kind == "invalid_params" for status, kind in seen.values()), seen


def test_bad_input_is_a_4xx_for_mcp_action_tools(shop: Shop) -> None:
    """Attack: call an action tool over MCP with a lone surrogate in its arguments (`POST …/actions/…` answers 422
    naming the field); the endpoint answers a JSON-RPC error with code 0 and Python's UnicodeEncodeError text."""
    headers = {**shop.headers(shop.write), "Accept": "application/json, text/event-stream"}
    params = '{"name": "tools__acall_tool", "arguments": {"tool_name": "lookup_order\\ud800"}}'
    call = f'{{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {params}}}'
    answer = httpx.post(f"{shop.url}/api/robots/shop/mcp", content=call.encode(), headers=headers, timeout=30)
    body = answer.json()
    result = body.get("result") or {}
    text = result.get("content", [{}])[0].get("text", "{}") if result.get("isError") else "{}"
    print(f"lone surrogate in an action tool's arguments: HTTP {answer.status_code}, {answer.text[:200]}")
    assert answer.status_code == 200, body
    assert "error" not in body, body
    assert json.loads(text).get("error") == "invalid_params", body


def test_bad_input_is_a_4xx_the_mcp_endpoint_answers_413_with_the_apis_error_body(shop: Shop) -> None:
    """Attack: POST a 5 MB JSON-RPC body (under `max_body_bytes`, 16 MiB) and a chunked 20 MB one to the MCP
    endpoint; both get the SDK's plain-text `Request body too large`, naming neither the limit nor the setting."""
    headers = {**shop.headers(shop.write), "Accept": "application/json, text/event-stream"}

    def call(size: int) -> bytes:
        arguments = {"tool_name": "lookup_order", "arguments": {"order_id": "a" * size}}
        params = {"name": "tools__acall_tool", "arguments": arguments}
        return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).encode()

    def chunked(body: bytes) -> Iterator[bytes]:
        for start in range(0, len(body), 2**20):
            yield body[start : start + 2**20]

    url = f"{shop.url}/api/robots/shop/mcp"
    answers = {
        "5 MB, Content-Length": httpx.post(url, content=call(5_000_000), headers=headers, timeout=60),
        "20 MB, chunked": httpx.post(url, content=chunked(call(20_000_000)), headers=headers, timeout=60),
    }
    seen = {what: (r.status_code, r.text[:80]) for what, r in answers.items()}
    print(f"large MCP bodies tried: {len(seen)}: {seen}")
    for response in answers.values():
        assert response.headers.get("content-type", "").startswith("application/json"), seen
        assert response.json().get("error") == "payload_too_large", seen


def test_nothing_acknowledged_is_lost_an_answer_after_the_turn_ended_is_refused(shop: Shop) -> None:
    """Attack: let a streaming turn's confirmation time out (the call is refused and the turn ends), then approve
    it: the server answers 204 and records the approval of a call that never ran, instead of the route's 404."""
    headers = {**shop.headers(shop.write), "Accept": "text/event-stream"}
    confirm_id, done, event = "", "", ""
    body = json.dumps({"message": "refund please"})
    with httpx.stream("POST", f"{shop.url}/api/robots/shop/chat", content=body, headers=headers, timeout=60) as stream:
        for line in stream.iter_lines():
            if line.startswith("event: "):
                event = line.removeprefix("event: ")
            elif line.startswith("data: ") and event == "confirm":
                confirm_id = json.loads(line.removeprefix("data: "))["id"]
            elif line.startswith("data: ") and event == "done":
                done = json.loads(line.removeprefix("data: "))["message"]["content"]
                break
    url = f"{shop.url}/api/robots/shop/chat/confirmations/{confirm_id}"
    late = httpx.post(url, json={"approve": True}, headers=shop.headers(shop.write), timeout=30)
    print(f"turn ended with: {done[:90]!r}; a late approval got {late.status_code}")
    assert "did not confirm it within" in done
    assert late.status_code == 404, late.text


def test_bad_input_is_a_4xx_for_confirmation_ids(shop: Shop) -> None:
    """Attack: answer a confirmation whose id holds NUL, a lone surrogate's bytes, 0xFF or 70 characters; on
    PostgreSQL the NUL id is a 500 (the store refuses the text), where every other odd id is a 404."""
    ids = {"NUL": "a%00b", "surrogate bytes": "%ED%A0%80", "0xFF": "%FF", "70 characters": "x" * 70}
    base = f"{shop.url}/api/robots/shop/chat/confirmations"
    seen = {
        what: httpx.post(f"{base}/{key}", json={"approve": True}, headers=shop.headers(shop.write)).status_code
        for what, key in ids.items()
    }
    print(f"odd confirmation ids tried: {len(seen)}: {seen}")
    assert all(400 <= status < 500 for status in seen.values()), seen


PROVIDER_KEY_CANARY = "sk-provider-canary-0123456789abcdef"


class _EchoingProvider(http.server.BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint refusing the key and quoting it whole, as some compatible servers do."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        key = self.headers.get("authorization", "").removeprefix("Bearer ")
        error = {"message": f"Incorrect API key provided: {key}.", "type": "invalid_request_error"}
        body = json.dumps({"error": {**error, "code": "invalid_api_key"}}).encode()
        self.send_response(401)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the test prints its own figures."""


@pytest.fixture(scope="module")
def echoing_provider() -> Iterator[str]:
    """The base URL of an `_EchoingProvider` on loopback."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _EchoingProvider)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_secrets_never_leave_in_typed_provider_errors(
    echoing_provider: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Attack: chat with a robot whose OpenAI-compatible endpoint (robot file) refuses the key and quotes it; the
    typed provider error hands the server's key to the caller (HTTP and MCP), the stored turn to read tokens, and
    the log line to whoever reads the log."""
    robot = (
        "name: shop\nllm:\n  provider: openai\n  model: gpt-4o-mini\n"
        f"  params: {{base_url: {json.dumps(echoing_provider)}, max_retries: 0}}\n"
    )
    folder = tmp_path_factory.mktemp("echoing")
    with _serve_shop(folder, None, robot, {"OPENAI_API_KEY": PROVIDER_KEY_CANARY}) as shop:
        chat = httpx.post(
            f"{shop.url}/api/robots/shop/chat", json={"message": "hi"}, headers=shop.headers(shop.write), timeout=30
        )
        conversation = chat.json().get("conversationId")
        mcp_call = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "chat", "arguments": {"message": "hi"}},
        }
        mcp_headers = {**shop.headers(shop.write), "Accept": "application/json, text/event-stream"}
        mcp = httpx.post(f"{shop.url}/api/robots/shop/mcp", json=mcp_call, headers=mcp_headers, timeout=30)
        stored = httpx.post(
            f"{shop.url}/api/robots/shop/components/conversations/actions/aget_messages",
            json={"conversation_id": conversation},
            headers=shop.headers(shop.read),
            timeout=30,
        )
        shown = {
            "chat": chat.text,
            "mcp chat": mcp.text,
            "stored turn (read token)": stored.text,
            "log": shop.log.read_text(),
        }
    leaked = [where for where, text in shown.items() if PROVIDER_KEY_CANARY in text]
    print(f"chat {chat.status_code}; places tried: {len(shown)}; the server's key shown in: {leaked}")
    assert leaked == [], chat.text[:300]
