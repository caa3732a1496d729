"""POST /api/robots/{robot}/chat: a whole turn of the demo robot (ScriptedChat, tools, TFL), JSON and SSE."""

from __future__ import annotations

import json
from typing import Any

import httpx

from ..conftest import act

WEATHER = "What is the weather in Paris and Tokyo?"


def sse_events(text: str) -> list[tuple[str, Any]]:
    events = []
    for block in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.split("\n"))
        events.append((lines["event"], json.loads(lines["data"])))
    return events


async def test_chat_turn_returns_the_answer_and_its_trace(api: httpx.AsyncClient) -> None:
    assert (await api.get("/api/robots/demo/chat")).json() == {
        "robot": "demo", "llm": "llm", "conversations": "conversations", "prompt": "prompt",
        "tools": ["weather", "chart"], "chat": {"ready": True, "problems": []},
    }  # fmt: skip
    response = await api.post("/api/robots/demo/chat", json={"message": WEATHER, "conversationId": None})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["message"]["content"].startswith("Paris is 18C and Tokyo 24C; the chart is attached.")
    roles = [(r["role"], r["additional_kwargs"]["__trace_meta"]["source"]) for r in body["trace"]]
    assert roles == [("assistant", "thinking"), ("tool", "doing"), ("assistant", "thinking"), ("console", "console")]
    assert [c["name"] for c in body["trace"][0]["tool_calls"]] == ["weather", "weather"]
    assert body["request"] is None
    again = await api.post(
        "/api/robots/demo/chat", json={"message": "and tomorrow?", "conversationId": body["conversationId"]}
    )
    assert again.json()["message"]["content"] == "Tomorrow looks the same."
    listed = await act(api, "conversations", "aget_conversations")
    assert [c["conversationId"] for c in listed["items"]] == [body["conversationId"]]
    assert listed["items"][0]["title"] == WEATHER


async def test_chat_streams_typed_events_then_the_reply(api: httpx.AsyncClient) -> None:
    response = await api.post(
        "/api/robots/demo/chat", json={"message": WEATHER}, headers={"Accept": "text/event-stream"}
    )
    assert response.headers["content-type"].startswith("text/event-stream")
    events = sse_events(response.text)
    kinds = [name for name, _ in events]
    chain_types = [data["type"] for name, data in events if name == "event"]
    assert chain_types[0] == "reasoning"
    assert chain_types[-1] == "final"
    assert set(chain_types) == {"reasoning", "token", "assistant", "tool_call", "tool_result", "console", "final"}
    assert "".join(d["text"] for n, d in events if n == "delta") == (
        "Checking both cities.Drawing a chart.Paris is 18C and Tokyo 24C; the chart is attached. "
        "(Paris: 18C; Tokyo: 24C; chart ready for 2)"
    )
    assert kinds.count("trace") == 4
    assert kinds[-1] == "done"
    done = events[-1][1]
    assert done["message"]["content"].startswith("Paris is 18C")
    assert [d["record"] for n, d in events if n == "trace"] == done["trace"]


async def test_dry_run_shows_the_request_and_stores_nothing(api: httpx.AsyncClient) -> None:
    body = (await api.post("/api/robots/demo/chat", json={"message": "hello", "dryRun": True})).json()
    assert body["message"] is None
    request = body["request"]
    assert request["messages"][0] == {"role": "system", "content": "You are TFRobot demo. Answer the user in English."}
    assert request["messages"][-1]["content"] == "hello"
    assert [t["name"] for t in request["tools"]] == ["weather", "chart"]
    assert (await act(api, "conversations", "aget_conversations"))["items"] == []


async def test_chat_refusals(api: httpx.AsyncClient) -> None:
    assert (await api.post("/api/robots/demo/chat", json={"message": ""})).status_code == 422
    assert (await api.post("/api/robots/nobody/chat", json={"message": "hi"})).status_code == 404
