"""`tfrobot serve` start-ups that fail, against real processes: what the user reads, and what is left alone.

Regressions (issue 13): a second server on a port in use rewrote `<data dir>/local-token` before it found
the port taken, so the first server's console link stopped working (E); start-up errors printed Python
tracebacks instead of the file, the entry, the value and the fix, with exit code 2 (C)."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.robot_servers import LOCAL_TOKEN, serve_fails, serve_robots

BOT = "name: bot\nllm: {provider: scripted}\n"


def test_a_second_server_on_a_port_in_use_leaves_the_first_servers_secret(tmp_path: Path) -> None:
    with serve_robots(tmp_path, {"bot.yaml": BOT}, {}) as url:
        token = tmp_path / "data" / "local-token"
        assert token.read_text() == f"{LOCAL_TOKEN}\n"
        out = serve_fails(
            tmp_path,
            {"bot.yaml": BOT},
            port=urlsplit(url).port,
            env={"TFROBOT_LOCAL_TOKEN": "second-secret-0123456789"},
        )
        assert token.read_text() == f"{LOCAL_TOKEN}\n"  # the first server's console link still works
        assert f"cannot listen on 127.0.0.1:{urlsplit(url).port}: Address already in use;" in out
        assert "pick another port with --port" in out
        assert "Traceback" not in out


BAD_ROBOTS = {
    "bad-yaml": (
        "name: bot\nllm: [oops\n",
        "bot.yaml: line 3, column 1: expected ',' or ']', but got '<stream end>' while parsing a flow "
        "sequence; fix the YAML there",
    ),
    "unknown-tool": ("name: bot\nllm: {provider: scripted}\ntools: [teleport]\n", "unknown built-in tool 'teleport'"),
    "missing-module": (
        "name: bot\nllm: {provider: scripted}\ntools: [nowhere.mod:fn]\n",
        "tools[0] (nowhere.mod:fn): cannot import module 'nowhere.mod'",
    ),
    "bad-field": (
        "name: bot\nllm: {provider: scripted}\nmax_steps: many\n",
        "bot.yaml: max_steps: Input should be a valid integer, unable to parse string as an integer "
        "(got 'many'); fix it in the file",
    ),
    "mcp-command-not-found": (
        "name: bot\nllm: {provider: scripted}\ntools:\n  - {mcp: ghost, command: /nonexistent/server}\n",
        "bot.yaml (tools): tools[0]: MCP server 'ghost' (/nonexistent/server) did not start",
    ),
}
"""Case id → (robot file, what its `cannot start:` line says)."""


@pytest.fixture(scope="module")
def refused(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[Path, Future[str]]]]:
    """Case id → (its config directory, the output of its refused `tfrobot serve`). All start at once, as each
    start costs seconds of imports and none shares anything with another."""
    with ThreadPoolExecutor(len(BAD_ROBOTS)) as pool:
        started: dict[str, tuple[Path, Future[str]]] = {}
        for case, (robot, _) in BAD_ROBOTS.items():
            config = tmp_path_factory.mktemp(case)
            started[case] = config, pool.submit(serve_fails, config, {"bot.yaml": robot})
        yield started


@pytest.mark.parametrize("case", BAD_ROBOTS)
def test_start_up_errors_are_a_line_with_the_fix_and_exit_code_2(
    refused: dict[str, tuple[Path, Future[str]]], case: str
) -> None:
    config, started = refused[case]
    out = started.result()
    (line,) = [x for x in out.splitlines() if x.startswith("cannot start: ")]
    assert BAD_ROBOTS[case][1] in line, out
    assert str(config / "bot.yaml") in line
    assert "Traceback" not in out
    assert not (config / "data" / "local-token").exists()


def test_telemetry_asked_for_but_switched_off_by_the_sdk_says_so(tmp_path: Path) -> None:
    """`TFROBOT_OTEL=1` (as `--otel`) with `OTEL_SDK_DISABLED=true` exported nothing and said nothing."""
    env: dict[str, str | None] = {"TFROBOT_OTEL": "1", "OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": None}
    with serve_robots(tmp_path, {"bot.yaml": BOT}, env):
        pass
    out = " ".join((tmp_path / "serve.log").read_text().split())  # once stopped: flushed; unwrapped
    assert "telemetry: asked for, but off: OTEL_SDK_DISABLED=true switches the OpenTelemetry SDK off" in out, out
    assert "traces exported" not in out


def test_otlp_over_grpc_is_refused_at_start_up(tmp_path: Path) -> None:
    env = {"TFROBOT_OTEL": "1", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
    out = serve_fails(tmp_path, {"bot.yaml": BOT}, env=env)
    (line,) = [x for x in out.splitlines() if x.startswith("cannot start: ")]
    assert "OTEL_EXPORTER_OTLP_PROTOCOL='grpc': TFRobot exports OTLP over http/protobuf only" in line, out
    assert "Traceback" not in out
