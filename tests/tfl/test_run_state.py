"""`run_state.py`: the ConsoleResult contract of a run, successful or failed, and its summary."""

from __future__ import annotations

from tests.tfl.conftest import run
from tfrobot.schema.message import BaseMessage, ConsoleResult, LLMTFLMessage


def test_success_console_result_contract() -> None:
    script = 'print("hi")\nprint(len(search("q")))'
    result = run(script)
    assert type(result) is ConsoleResult
    assert result.result == "hi\n3"
    assert result.summary_result == "hi\n3"
    assert result.script == script
    assert result.attachments == []
    meta = result.trace_meta
    assert meta is not None
    assert meta["ok"] is True
    assert meta["tool_calls"] == 1
    assert isinstance(meta["steps"], int)
    assert meta["steps"] > 5
    assert isinstance(meta["duration_ms"], float)
    assert "error" not in meta


def test_error_console_result_contract() -> None:
    script = 'print("before")\nx = [1, 2]\ny = x[5]\nprint("after")'
    result = run(script)
    assert result.result == (
        "before\n"
        "TFL index error at line 3, column 7: index 5 is out of range for a list of 2 items\n"
        "3 | y = x[5]\n"
        "  |       ^"
    )
    meta = result.trace_meta
    assert meta is not None
    assert meta["ok"] is False
    assert meta["error"] == {
        "kind": "index",
        "line": 3,
        "column": 7,
        "message": "index 5 is out of range for a list of 2 items",
    }
    assert isinstance(meta["steps"], int)
    assert isinstance(meta["duration_ms"], float)


def test_console_result_travels_as_a_console_message() -> None:
    result = run('attach(photo("cat"))\nprint("done")')
    message = BaseMessage(role="console", console_reses=[result])
    restored = BaseMessage.model_validate_json(message.model_dump_json())
    converted = restored.to_llm_request()
    assert isinstance(converted, list)
    assert isinstance(converted[0], LLMTFLMessage)
    assert converted[0].content == "done"
    assert len(converted) == 2  # the attachment rides in a user message after the console text


def test_summary_result_is_short_and_keeps_both_ends() -> None:
    result = run('for i in range(300):\n    print("line", i)', summary_chars=200)
    assert len(result.result) > 2000
    summary = result.summary_result
    assert summary is not None
    assert len(summary) < 260
    assert summary.startswith("line 0\n")
    assert summary.endswith("line 299")
    assert "characters omitted" in summary


def test_summary_of_a_failed_long_run_keeps_the_whole_error() -> None:
    result = run('for i in range(500):\n    print("line", i)\nx = 1 / 0', summary_chars=200)
    summary = result.summary_result
    assert summary is not None
    assert len(summary) <= 200
    assert summary.startswith("line 0\n")
    assert "characters omitted" in summary
    assert summary.endswith("TFL value error at line 3, column 7: division by zero\n3 | x = 1 / 0\n  |       ^")
    assert result.result.endswith(summary.rsplit("line 499\n", 1)[1])
