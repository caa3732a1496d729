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


@pytest.mark.parametrize("case", _cases("v3"))
def test_v3_records_round_trip_byte_for_byte(case: dict[str, Any]) -> None:
    msg = _load(case)
    assert json.loads(msg.model_dump_json()) == case["record"]
    msg.to_llm_request()


_NO_INFORMATION: tuple[object, ...] = (None, "", [], {}, False, 0, {"records": []})
"""The defaults v3 leaves out (`tfrobot.schema.omission`); `{"records": []}` is a user message's empty trace."""


def _lost(old: Any, new: Any, reasoning: object, path: str = "") -> list[str]:
    """What of `old` (a v1/v2 record) is not in `new` (its v3 dump): keys left out must have held a default,
    or be the text of the reasoning block that `reasoning_content` holds (stored once); the rest is equal."""
    if isinstance(old, dict) and isinstance(new, dict):
        reasoning = old.get("reasoning_content", reasoning)
        lost = [f"{path}.{key} (not in the old record)" for key in new if key not in old]
        for key, value in old.items():
            if key in new:
                lost += _lost(value, new[key], reasoning, f"{path}.{key}")
            elif value not in _NO_INFORMATION and not (key == "text" and value == reasoning):
                lost.append(f"{path}.{key} = {value!r}")
        return lost
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [
            lost
            for i, (a, b) in enumerate(zip(old, new, strict=True))
            for lost in _lost(a, b, reasoning, f"{path}[{i}]")
        ]
    return [] if old == new else [f"{path}: {old!r} became {new!r}"]


@pytest.mark.parametrize("case", [*_cases("v1"), *_cases("v2")])
def test_v1_and_v2_records_load_and_are_rewritten_without_their_defaults(case: dict[str, Any]) -> None:
    msg = _load(case)
    rewritten = msg.model_dump_json()
    assert _lost(case["record"], json.loads(rewritten), None) == []
    again = MESSAGE.validate_json(rewritten)
    assert type(again) is type(msg)
    assert again == msg
    assert len(rewritten) < len(json.dumps(case["record"], separators=(",", ":"), ensure_ascii=False))
    msg.to_llm_request()


def test_the_v3_corpus_is_the_v1_and_v2_corpus_rewritten() -> None:
    """v3 holds what this version writes for every v1/v2 record, so both formats stay covered."""
    for version in ("v1", "v2"):
        for path in sorted((CORPUS / version).glob("*.json")):
            case = json.loads(path.read_text())
            written = json.loads((CORPUS / "v3" / f"{version}_{path.name}").read_text())
            assert written["expected_class"] == case["expected_class"]
            assert written["record"] == json.loads(_load(case).model_dump_json())


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
    assert _lost(case["record"], dumped, None) == []
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
