"""Conversations over the robot's SQLMessageStore, through the HTTP API, on SQLite and PostgreSQL."""

from __future__ import annotations

import httpx

from .....tfrobotserver.conftest import act, refused


async def chat(api: httpx.AsyncClient, message: str, conversation_id: str | None = None) -> str:
    response = await api.post("/api/robots/demo/chat", json={"message": message, "conversationId": conversation_id})
    assert response.status_code == 200, response.text
    conversation: str = response.json()["conversationId"]
    return conversation


async def test_list_page_messages_with_traces_and_delete(api: httpx.AsyncClient) -> None:
    first = await chat(api, "weather in Paris and Tokyo?")
    await chat(api, "tomorrow?", first)
    second = await chat(api, "hello there")
    page = await act(api, "conversations", "aget_conversations", {"page_size": 1})
    assert [c["conversationId"] for c in page["items"]] == [second]
    rest = await act(api, "conversations", "aget_conversations", {"page_size": 1, "cursor": page["nextCursor"]})
    assert ([c["conversationId"] for c in rest["items"]], rest["nextCursor"]) == ([first], None)

    messages = await act(api, "conversations", "aget_messages", {"conversation_id": first, "page_size": 3})
    assert [(m["role"], m["text"][:12]) for m in messages["items"]] == [
        ("user", "weather in P"),
        ("assistant", "Paris is 18C"),
        ("user", "tomorrow?"),
    ]
    weather_turn = messages["items"][0]
    assert [r["role"] for r in weather_turn["trace"]] == ["assistant", "tool", "assistant", "console"]
    assert [t["result"] for t in weather_turn["trace"][1]["tool_reses"]] == ["Paris: 18C", "Tokyo: 24C"]
    assert weather_turn["trace"][2]["tfl_scripts"][0].startswith('c = chart(cities=["Paris", "Tokyo"])')
    assert weather_turn["trace"][3]["console_reses"][0]["result"] == "chart ready for 2"
    assert messages["items"][1]["trace"] == []
    assert "records" not in weather_turn["message"]["intermediate_trace"]  # the trace is sent once: as `trace`
    last = await act(
        api, "conversations", "aget_messages", {"conversation_id": first, "cursor": messages["nextCursor"]}
    )
    assert ([m["text"] for m in last["items"]], last["nextCursor"]) == (["Tomorrow looks the same."], None)

    assert await act(api, "conversations", "adelete_conversation", {"conversation_id": first}) == 4
    gone = await api.post(
        "/api/robots/demo/components/conversations/actions/adelete_conversation", json={"conversation_id": first}
    )
    assert (gone.status_code, gone.json()["error"], gone.json()["errors"][0]["path"]) == (
        404,
        "not_found",
        "conversation_id",
    )
    assert [c["conversationId"] for c in (await act(api, "conversations", "aget_conversations"))["items"]] == [second]
    bad = await refused(api, "conversations", "aget_conversations", {"cursor": "nonsense"})
    assert bad["errors"][0]["path"] == "cursor"
