"""Drive: registration and concurrent execution of a turn's calls."""

from __future__ import annotations

import asyncio

import pytest

from tfrobot.drive import Drive
from tfrobot.schema.message import BaseMessage, ToolCall, ToolReturn


async def test_parallel_calls_run_concurrently_and_keep_their_order() -> None:
    gate = asyncio.Event()

    async def wait_for_gate() -> str:
        await asyncio.wait_for(gate.wait(), timeout=2)
        return "opened"

    async def open_gate() -> str:
        gate.set()
        return "set"

    drive = Drive([wait_for_gate, open_gate])
    message = await drive.aexecute(
        [ToolCall(id="a", name="wait_for_gate"), ToolCall(id="b", name="open_gate")], conversation_id="c"
    )
    assert type(message) is BaseMessage
    assert (message.role, message.conversation_id) == ("tool", "c")
    assert message.tool_reses == [
        ToolReturn(call_id="a", name="wait_for_gate", result="opened"),
        ToolReturn(call_id="b", name="open_gate", result="set"),
    ]


async def test_unknown_tool_is_an_error_result() -> None:
    def known() -> str:
        return "x"

    result = await Drive([known]).acall(ToolCall(id="z", name="ghost"))
    assert result.is_error
    assert result.result == "unknown tool 'ghost'; tools: known"


def test_duplicate_names_are_refused() -> None:
    def dup() -> None: ...

    drive = Drive([dup])
    with pytest.raises(ValueError, match="already registered"):
        drive.register(dup)
    assert "dup" in drive
    assert [s.name for s in drive.specs] == drive.names() == ["dup"]
