"""Outside review of the `otel` branch: the spans of tools a TFL script calls, against docs/telemetry.md
(a failure, bad arguments included, is an error span under the script's span; message contents stay off
the spans unless `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` is true)."""

from __future__ import annotations

import json

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from tests.otel_memory import by_name, parent_of
from tfrobot.brain.chain.base import Chain
from tfrobot.brain.chain.llms import ScriptedChat, ScriptRule
from tfrobot.brain.demo import demo_chain
from tfrobot.drive import Drive
from tfrobot.drive.tfl_registry import DriveToolRegistry
from tfrobot.drive.tool import Tool
from tfrobot.schema.message import TextMessage
from tfrobot.tfl import TFLInterpreter

PRIVATE = "PRIVATE-ACCOUNT-42"


async def lookup(account: str) -> str:
    """Look an account up (fails, naming the account it was given, as tools' errors do)."""
    raise ValueError(f"no account {account}")


async def test_a_script_tool_failure_keeps_the_call_arguments_off_the_span_with_capture_off(
    exporter: InMemorySpanExporter,
) -> None:
    """A TFL script's failed tool call puts its arguments (inside the error text) on the span, capture off."""
    rules = [
        ScriptRule(user="go", reply="A script.", tfl_scripts=[f'lookup(account="{PRIVATE}")']),
        ScriptRule(after="console", reply="Done."),
    ]
    drive = Drive([Tool(lookup)])
    await Chain(ScriptedChat(rules=rules), drive, TFLInterpreter(DriveToolRegistry(drive))).arun(
        TextMessage(content="go")
    )
    spans = exporter.get_finished_spans()
    (failed,) = by_name(spans, "execute_tool lookup")
    assert failed.status.status_code is StatusCode.ERROR
    for span in spans:
        shown = json.dumps(
            [dict(span.attributes or {}), [dict(event.attributes or {}) for event in span.events]], default=str
        )
        assert PRIVATE not in shown, span.name
        assert PRIVATE not in (span.status.description or ""), span.name


async def test_a_script_tool_call_with_bad_arguments_is_an_error_span_under_the_script(
    exporter: InMemorySpanExporter,
) -> None:
    """A TFL script calling a tool with arguments that fail validation leaves no `execute_tool` span at all."""
    rules = [
        ScriptRule(user="go", reply="A script.", tfl_scripts=["weather(city=[1, 2])"]),
        ScriptRule(after="console", reply="Done."),
    ]
    await demo_chain(rules=rules).arun(TextMessage(content="go"))
    spans = exporter.get_finished_spans()
    (tfl,) = by_name(spans, "execute_tool tfl")
    called = by_name(spans, "execute_tool weather")
    assert len(called) == 1, [span.name for span in spans]
    assert parent_of(called[0]) == tfl.context.span_id
    assert called[0].status.status_code is StatusCode.ERROR
