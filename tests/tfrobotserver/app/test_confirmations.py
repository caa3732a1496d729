"""A robot file with Python and MCP tools (stdio and HTTP) chats through a real `tfrobot serve`; destructive
calls wait for the user's answer, given by the principal that started the turn."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.drive.mcp.conftest import HttpServer
from tests.tfrobotserver.robot.tools import shop
from tests.tfrobotserver.robot.tools.conftest import http_server
from tests.tfrobotserver.robot.tools.served import OTHER_TOKEN, READ_TOKEN, WRITE_TOKEN, serve_shop

__all__ = ["http_server"]


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def server(http_server: HttpServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve_shop(tmp_path_factory.mktemp("shop"), http_server, tokens=True) as url:
        yield url


def chat(server: str, message: str) -> dict[str, Any]:
    response = httpx.post(f"{server}/api/robots/shop/chat", json={"message": message}, headers=auth(WRITE_TOKEN))
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def action(server: str, name: str, params: dict[str, Any], token: str = WRITE_TOKEN) -> httpx.Response:
    url = f"{server}/api/robots/shop/components/tools/actions/{name}"
    return httpx.post(url, json=params, headers=auth(token), timeout=30)


def events(lines: Iterator[str]) -> Iterator[tuple[str, Any]]:
    event = ""
    for line in lines:
        if line.startswith("event: "):
            event = line.removeprefix("event: ")
        elif line.startswith("data: "):
            yield event, json.loads(line.removeprefix("data: "))


def test_python_and_mcp_tools_answer_a_turn(server: str) -> None:
    reply = chat(server, "my order?")
    answer = reply["message"]["content"]
    assert "A-1: 2 books, shipped" in answer  # module:function
    assert "Hello, Ann!" in answer  # MCP over stdio, with the env the robot file gave
    assert '"mean": 2.0' in answer  # MCP over HTTP, structured content
    results = [r for rec in reply["trace"] for r in rec.get("tool_reses") or []]
    snapshot = next(r for r in results if r["name"] == "web_snapshot")
    assert [a["type"] for a in snapshot["attachments"]] == ["image"]


def test_the_tools_component_lists_and_calls_with_the_right_scope(server: str) -> None:
    listed = action(server, "aget_tools", {}, READ_TOKEN).json()
    rows = {row["name"]: row for row in listed["items"]}
    assert {"lookup_order", "refund_order", "files_greet", "web_greet", "web_delete_note"} <= set(rows)
    assert (rows["files_greet"]["source"], rows["files_greet"]["readOnly"]) == ("files", True)
    assert (rows["refund_order"]["confirm"], rows["web_delete_note"]["confirm"]) == (True, True)
    assert rows["lookup_order"]["inputSchema"]["required"] == ["order_id"]
    sources = action(server, "aget_tool_sources", {}, READ_TOKEN).json()["items"]
    assert [(s["name"], s["kind"], s["state"]) for s in sources] == [
        ("tests.tfrobotserver.robot.tools.shop:*", "python", "ready"),
        ("files", "mcp-stdio", "ready"),
        ("web", "mcp-http", "ready"),
    ]
    read = action(server, "acall_read_tool", {"tool_name": "web_greet", "arguments": {"name": "Io"}}, READ_TOKEN)
    assert read.json()["result"]["result"] == "Hello, Io!"
    not_read_only = action(server, "acall_read_tool", {"tool_name": "lookup_order", "arguments": {}}, READ_TOKEN)
    assert not_read_only.status_code == 422
    assert "is not read-only; call it with acall_tool (write scope)" in not_read_only.text
    assert action(server, "acall_tool", {"tool_name": "lookup_order"}, READ_TOKEN).status_code == 403
    bad = action(server, "acall_tool", {"tool_name": "lookup_order", "arguments": {"order": 1}}).json()
    assert bad["isError"]
    assert "order_id: Field required" in bad["result"]["result"]
    called = action(server, "acall_tool", {"tool_name": "lookup_order", "arguments": {"order_id": "B-2"}}).json()
    assert (called["isError"], called["result"]["result"]) == (False, "B-2: 1 lamp, packing")


def refund_over_sse(server: str, answer: bool | None) -> tuple[list[str], dict[str, Any]]:
    """Stream a refund turn; answer its confirm event (None: let others try first); the `done` body."""
    seen: list[str] = []
    body = json.dumps({"message": "refund please"})
    headers = {**auth(WRITE_TOKEN), "Accept": "text/event-stream"}
    with httpx.stream("POST", f"{server}/api/robots/shop/chat", content=body, headers=headers, timeout=30) as stream:
        for event, data in events(stream.iter_lines()):
            seen.append(event)
            if event == "confirm":
                assert data["call"]["name"] == "refund_order"
                assert data["timeout"] == 20
                url = f"{server}/api/robots/shop/chat/confirmations/{data['id']}"
                assert httpx.post(url, json={"approve": True}, headers=auth(OTHER_TOKEN)).status_code == 404
                assert httpx.post(url, json={"approve": True}, headers=auth(READ_TOKEN)).status_code == 403
                assert httpx.post(url, json={"approve": "maybe"}, headers=auth(WRITE_TOKEN)).status_code == 422
                assert httpx.post(url, json={"approve": answer}, headers=auth(WRITE_TOKEN)).status_code == 204
                assert httpx.post(url, json={"approve": answer}, headers=auth(WRITE_TOKEN)).status_code == 404
            if event == "done":
                return seen, data
    raise AssertionError(f"the stream ended without `done`: {seen}")


def test_a_destructive_call_waits_for_the_user_over_the_stream(server: str) -> None:
    shop.REFUNDED.clear()
    seen, done = refund_over_sse(server, True)
    assert seen.index("confirm") < seen.index("done")
    assert done["message"]["content"] == "Done: refunded B-2"
    refused_seen, refused = refund_over_sse(server, False)
    assert "confirm" in refused_seen
    assert refused["message"]["content"] == "Done: refund_order was not run: the user refused this call"
    json_turn = chat(server, "refund please")["message"]["content"]
    assert "needs the user's confirmation, and this chat cannot ask for it" in json_turn


def test_a_server_that_dies_mid_turn_is_a_tool_error_and_comes_back(server: str) -> None:
    started = time.monotonic()
    crashed = chat(server, "crash now")["message"]["content"]
    assert crashed.startswith("Done: files_crash failed") or "stopped during the call" in crashed, crashed
    assert time.monotonic() - started < 15
    deadline = time.monotonic() + 20
    while True:
        sources = action(server, "aget_tool_sources", {}, READ_TOKEN).json()["items"]
        if sources[1]["state"] == "ready" and sources[1]["error"] is None:
            break
        assert time.monotonic() < deadline, sources
        time.sleep(0.2)
    assert "Hello, Ann!" in chat(server, "my order?")["message"]["content"]


def test_the_robot_file_is_served_as_written(server: str) -> None:
    components = httpx.get(f"{server}/api/robots/shop/components", headers=auth(READ_TOKEN)).json()
    tools = next(c for c in components if c["name"] == "tools")
    web = next(e for e in tools["config"]["tools"] if isinstance(e, dict) and e.get("mcp") == "web")
    assert web["headers"] == {"Authorization": "Bearer ${SHOP_WEB_TOKEN}"}  # the variable, never its value
