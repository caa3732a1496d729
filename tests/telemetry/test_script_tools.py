"""The span of a tool a TFL script calls, on the paths the review's tests leave out: with contents captured
the failure's text is on it (as a model-called tool's error result is), and a tool the script may not call
(it needs the user's confirmation) is an error span too, under the script's."""

from __future__ import annotations

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from tests.otel_memory import by_name, parent_of
from tfrobot.brain.chain.base import Chain
from tfrobot.brain.chain.llms import ScriptedChat, ScriptRule
from tfrobot.drive import Drive
from tfrobot.drive.tfl_registry import DriveToolRegistry
from tfrobot.drive.tool import Tool
from tfrobot.schema.message import TextMessage
from tfrobot.telemetry import CAPTURE_CONTENT_ENV
from tfrobot.tfl import TFLInterpreter


async def lookup(account: str) -> str:
    """Look an account up (fails, naming the account)."""
    raise ValueError(f"no account {account}")


async def transfer(account: str) -> str:
    """Move money (needs the user's confirmation)."""
    return f"moved from {account}"


async def _run_script(script: str, tools: list[Tool]) -> None:
    rules = [ScriptRule(user="go", reply="A script.", tfl_scripts=[script]), ScriptRule(after="console", reply="Ok.")]
    drive = Drive(tools)
    await Chain(ScriptedChat(rules=rules), drive, TFLInterpreter(DriveToolRegistry(drive))).arun(
        TextMessage(content="go")
    )


async def test_with_contents_captured_the_failure_text_is_the_spans_result(
    exporter: InMemorySpanExporter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CAPTURE_CONTENT_ENV, "true")
    await _run_script('lookup(account="A-1")', [Tool(lookup)])
    (failed,) = by_name(exporter.get_finished_spans(), "execute_tool lookup")
    attributes = dict(failed.attributes or {})
    assert attributes["error.type"] == "tool_error"
    assert "no account A-1" in str(attributes["gen_ai.tool.call.result"])
    assert failed.status.status_code is StatusCode.ERROR
    assert not failed.events  # a result, not an exception: the same on both paths


async def test_a_tool_needing_confirmation_is_an_error_span_under_the_script(
    exporter: InMemorySpanExporter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(CAPTURE_CONTENT_ENV, raising=False)
    await _run_script('transfer(account="A-1")', [Tool(transfer, confirm=True)])
    spans = exporter.get_finished_spans()
    (tfl,) = by_name(spans, "execute_tool tfl")
    (refused,) = by_name(spans, "execute_tool transfer")
    assert parent_of(refused) == tfl.context.span_id
    assert (refused.attributes or {})["error.type"] == "tool_error"
    assert "gen_ai.tool.call.result" not in (refused.attributes or {})
