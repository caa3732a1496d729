"""Bad input to the chat and to the conversation and message actions is a 422 naming the field, never a 5xx, on
SQLite and PostgreSQL: NUL characters (PostgreSQL keeps none), NaN and Infinity, lone surrogates, ids longer
than their columns, cursors past int64. Nothing is stored by a refused turn."""

from __future__ import annotations

import httpx
import pytest

from tests.tfrobotserver.conftest import act, api, serve, server_url

__all__ = ["api", "serve", "server_url"]

CHAT = "/api/robots/demo/chat"
ACTIONS = "/api/robots/demo/components/conversations/actions/"
LONG = "x" * 256
CASES: list[tuple[str, str, str]] = [
    (CHAT, '{"message": "a\\u0000b"}', "message"),
    (CHAT, '{"message": "hi", "conversationId": "c\\u0000d"}', "conversationId"),
    (CHAT, f'{{"message": "hi", "conversationId": "{LONG}"}}', "conversationId"),
    (CHAT, '{"message": "hi", "conversationId": ""}', "conversationId"),
    (CHAT, '{"message": NaN}', "message"),
    (CHAT, '{"message": "hi", "dryRun": Infinity}', "dryRun"),
    (CHAT, '{"message": "\\ud800 lone"}', ""),
    (ACTIONS + "aget_messages", '{"conversation_id": "a\\u0000"}', "conversation_id"),
    (ACTIONS + "aget_messages", f'{{"conversation_id": "{LONG}"}}', "conversation_id"),
    (ACTIONS + "aget_messages", '{"conversation_id": "c", "cursor": "99999999999999999999:1"}', "cursor"),
    (ACTIONS + "aget_messages", '{"conversation_id": "c", "cursor": "1:99999999999999999999"}', "cursor"),
    (ACTIONS + "aget_messages", '{"conversation_id": "c", "cursor": "1:2\\u0000"}', "cursor"),
    (ACTIONS + "aget_messages", '{"conversation_id": "c", "page_size": NaN}', "page_size"),
    (ACTIONS + "aget_messages", '{"conversation_id": "c", "page_size": Infinity}', "page_size"),
    (ACTIONS + "aget_conversations", '{"cursor": "99999999999999999999:x"}', "cursor"),
    (ACTIONS + "aget_conversations", '{"cursor": "-99999999999999999999:x"}', "cursor"),
    (ACTIONS + "aget_conversations", '{"cursor": "1:x\\u0000"}', "cursor"),
    (ACTIONS + "aget_conversations", '{"page_size": -Infinity}', "page_size"),
    (ACTIONS + "adelete_conversation", '{"conversation_id": "a\\u0000"}', "conversation_id"),
    (ACTIONS + "adelete_conversation", f'{{"conversation_id": "{LONG}"}}', "conversation_id"),
]


async def test_bad_input_is_a_422_naming_the_field(api: httpx.AsyncClient, server_url: str) -> None:
    """Regression: on PostgreSQL a NUL in a chat message or an id, a conversationId over 255 characters and
    cursors past int64 (both stores) reached the database and came back as 500s."""
    assert (await api.post(CHAT, json={"message": "hi", "conversationId": "c"})).status_code == 200
    statuses: list[int] = []
    for path, body, field in CASES:
        response = await api.post(path, content=body.encode(), headers={"Content-Type": "application/json"})
        statuses.append(response.status_code)
        assert response.status_code == 422, (path, body[:60], response.text)
        paths = [e["path"] for e in response.json()["errors"]]
        assert any(p.split(".")[0] == field for p in paths) or not field, (body[:60], paths)
    conversations = await act(api, "conversations", "aget_conversations", {"page_size": 200})
    assert [c["conversationId"] for c in conversations["items"]] == ["c"]  # no refused turn left a trace
    print(f"\nbad input on {server_url.split(':', 1)[0]}: {len(CASES)} tried, {statuses.count(422)} refused with 422")


@pytest.mark.parametrize("text", ["tab\tand newline\n", "emoji 🌍", "中文", "a" * 10_000])
async def test_unusual_but_valid_text_is_stored_and_recalled(api: httpx.AsyncClient, text: str) -> None:
    turn = await api.post(CHAT, json={"message": text})
    assert turn.status_code == 200, turn.text
    messages = await act(api, "conversations", "aget_messages", {"conversation_id": turn.json()["conversationId"]})
    assert messages["items"][0]["text"] == text
