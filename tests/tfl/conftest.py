"""Tools and helpers shared by the TFL tests."""

from __future__ import annotations

import asyncio
from typing import Any

from tfrobot.schema.message import ConsoleResult, ImageUserMsgPart, ToolReturn
from tfrobot.tfl import CallableToolRegistry, TFLInterpreter, TFLLimits

IMAGE = ImageUserMsgPart(url="https://example.com/cat.png", detail="a cat")


def search(query: str, n: int = 3) -> list[dict[str, Any]]:
    """Pretend web search: `n` results titled after the query."""
    return [{"title": f"{query} {i}", "rank": i} for i in range(n)]


async def fetch(url: str) -> str:
    """An async tool."""
    await asyncio.sleep(0)
    return f"<html>{url}</html>"


def photo(name: str) -> ImageUserMsgPart:
    """A tool whose result is a media part."""
    return ImageUserMsgPart(url=f"https://example.com/{name}.png", detail=name)


def chart(title: str) -> ToolReturn:
    """A tool that answers like the Drive: a ToolReturn with JSON text and an attachment."""
    return ToolReturn(call_id="x", result=f'{{"title": "{title}", "points": 3}}', attachments=[IMAGE])


def broken(reason: str = "disk full") -> None:
    """A tool that raises."""
    raise RuntimeError(reason)


def refusing() -> ToolReturn:
    """A tool that reports an error without raising."""
    return ToolReturn(call_id="x", result="quota exceeded", is_error=True)


async def slow(seconds: float = 5.0) -> str:
    """An async tool slower than the tests' time-outs."""
    await asyncio.sleep(seconds)
    return "late"


def everything(**kwargs: Any) -> dict[str, Any]:
    """Accepts any keyword, echoes them."""
    return kwargs


def registry() -> CallableToolRegistry:
    return CallableToolRegistry([search, fetch, photo, chart, broken, refusing, slow, everything])


def interpreter(**limits: Any) -> TFLInterpreter:
    return TFLInterpreter(registry(), TFLLimits(**limits))


def run(script: str, **limits: Any) -> ConsoleResult:
    return interpreter(**limits).run(script)


def ok(script: str, **limits: Any) -> str:
    """Run and insist on success; the output text."""
    result = run(script, **limits)
    assert result.trace_meta is not None
    assert result.trace_meta["ok"] is True, result.result
    return result.result


def error(script: str, **limits: Any) -> dict[str, Any]:
    """Run and insist on failure; the `trace_meta["error"]` dict."""
    result = run(script, **limits)
    assert result.trace_meta is not None
    assert result.trace_meta["ok"] is False, result.result
    found = result.trace_meta["error"]
    assert isinstance(found, dict)
    return found
