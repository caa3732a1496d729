"""Nothing acknowledged is lost: a chat turn whose client hangs up mid-stream is stored anyway, finished or
failed with its partial trace. A real `tfrobot serve` and a real OpenAI SDK against a loopback provider that
answers slowly; the client reads the first events over a raw HTTP connection, then closes it."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fake_provider import ANSWER, KEY_ENV, base_url, fake_provider, robot_file, with_fault
from tests.robot_servers import AUTH, action, serve_robots

QUESTION = "weather in Paris?"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with fake_provider() as root:
        robot = robot_file("slowpoke", "openai", base_url(root, "openai"), timeout=10)
        env = {KEY_ENV["openai"]: "sk-test-0123456789"}
        with serve_robots(tmp_path_factory.mktemp("disconnect"), {"slowpoke.yaml": robot}, env) as url:
            yield url


def _hang_up_after(url: str, body: dict[str, Any], event: str | None, accept: str = "text/event-stream") -> list[str]:
    """POST the chat, read SSE events up to the first `event` (an SSE event name, or a chain event's type;
    None: read nothing), close the connection."""
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    seen: list[str] = []
    try:
        conn.request(
            "POST",
            "/api/robots/slowpoke/chat",
            body=json.dumps(body),
            headers={"Content-Type": "application/json", "Accept": accept, **AUTH},
        )
        if event is None:
            return seen
        response = conn.getresponse()
        assert response.status == 200
        while True:
            line = response.readline().decode()
            assert line, f"the stream ended before a {event!r} event: {seen}"
            if line.startswith("event: "):
                seen.append(line.removeprefix("event: ").strip())
            elif line.startswith("data: ") and seen[-1] == "event":  # a chain event: name it by its type
                seen[-1] = json.loads(line.removeprefix("data: "))["type"]
            if seen and seen[-1] == event:
                return seen
    finally:
        conn.close()


def _stored(url: str, conversation_id: str, done: Any) -> list[dict[str, Any]]:
    """The conversation's messages once `done(items)` holds (the turn ends after its client left)."""
    deadline = time.monotonic() + 15
    items: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        try:
            items = action(url, "slowpoke", "conversations", "aget_messages", {"conversation_id": conversation_id})[
                "items"
            ]
        except AssertionError:  # 404: nothing stored yet
            items = []
        if done(items):
            return items
        time.sleep(0.1)
    raise AssertionError(f"conversation {conversation_id}: {items}")


def test_a_turn_whose_client_hangs_up_mid_answer_is_stored_finished(server: str) -> None:
    """Regression: the SSE variant stored nothing when its client went away (the turn was cancelled with it)."""
    seen = _hang_up_after(
        server, {"message": with_fault(QUESTION, "slow"), "conversationId": "gone-finished"}, event="delta"
    )
    assert seen[-1] == "delta"
    items = _stored(server, "gone-finished", lambda items: len(items) == 2)
    assert [(m["role"], m["failed"]) for m in items] == [("user", None), ("assistant", None)]
    assert items[1]["text"] == ANSWER
    assert [r["role"] for r in items[0]["trace"]] == ["assistant", "tool"]


def test_a_turn_whose_client_hangs_up_then_fails_is_stored_failed_with_its_trace(server: str) -> None:
    message = with_fault(QUESTION, "slow-500-late")
    _hang_up_after(server, {"message": message, "conversationId": "gone-failed"}, event="tool_result")
    items = _stored(server, "gone-failed", lambda items: items and items[0]["failed"])
    [turn] = items
    assert turn["failed"].startswith("unavailable: openai: server error")
    assert [r["role"] for r in turn["trace"]] == ["assistant", "tool", "assistant"]
    assert turn["trace"][2]["finish_reason"] == "call_failed"  # the LLM call that failed is a step of its own
    assert turn["message"]["intermediate_trace"]["failure"]["status"] == 500


def test_a_json_client_that_leaves_before_the_answer_is_stored_too(server: str) -> None:
    _hang_up_after(
        server,
        {"message": with_fault(QUESTION, "slow"), "conversationId": "gone-json"},
        event=None,
        accept="application/json",
    )
    items = _stored(server, "gone-json", lambda items: len(items) == 2)
    assert items[1]["text"] == ANSWER


def test_the_server_log_says_which_robots_can_chat(server: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    log = next(Path(tmp_path_factory.getbasetemp()).glob("disconnect*/serve.log")).read_text()
    assert "robot 'slowpoke' can chat" in log
