"""Chain events carry a tool source's own result class whole, as the stored trace does (#18, review R19)."""

from __future__ import annotations

import json

from pydantic import TypeAdapter

from tfrobot.brain.chain.events import ChainEvent, ConsoleOutput, ToolCallFinished
from tfrobot.schema.message import ConsoleResult, ToolReturn


class _TimedReturn(ToolReturn):
    elapsed_ms: int = 0


class _TimedConsole(ConsoleResult):
    elapsed_ms: int = 0


def test_a_tool_result_event_sends_a_subclass_whole() -> None:
    """`ToolCallFinished.result` wrote a `ToolReturn` subclass as a `ToolReturn` (its `elapsed_ms` dropped from the
    SSE stream while the trace kept it); it is written by its own class and loads back as extra fields."""
    event = ToolCallFinished(step=0, result=_TimedReturn(call_id="c1", result="ok", elapsed_ms=12))
    assert json.loads(event.model_dump_json())["result"] == {"call_id": "c1", "result": "ok", "elapsed_ms": 12}
    restored = TypeAdapter(ChainEvent).validate_json(TypeAdapter(ChainEvent).dump_json(event))
    assert type(restored) is ToolCallFinished
    assert type(restored.result) is ToolReturn
    assert restored.result.model_extra == {"elapsed_ms": 12}


def test_a_console_event_sends_a_subclass_whole() -> None:
    event = ConsoleOutput(step=0, result=_TimedConsole(result="1", elapsed_ms=3))
    assert json.loads(event.model_dump_json())["result"]["elapsed_ms"] == 3
    assert event.model_dump()["result"]["elapsed_ms"] == 3
