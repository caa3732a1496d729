"""Destructive tools run only after the user's approval; every other outcome is a result saying why."""

from __future__ import annotations

import asyncio

from tfrobot.drive import Drive, Tool
from tfrobot.drive.tfl_registry import DriveToolRegistry
from tfrobot.schema.message import ToolCall
from tfrobot.tfl import TFLInterpreter

DELETED: list[str] = []


def delete_file(path: str) -> str:
    """Delete a file."""
    DELETED.append(path)
    return f"deleted {path}"


def call(path: str = "/tmp/x", call_id: str = "c1") -> ToolCall:
    return ToolCall(id=call_id, name="delete_file", arguments=f'{{"path": "{path}"}}')


def drive(timeout: float = 5.0) -> Drive:
    return Drive([Tool(delete_file, confirm=True)], confirm_timeout=timeout)


async def test_an_approved_call_runs_and_a_refused_one_does_not() -> None:
    DELETED.clear()
    asked: list[str] = []

    async def approve_a_only(c: ToolCall) -> bool:
        asked.append(c.id)
        return c.id == "a"

    result = await drive().aexecute([call("/tmp/a", "a"), call("/tmp/b", "b")], confirm=approve_a_only)
    ran, refused = result.tool_reses or []
    assert not isinstance(ran, str)
    assert not isinstance(refused, str)
    assert (ran.is_error, ran.result) == (False, "deleted /tmp/a")
    assert (refused.is_error, refused.result) == (True, "delete_file was not run: the user refused this call")
    assert DELETED == ["/tmp/a"]
    assert sorted(asked) == ["a", "b"]


async def test_no_hook_an_unanswered_question_or_a_failing_hook_refuse() -> None:
    DELETED.clear()

    async def never(c: ToolCall) -> bool:
        await asyncio.sleep(10)
        return True

    async def broken(c: ToolCall) -> bool:
        raise ConnectionError("terminal gone")

    without = await drive().acall(call())
    assert without.is_error
    assert "needs the user's confirmation, and this chat cannot ask for it" in without.result
    late = await drive(timeout=0.05).acall(call(), confirm=never)
    assert late.result == "delete_file was not run: the user did not confirm it within 0.05 s"
    failed = await drive().acall(call(), confirm=broken)
    assert "asking the user for confirmation failed (ConnectionError: terminal gone)" in failed.result
    assert DELETED == []


async def test_tools_without_confirm_never_ask() -> None:
    async def refuse(c: ToolCall) -> bool:
        raise AssertionError("asked")

    plain = Drive([delete_file])
    assert plain.needs_confirmation([call()]) == []
    assert not (await plain.acall(call(), confirm=refuse)).is_error
    assert drive().needs_confirmation([call(), ToolCall(id="u", name="unknown", arguments="{}")]) == [call()]


def test_a_script_cannot_call_a_tool_that_needs_confirmation() -> None:
    DELETED.clear()
    result = TFLInterpreter(DriveToolRegistry(drive())).run('print(delete_file(path="/tmp/s"))')
    assert result.trace_meta is not None
    assert result.trace_meta["ok"] is False
    assert "needs the user's confirmation, which a TFL script cannot ask for" in result.result
    assert DELETED == []
