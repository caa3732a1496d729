"""Tools from typed callables: schema, validation, failures as results, attachments."""

from __future__ import annotations

import asyncio
import time
from typing import Annotated, Literal

import pytest
from pydantic import ConfigDict, Field

from tfrobot.drive import Tool, ToolOutput, tool
from tfrobot.schema.message import ImageUserMsgPart, ToolCall, ToolReturn


def weather(city: Annotated[str, Field(description="City name")], unit: Literal["C", "F"] = "C") -> str:
    """Current weather of a city.

    Longer notes that the LLM does not need.
    """
    return f"{city}: 18{unit}"


def call(name: str, arguments: str, call_id: str = "c1") -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments=arguments)


def test_schema_comes_from_the_signature() -> None:
    spec = Tool(weather).spec
    assert spec.name == "weather"
    assert spec.description == "Current weather of a city."
    assert spec.parameters == {
        "additionalProperties": False,
        "properties": {
            "city": {"description": "City name", "title": "City", "type": "string"},
            "unit": {"default": "C", "enum": ["C", "F"], "title": "Unit", "type": "string"},
        },
        "required": ["city"],
        "type": "object",
    }


async def test_sync_and_async_tools_run() -> None:
    async def add(a: int, b: int = 1) -> dict[str, int]:
        return {"sum": a + b}

    assert (await Tool(weather).arun(call("weather", '{"city": "Paris"}'))).result == "Paris: 18C"
    result = await Tool(add).arun(call("add", '{"a": 2}'))
    assert result == ToolReturn(call_id="c1", name="add", result='{"sum": 3}')


async def test_bad_arguments_are_explained_to_the_llm() -> None:
    result = await Tool(weather).arun(call("weather", '{"unit": "K", "extra": 1}'))
    assert result.is_error
    assert "city: Field required" in result.result
    assert "unit: Input should be 'C' or 'F'" in result.result
    assert "extra: Extra inputs are not permitted" in result.result
    malformed = await Tool(weather).arun(call("weather", '{"city": '))
    assert malformed.is_error
    assert "Invalid JSON" in malformed.result


async def test_exceptions_and_timeouts_become_error_results() -> None:
    def broken(x: int) -> int:
        raise RuntimeError(f"disk full at {x}")

    async def slow() -> str:
        await asyncio.sleep(5)
        return "never"

    failed = await Tool(broken).arun(call("broken", '{"x": 3}'))
    assert (failed.is_error, failed.result) == (True, "broken failed: RuntimeError: disk full at 3")
    started = time.monotonic()
    timed_out = await Tool(slow, timeout=0.05).arun(call("slow", "{}"))
    assert (timed_out.is_error, timed_out.result) == (True, "slow timed out after 0.05 s")
    assert time.monotonic() - started < 2


async def test_attachments_flow_into_the_result() -> None:
    chart = ImageUserMsgPart(url="https://example.com/chart.png")

    @tool(name="plot")
    def make_chart(title: str) -> ToolOutput:
        return ToolOutput(result={"title": title}, attachments=[chart])

    @tool
    def snapshot() -> ImageUserMsgPart:
        return chart

    plotted = await make_chart.arun(call("plot", '{"title": "t"}'))
    assert (plotted.result, plotted.attachments) == ('{"title": "t"}', [chart])
    assert (await snapshot.arun(call("snapshot", "{}"))).attachments == [chart]


def test_var_args_are_refused_with_the_fix() -> None:
    def loose(*args: int) -> None: ...

    with pytest.raises(TypeError, match="name every parameter"):
        Tool(loose)


class _Handle:
    """An SDK object a tool source keeps on its result: JSON cannot hold it."""


class _TimedReturn(ToolReturn):
    elapsed_ms: int = 0


class _ReturnWithHandle(ToolReturn):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    raw: _Handle | None = None


async def test_a_result_subclass_is_kept_and_one_that_cannot_be_stored_is_reduced_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A tool's own `ToolReturn` subclass is kept whole (its fields are stored). One with a field JSON cannot hold
    would make the store refuse the whole turn, the user's message with it (review R20, on a real server): it
    becomes a plain `ToolReturn` of the same result, with a warning naming the class and the fix."""

    @tool(name="timed")
    def timed() -> ToolReturn:
        return _TimedReturn(call_id="x", result="ok", elapsed_ms=12)

    @tool(name="sdk")
    def sdk() -> ToolReturn:
        return _ReturnWithHandle(call_id="x", result="ok", raw=_Handle())

    kept = await timed.arun(call("timed", "{}"))
    assert type(kept) is _TimedReturn
    assert (kept.call_id, kept.elapsed_ms) == ("c1", 12)
    with caplog.at_level("WARNING", logger="tfrobot.drive.tool"):
        reduced = await sdk.arun(call("sdk", "{}"))
    assert type(reduced) is ToolReturn
    assert (reduced.call_id, reduced.name, reduced.result) == ("c1", "sdk", "ok")
    reduced.model_dump_json()
    assert "_ReturnWithHandle that cannot be stored as JSON" in caplog.text
    assert "Field(exclude=True)" in caplog.text
