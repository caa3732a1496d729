"""TFROB-299 per provider: a turn's trace persisted as JSON, loaded, expanded into turn 2, valid payload."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from tests.brain.chain.llms.conftest import recalled_turn
from tfrobot.brain.chain.llms import (
    AnthropicChat,
    ChatLLM,
    DoubaoChat,
    GeminiChat,
    OpenAIChat,
    OpenAIResponsesChat,
    ScriptedChat,
    ZhipuChat,
)
from tfrobot.schema.message import AssistantTextMessage, BaseMessage, Message, TextMessage


def validate(cls: type[ChatLLM], payload: dict[str, Any]) -> None:
    """Check the payload against the provider SDK's own request types."""
    if cls is AnthropicChat:
        from anthropic.types import MessageParam

        for message in payload["messages"]:
            TypeAdapter(MessageParam).validate_python(message, strict=True)
    elif cls is GeminiChat:
        from google.genai import types

        for content in payload["contents"]:
            types.Content.model_validate(content)
    elif cls is OpenAIResponsesChat:
        from openai.types.responses import ResponseInputItemParam

        for item in payload["input"]:
            TypeAdapter(ResponseInputItemParam).validate_python(item, strict=True)
    elif cls is ScriptedChat:
        from tfrobot.schema.message import LLMMessage

        for message in payload["messages"]:
            TypeAdapter(LLMMessage).validate_python(message)
    else:
        from openai.types.chat import ChatCompletionMessageParam

        for message in payload["messages"]:
            TypeAdapter(ChatCompletionMessageParam).validate_python(message, strict=True)


@pytest.mark.parametrize(
    "cls", [OpenAIChat, OpenAIResponsesChat, AnthropicChat, GeminiChat, ZhipuChat, DoubaoChat, ScriptedChat]
)
def test_recalled_trace_builds_turn_two(cls: type[ChatLLM], tmp_path: Path) -> None:
    store = tmp_path / "memory.json"
    store.write_text(TypeAdapter(list[BaseMessage]).dump_json([recalled_turn()]).decode())

    loaded = TypeAdapter(list[BaseMessage]).validate_json(store.read_text())
    first = loaded[0]
    assert type(first) is TextMessage
    records = first.intermediate_trace.ordered()
    assert [type(r) for r in records] == [
        BaseMessage,
        AssistantTextMessage,
        BaseMessage,
        AssistantTextMessage,
        BaseMessage,
    ]
    assert type(TypeAdapter(Message).validate_json(first.model_dump_json())) is TextMessage

    turn2 = TextMessage(content="And in Berlin?", create_ts=5_000)
    payload = cls().construct_request_params(turn2, loaded)
    assert payload == cls().construct_request_params(turn2, [recalled_turn()])
    validate(cls, payload)
    assert "Checking both cities." in str(payload)
