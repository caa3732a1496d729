"""End to end: a real `tfrobot serve`, switched on by the standard `OTEL_EXPORTER_OTLP_ENDPOINT`, exports
a chat call over OTLP/HTTP to a receiver on loopback built on the official protobuf definitions; the
receiver's dump holds the request's server span and the turn's span tree, in one trace — for the chat
endpoint and for the chat tool of the MCP endpoint."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.otlp_receiver import Receiver, otlp_receiver
from tests.robot_servers import AUTH, post, serve_robots

WEATHER = "weather in Paris and Tokyo, chart it"
TURN = {"chat scripted-1": 3, "execute_tool weather": 2, "execute_tool tfl": 1}


@contextmanager
def _traced_server(tmp_path: Path) -> Iterator[tuple[str, Receiver]]:
    """A real `tfrobot serve` of the demo robot exporting to a receiver on loopback: its URL and the receiver."""
    with otlp_receiver() as receiver:
        env: dict[str, str | None] = {
            "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint,
            "OTEL_SERVICE_NAME": "tfrobot-e2e",
            "OTEL_BSP_SCHEDULE_DELAY": "50",
            "TFROBOT_OTEL": None,
            "OTEL_SDK_DISABLED": None,
            "OTEL_TRACES_EXPORTER": None,
        }
        with serve_robots(tmp_path, {}, env) as url:
            yield url, receiver


def test_a_served_turn_reaches_an_otlp_receiver_as_one_trace(tmp_path: Path) -> None:
    with _traced_server(tmp_path) as (url, receiver):
        status, body = post(f"{url}/api/robots/demo/chat", {"message": WEATHER})
        assert status == 200, body
        spans = _wait_for_turn(receiver, body["conversationId"])
    (request,) = [s for s in spans if s["kind"] == "SPAN_KIND_SERVER" and s["name"].endswith("/chat")]
    assert request["name"] == "POST /api/robots/{robot}/chat"
    assert request["attributes"]["http.response.status_code"] == 200
    trace = [s for s in spans if s["trace_id"] == request["trace_id"]]
    (turn,) = [s for s in trace if s["name"] == "invoke_agent demo"]
    assert turn["parent_span_id"] == request["span_id"]
    assert turn["scope"] == "tfrobot"
    assert turn["service"] == "tfrobot-e2e"
    assert turn["attributes"]["gen_ai.conversation.id"] == body["conversationId"]
    children = [s for s in trace if s["parent_span_id"] == turn["span_id"]]
    assert {name: sum(s["name"] == name for s in children) for name in TURN} == TURN
    assert len(children) == sum(TURN.values())
    for chat in (s for s in children if s["name"].startswith("chat")):
        assert chat["kind"] == "SPAN_KIND_CLIENT"
        assert chat["attributes"]["gen_ai.provider.name"] == "scripted"
        assert chat["attributes"]["gen_ai.usage.input_tokens"] > 0
    assert all(s["status"] == "STATUS_CODE_UNSET" for s in trace)


async def test_a_turn_chatted_over_mcp_joins_the_trace_of_its_http_request(tmp_path: Path) -> None:
    with _traced_server(tmp_path) as (url, receiver):
        async with (
            httpx.AsyncClient(headers=AUTH, timeout=30) as http,
            streamable_http_client(f"{url}/api/robots/demo/mcp", http_client=http) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            result = await session.call_tool("chat", {"message": WEATHER})
        assert not result.isError, result
        assert result.structuredContent is not None
        spans = _wait_for_turn(receiver, result.structuredContent["conversationId"])
    (turn,) = [s for s in spans if s["name"] == "invoke_agent demo"]
    (request,) = [s for s in spans if s["span_id"] == turn["parent_span_id"]]
    assert request["kind"] == "SPAN_KIND_SERVER"
    assert request["attributes"]["url.path"] == "/api/robots/demo/mcp"
    assert sum(s["parent_span_id"] == turn["span_id"] for s in spans) == sum(TURN.values())


def _wait_for_turn(receiver: Receiver, conversation_id: str) -> list[dict[str, Any]]:
    """The receiver's dump once it holds the turn's span and the chat request's (batches arrive apart)."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        spans = receiver.dump()
        turn = [s for s in spans if s["attributes"].get("gen_ai.conversation.id") == conversation_id]
        if turn and any(s["span_id"] == turn[0]["parent_span_id"] for s in spans):
            return spans
        time.sleep(0.05)
    raise AssertionError(f"the turn's spans did not arrive in 20 s; received: {receiver.dump()}")
