"""The `tfrobot` command: serve's bind rules and the demo sub-command."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from pydantic import SecretStr
from typer.testing import CliRunner

from tfrobotserver.app.settings import ServerSettings, TokenConfig
from tfrobotserver.cli import (
    LOCAL_TOKEN_ENV,
    app,
    bound_settings,
    make_local_secret,
    plan_bind,
    write_local_secret,
)

runner = CliRunner()


def test_without_tokens_only_loopback_is_bound() -> None:
    host, port, notes = plan_bind(ServerSettings(), "0.0.0.0", None)
    assert (host, port) == ("127.0.0.1", 8000)
    assert notes[0] == "no token configured: refusing to bind 0.0.0.0; binding 127.0.0.1 only"
    assert plan_bind(ServerSettings(), "::1", 9001)[:2] == ("::1", 9001)
    assert plan_bind(ServerSettings(), "localhost", None)[0] == "localhost"


def test_with_tokens_any_host_is_allowed() -> None:
    settings = ServerSettings(tokens=[TokenConfig(name="t", secret=SecretStr("x" * 20))])
    assert plan_bind(settings, "0.0.0.0", 80) == ("0.0.0.0", 80, [])


def test_help_lists_serve_and_demo() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    assert "serve" in result.output
    assert "demo" in result.output
    serve_help = runner.invoke(app, ["serve", "--help"])
    assert "--config" in serve_help.output


def test_serve_refuses_a_missing_config_dir(tmp_path: Path) -> None:
    result = runner.invoke(app, ["serve", "--config", str(tmp_path / "nope")])
    assert result.exit_code == 2


def test_demo_runs_the_message_demo() -> None:
    result = runner.invoke(app, ["demo"])
    assert result.exit_code == 0, result.output
    assert "every class intact" in result.output


def test_serve_reports_config_mistakes_without_a_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TFROBOT_NO_SUCH_SECRET", raising=False)
    (tmp_path / "server.toml").write_text('[[tokens]]\nname = "ci"\nsecret_env = "TFROBOT_NO_SUCH_SECRET"\n')
    result = runner.invoke(app, ["serve", "--config", str(tmp_path)])
    assert result.exit_code == 2
    assert "cannot start: token 'ci'" in result.output
    assert "Traceback" not in result.output
    (tmp_path / "server.toml").write_text('robots = ["tfrobotserver.robot.demo:nothing_here"]\n')
    result = runner.invoke(app, ["serve", "--config", str(tmp_path)])
    assert result.exit_code == 2
    assert "did not give a Robot" in result.output


def test_serve_reports_robot_file_mistakes(tmp_path: Path) -> None:
    (tmp_path / "bot.yaml").write_text("name: bot\ntools: [teleport]\n", encoding="utf-8")
    result = runner.invoke(app, ["serve", "--config", str(tmp_path)])
    assert result.exit_code == 2
    assert "bot.yaml: tools[0] (teleport): unknown built-in tool 'teleport'" in result.output
    (tmp_path / "bot.yaml").write_text("name: bot\nllm: {provider: scripted, model: 3}\n", encoding="utf-8")
    result = runner.invoke(app, ["serve", "--config", str(tmp_path)])
    assert result.exit_code == 2
    assert "bot.yaml" in result.output


def test_serve_refuses_several_workers_on_sqlite(tmp_path: Path) -> None:
    (tmp_path / "server.toml").write_text(f'data_dir = "{tmp_path}"\n')
    result = runner.invoke(app, ["serve", "--config", str(tmp_path), "--workers", "2"])
    assert result.exit_code == 2
    assert "--workers 2 needs a client-server database" in result.output
    assert "Traceback" not in result.output


def test_the_local_secret_is_random_or_pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(LOCAL_TOKEN_ENV, raising=False)
    first, second = make_local_secret(), make_local_secret()
    assert first != second
    assert len(first) >= 40
    monkeypatch.setenv(LOCAL_TOKEN_ENV, "pinned-secret-0123456789")
    assert make_local_secret() == "pinned-secret-0123456789"
    monkeypatch.setenv(LOCAL_TOKEN_ENV, "short")
    with pytest.raises(ValueError, match="shorter than 16 characters; unset it"):
        make_local_secret()


def test_the_local_secret_file_is_for_its_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "data" / "local-token"
    write_local_secret(path, "first-secret-0123456789")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    path.chmod(0o644)  # a file left readable by an older start
    write_local_secret(path, "second-secret-0123456789")
    assert (path.read_text(), stat.S_IMODE(path.stat().st_mode)) == ("second-secret-0123456789\n", 0o600)
    planted = tmp_path / "planted"
    os.symlink(tmp_path / "elsewhere", planted)
    with pytest.raises(OSError, match="Too many levels of symbolic links"):
        write_local_secret(planted, "third-secret-0123456789")
    assert not (tmp_path / "elsewhere").exists()


def test_bound_settings_take_the_bound_address_and_the_allowed_hosts() -> None:
    settings = bound_settings(ServerSettings(allowed_hosts=["a.example"]), "::1", 9000, ["B.example"])
    assert (settings.host, settings.port, settings.allowed_hosts) == ("::1", 9000, ["a.example", "b.example"])
    with pytest.raises(ValueError, match="write the name alone"):
        bound_settings(ServerSettings(), "127.0.0.1", 8000, ["http://b.example"])


def test_serve_help_names_the_browser_options() -> None:
    serve_help = runner.invoke(app, ["serve", "--help"], terminal_width=200).output
    assert "--allowed-host" in serve_help
    assert "--no-local-token" in serve_help
