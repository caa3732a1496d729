"""MCP servers as tool sources, against the real example server (FastMCP) over stdio and streamable HTTP."""

from __future__ import annotations

import asyncio
import sys
import time

import pytest

from tests.drive.mcp.conftest import TOKEN, HttpServer, start_http_server, stdio_source, stop
from tests.drive.mcp.example_server import PNG
from tfrobot.drive import Drive
from tfrobot.drive.mcp import MCPStartError, MCPToolSource
from tfrobot.drive.tfl_registry import DriveToolRegistry
from tfrobot.schema.message import ImageUserMsgPart, ToolCall, ToolReturn
from tfrobot.tfl import TFLInterpreter


async def call(source: MCPToolSource, name: str, arguments: str) -> ToolReturn:
    return await Drive(source.tools()).acall(ToolCall(id="c1", name=name, arguments=arguments))


async def test_stdio_tools_are_listed_with_their_hints_and_called() -> None:
    source = stdio_source()
    await source.start()
    try:
        tools = {t.name: t for t in source.tools()}
        assert set(tools) == {"greet", "snapshot", "stats", "fail", "nap", "crash", "delete_note", "learn"}
        assert (tools["greet"].read_only, tools["greet"].confirm) == (True, False)
        assert (tools["delete_note"].read_only, tools["delete_note"].confirm) == (False, True)
        assert tools["greet"].spec.parameters["required"] == ["name"]
        assert source.status.state == "ready"

        greeted = await call(source, "greet", '{"name": "Ann"}')
        assert (greeted.is_error, greeted.result) == (False, "Bonjour, Ann!")  # the env the robot file gave
        image = (await call(source, "snapshot", "{}")).attachments[0]
        assert type(image) is ImageUserMsgPart
        assert (image.data, image.media_type) == (PNG, "image/png")
        stats = await call(source, "stats", '{"values": [1, 2, 3]}')
        assert (stats.is_error, stats.attachments) == (False, [])
        assert '"mean": 2.0' in stats.result
        failed = await call(source, "fail", '{"reason": "disk full"}')
        assert failed.is_error
        assert "disk full" in failed.result
    finally:
        await source.aclose()
    assert source.status.state == "stopped"


async def test_arguments_are_checked_against_the_input_schema_before_sending() -> None:
    source = stdio_source()
    await source.start()
    try:
        bad = await call(source, "stats", '{"values": ["x"], "extra": 1}')
        assert bad.is_error
        assert bad.result.startswith("invalid arguments for stats: values.0: 'x' is not of type 'number'")
        missing = await call(source, "greet", "{}")
        assert missing.result == "invalid arguments for greet: arguments: 'name' is a required property"
    finally:
        await source.aclose()


async def test_a_slow_call_times_out_and_a_dying_server_fails_the_call_at_once_then_comes_back() -> None:
    source = stdio_source(timeout=0.5)
    await source.start()
    try:
        started = time.monotonic()
        slow = await call(source, "nap", '{"seconds": 5}')
        assert (slow.is_error, slow.result) == (True, "nap timed out after 0.5 s")
        crashed = await call(source, "crash", "{}")
        assert crashed.is_error
        assert "stopped during the call" in crashed.result
        assert time.monotonic() - started < 3  # not the time-out: the end of the process was noticed
        deadline = time.monotonic() + 10
        while source.status.state != "ready" or source.status.error is not None:
            assert time.monotonic() < deadline, source.status
            await asyncio.sleep(0.1)
        assert (await call(source, "greet", '{"name": "again"}')).result == "Bonjour, again!"
    finally:
        await source.aclose()


async def test_tools_are_listed_again_when_the_server_says_they_changed() -> None:
    source = stdio_source()
    await source.start()
    try:
        version = source.version
        assert (await call(source, "learn", '{"name": "owl"}')).result == "learned owl"
        deadline = time.monotonic() + 5
        while source.version == version:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        assert "owl" in [t.name for t in source.tools()]
        assert (await call(source, "owl", "{}")).result == "I am owl"
    finally:
        await source.aclose()


async def test_a_confirm_tool_of_a_script_is_refused_and_others_run_in_tfl() -> None:
    source = stdio_source()
    await source.start()
    try:
        registry = DriveToolRegistry(Drive(source.tools()))
        ok = await TFLInterpreter(registry).aexecute(['s = stats(values=[2, 4])\nprint(s["mean"])'])
        assert ok.console_reses is not None
        assert [r.result for r in ok.console_reses if not isinstance(r, str)] == ["3.0"]
        refused = await registry.acall("delete_note", {"name": "todo"})
        assert isinstance(refused, ToolReturn)
        assert refused.is_error
    finally:
        await source.aclose()


async def test_a_server_that_cannot_start_is_a_clear_error() -> None:
    missing = MCPToolSource.stdio("ghost", "/nonexistent/mcp-server", startup_timeout=5)
    with pytest.raises(MCPStartError, match=r"MCP server 'ghost' \(/nonexistent/mcp-server\) did not start: "):
        await missing.start()
    await missing.aclose()
    broken = MCPToolSource.stdio("broken", sys.executable, ["-c", "import sys; sys.exit('no config file')"])
    with pytest.raises(MCPStartError, match="its stderr ends: no config file"):
        await broken.start()
    await broken.aclose()


async def test_http_with_a_bearer_header(http_server: HttpServer) -> None:
    source = MCPToolSource.http("remote", http_server.url, headers={"Authorization": f"Bearer {TOKEN}"})
    await source.start()
    try:
        assert (await call(source, "greet", '{"name": "Bo"}')).result == "Hello, Bo!"
        image = (await call(source, "snapshot", "{}")).attachments[0]
        assert type(image) is ImageUserMsgPart
        assert (await call(source, "fail", '{"reason": "no"}')).is_error
    finally:
        await source.aclose()
    refused = MCPToolSource.http(
        "remote", http_server.url, headers={"Authorization": "Bearer wrong"}, startup_timeout=5
    )
    with pytest.raises(MCPStartError, match="did not start"):
        await refused.start()
    await refused.aclose()


async def test_an_http_server_that_dies_fails_calls_instead_of_hanging() -> None:
    """Over HTTP the SDK drops a response stream cut by the server's death without telling the session, so
    the call in flight ends at its time-out; a ping then finds the server gone, and the calls after it fail
    at once."""
    server = start_http_server()
    source = MCPToolSource.http("remote", server.url, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=2)
    try:
        await source.start()
        crashed = await call(source, "crash", "{}")
        assert (crashed.is_error, crashed.result) == (True, "crash timed out after 2 s")
        deadline = time.monotonic() + 5
        while source.status.state == "ready":
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        started = time.monotonic()
        after = await call(source, "greet", '{"name": "x"}')
        assert after.is_error
        assert "MCP server 'remote'" in after.result
        assert time.monotonic() - started < 1.5, after.result
    finally:
        await source.aclose()
        stop(server)


def test_a_source_starts_again_after_aclose_on_another_event_loop() -> None:
    """An app's lifespan may run more than once (a test client per block), each on its own loop."""
    source = stdio_source()

    async def once() -> str:
        await source.start()
        try:
            return (await call(source, "greet", '{"name": "Cy"}')).result
        finally:
            await source.aclose()

    for _ in range(2):
        assert asyncio.run(asyncio.wait_for(once(), 60)) == "Bonjour, Cy!"
