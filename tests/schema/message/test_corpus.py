"""Every stored record ever written loads, as its class, on every run (see corpus/README.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from tfrobot.schema.message import (
    AssistantTextMessage,
    BaseMessage,
    Message,
    MessageContractError,
    TextMessage,
    TurnFailure,
)

CORPUS = Path(__file__).parent / "corpus"
MESSAGE = TypeAdapter(Message)


def _cases(version: str) -> list[Any]:
    files = sorted((CORPUS / version).glob("*.json"))
    assert files, f"corpus {version} is empty"
    return [pytest.param(json.loads(path.read_text()), id=path.stem) for path in files]


def _load(case: dict[str, Any]) -> BaseMessage:
    msg = MESSAGE.validate_json(json.dumps(case["record"]))
    assert type(msg).__name__ == case["expected_class"]
    return msg


@pytest.mark.parametrize("case", [*_cases("v1"), *_cases("v2")])
def test_v1_and_v2_records_round_trip_byte_for_byte(case: dict[str, Any]) -> None:
    msg = _load(case)
    assert json.loads(msg.model_dump_json()) == case["record"]
    msg.to_llm_request()


@pytest.mark.parametrize("case", _cases("legacy"))
def test_legacy_records_load_and_convert(case: dict[str, Any]) -> None:
    msg = _load(case)
    for key, value in case["record"].items():
        if key != "intermediate_trace" and isinstance(value, str | int):
            assert getattr(msg, key) == value
    msg.to_llm_request()


def test_legacy_trace_records_are_restored_as_their_classes() -> None:
    case = json.loads((CORPUS / "legacy" / "user_text_with_trace.json").read_text())
    msg = _load(case)
    assert isinstance(msg, TextMessage)
    assert [type(r) for r in msg.intermediate_trace.records] == [AssistantTextMessage, BaseMessage]
    assert msg.intermediate_trace.records[0].to_llm_request().tool_calls[0].id == "c1"  # type: ignore[union-attr]


@pytest.mark.parametrize("case", _cases("future"))
def test_future_records_keep_every_field_and_never_downgrade_silently(case: dict[str, Any]) -> None:
    msg = _load(case)
    dumped = json.loads(msg.model_dump_json())
    assert {key: dumped[key] for key in case["record"]} == case["record"]
    again = MESSAGE.validate_json(msg.model_dump_json())
    assert again == msg
    if type(msg) is BaseMessage:
        with pytest.raises(MessageContractError, match=case["record"]["msg_type"]):
            msg.to_llm_request()


def test_a_failed_turn_keeps_its_typed_failure() -> None:
    case = json.loads((CORPUS / "v2" / "00_TextMessage_failed_turn.json").read_text())
    msg = _load(case)
    assert isinstance(msg, TextMessage)
    failure = msg.intermediate_trace.failure
    assert type(failure) is TurnFailure
    assert (failure.kind, failure.provider, failure.retry_after) == ("rate_limited", "openai", 2.0)
    assert type(msg.intermediate_trace.records[0]) is AssistantTextMessage
