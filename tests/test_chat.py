"""`tfrobot chat`: a robot of the server in the terminal — one-shot and continued, a robot file, provider
failures in two lines with the session going on, and the server's own store, so `tfrobot serve` lists it."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from tests.fake_provider import KEY_ENV, base_url, closed_port, fake_provider, robot_file, with_fault
from tests.robot_servers import action, serve_robots
from tfrobot.chat import TerminalConfirm
from tfrobot.schema.message import ToolCall
from tfrobotserver.cli import app
from tfrobotserver.robot.tools import BUILTIN_TOOLS


def _chat(*args: str, code: int = 0, input: str | None = None) -> str:
    result = CliRunner().invoke(app, ["chat", *args], input=input)
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return result.output


def _conversation(out: str) -> str:
    found = re.search(r"conversation: (\w+) \(continue with --conversation \1\)", out)
    assert found is not None, out
    return found.group(1)


@pytest.fixture(scope="module")
def provider_root() -> Iterator[str]:
    with fake_provider() as root:
        yield root


def test_one_shot_turns_stream_the_trace_and_continue_later(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'memory.db'}"
    out = _chat("-m", "weather in Paris and Tokyo, chart it", "--memory-url", url)
    assert "robot demo · llm scripted (scripted-1) · store sqlite+aiosqlite:///" in out
    for shown in ["Two cities", "→ weather", "← Paris: 18C", "← Tokyo: 24C", "chart ready for 2", "1 attachment"]:
        assert shown in out
    assert "Paris is 18C and Tokyo 24C" in out
    conversation = _conversation(out)
    again = _chat("-m", "and tomorrow?", "--conversation", conversation, "--memory-url", url)
    assert "Tomorrow looks the same." in again
    assert _conversation(again) == conversation


def test_interactive_mode_reads_lines_until_exit() -> None:
    out = _chat(input="tomorrow?\nexit\n")
    assert "Tomorrow looks the same." in out


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


def test_a_robot_file_chats_with_its_provider_and_tools(
    tmp_path: Path, provider_root: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV["anthropic"], "sk-ant-test-0123456789")
    bot = tmp_path / "weatherbot.yaml"
    bot.write_text(robot_file("weatherbot", "anthropic", base_url(provider_root, "anthropic")), encoding="utf-8")
    out = _chat("--robot", str(bot), "-m", "weather in Paris?")
    assert "robot weatherbot · llm anthropic (claude-sonnet-4-6) · store" in out
    assert "(scope weatherbot)" in out
    assert "→ weather" in out
    assert "Paris is 18C." in out


def test_provider_failures_print_in_two_lines_and_the_session_goes_on(
    tmp_path: Path, provider_root: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV["openai"], "sk-test-0123456789")
    bot = tmp_path / "bot.yaml"
    bot.write_text(robot_file("bot", "openai", base_url(provider_root, "openai")), encoding="utf-8")
    out = _chat(
        "--robot",
        str(bot),
        "-m",
        with_fault("weather?", "429"),
        "-m",
        with_fault("weather?", "401"),
        "-m",
        with_fault("weather?", "ok"),
    )
    lines = out.splitlines()
    failed = [i for i, line in enumerate(lines) if line.startswith("✗ ")]
    assert len(failed) == 2, out
    assert lines[failed[0]].startswith("✗ openai: rate limited: Rate limit reached")
    assert lines[failed[0] + 1] == "  fix: retry in 7 s, or raise the provider's rate limit or quota"
    assert lines[failed[1] + 1].startswith("  fix: check OPENAI_API_KEY: openai refused it")
    assert "Paris is 18C." in out  # the third turn, in the same conversation
    conversation = _conversation(out)
    assert out.count(conversation) == 2


def test_a_missing_key_is_said_before_the_first_turn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_ENV["openai"], raising=False)
    bot = tmp_path / "bot.yaml"
    bot.write_text(robot_file("bot", "openai", f"http://127.0.0.1:{closed_port()}/v1"), encoding="utf-8")
    out = _chat("--robot", str(bot), "-m", "hi", code=1)  # the last turn failed (issue 13: it exited 0)
    assert "cannot chat yet: llm (openai): openai: no API key: OPENAI_API_KEY is not set" in out
    assert "✗ openai: no API key: OPENAI_API_KEY is not set" in out
    assert "  fix: set OPENAI_API_KEY in the environment of the server" in out


def test_config_mistakes_are_one_line(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("name: bad\ntools: [teleport]\n", encoding="utf-8")
    out = CliRunner().invoke(app, ["chat", "--robot", str(tmp_path / "bad.yaml"), "-m", "hi"])
    assert out.exit_code == 2
    assert "cannot chat: " in out.output
    assert f"tools[0] (teleport): unknown built-in tool 'teleport'; built-ins: {sorted(BUILTIN_TOOLS)}" in out.output
    assert out.output.count("\n") == 1  # one line, no traceback


def test_a_start_up_failure_is_one_line_and_exit_code_2(tmp_path: Path) -> None:
    """Regression (issue 13): an MCP server that did not start printed a traceback."""
    bot = tmp_path / "bot.yaml"
    bot.write_text("name: bot\ntools:\n  - {mcp: ghost, command: /nonexistent/server}\n", encoding="utf-8")
    out = _chat("--robot", str(bot), "-m", "hi", code=2)
    assert out.startswith(f"cannot chat: {bot} (tools): tools[0]: MCP server 'ghost' (/nonexistent/server) did not")


def test_the_exit_code_is_the_last_turns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A failed turn followed by a good one exits 0; a good one followed by a failed one exits 1."""
    monkeypatch.delenv(KEY_ENV["openai"], raising=False)
    _chat("-m", "tomorrow?", "-m", "tomorrow?")
    bot = tmp_path / "bot.yaml"
    bot.write_text(robot_file("bot", "openai", f"http://127.0.0.1:{closed_port()}/v1"), encoding="utf-8")
    _chat("--robot", str(bot), "-m", "hi", "-m", "again", code=1)


def test_another_robots_conversation_is_refused_and_the_session_stops(tmp_path: Path) -> None:
    demo_conversation = _conversation(_chat("-m", "tomorrow?"))
    (tmp_path / "other.yaml").write_text("name: other\n", encoding="utf-8")
    out = _chat(
        "--robot", str(tmp_path / "other.yaml"), "--conversation", demo_conversation, "-m", "hi", "-m", "hi", code=1
    )
    assert f"✗ no conversation '{demo_conversation}' in scope 'other'" in out
    assert "You said" not in out  # neither turn ran
    assert "continue with" not in out


def test_the_terminal_and_the_server_share_one_store(
    tmp_path: Path, provider_root: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: `tfrobot chat` kept its conversations in `tfrobot.db`, `tfrobot serve` in `server.sqlite3`:
    a conversation from the terminal never showed in the console."""
    monkeypatch.setenv(KEY_ENV["openai"], "sk-test-0123456789")
    config = tmp_path / "config"
    config.mkdir()
    bot = robot_file("shared", "openai", base_url(provider_root, "openai"))
    with serve_robots(config, {"shared.yaml": bot}, {KEY_ENV["openai"]: "sk-test-0123456789"}) as url:
        out = _chat("--config", str(config), "--robot", str(config / "shared.yaml"), "-m", "weather in Paris?")
        conversation = _conversation(out)
        listed = action(url, "shared", "conversations", "aget_conversations")
        assert [c["conversationId"] for c in listed["items"]] == [conversation]
        messages = action(url, "shared", "conversations", "aget_messages", {"conversation_id": conversation})
        assert [m["text"] for m in messages["items"]] == ["weather in Paris?", "Paris is 18C."]
