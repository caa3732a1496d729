"""`tfrobot chat`: the demo robot in the terminal, one-shot and continued across invocations."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from tfrobot.chat import TerminalConfirm, configured_llm
from tfrobot.schema.message import ToolCall
from tfrobotserver.cli import app


def _chat(*args: str) -> str:
    result = CliRunner().invoke(app, ["chat", *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_one_shot_turns_stream_the_trace_and_continue_later(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'memory.db'}"
    out = _chat("-m", "weather in Paris and Tokyo, chart it", "--memory-url", url)
    for shown in ["Two cities", "→ weather", "← Paris: 18C", "← Tokyo: 24C", "chart ready for 2", "1 attachment"]:
        assert shown in out
    assert "Paris is 18C and Tokyo 24C" in out
    found = re.search(r"conversation: (\w+)", out)
    assert found is not None
    again = _chat("-m", "and tomorrow?", "--conversation", found.group(1), "--memory-url", url)
    assert "Tomorrow looks the same." in again
    assert f"conversation: {found.group(1)}" in again


def test_interactive_mode_reads_lines_until_exit(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'memory.db'}"
    result = CliRunner().invoke(app, ["chat", "--memory-url", url], input="tomorrow?\nexit\n")
    assert result.exit_code == 0, result.output
    assert "Tomorrow looks the same." in result.output


def test_a_real_provider_needs_a_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TFROBOT_MODEL", raising=False)
    result = CliRunner().invoke(app, ["chat", "--provider", "openai", "-m", "hi"])
    assert result.exit_code == 2
    assert "needs a model" in result.output
    assert configured_llm(None, None) is None
    assert configured_llm("openai", "gpt-4o") is not None


@pytest.mark.parametrize(
    ("typed", "approved"), [("y\n", True), ("yes\n", True), ("n\n", False), ("\n", False), ("", False)]
)
async def test_the_terminal_asks_before_a_destructive_call(
    typed: str, approved: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))  # what the user types; "" is a closed stdin
    out = io.StringIO()
    ask = TerminalConfirm(Console(file=out, force_terminal=False, width=200))
    call = ToolCall(id="c1", name="refund_order", arguments='{"order_id": "B-2"}')
    assert await ask(call) is approved
    assert 'run refund_order({"order_id": "B-2"})? [y/N]' in out.getvalue()
    if not typed:
        assert "refund_order refused: no input to ask on" in out.getvalue()
