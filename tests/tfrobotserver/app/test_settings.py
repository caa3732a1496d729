"""Server settings: defaults, server.toml, token secrets, the XDG data dir."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Annotated

import pytest
from pydantic import SecretStr, ValidationError

from tfrobotserver.actions.alias import ActionAlias
from tfrobotserver.actions.component import TFSComponent
from tfrobotserver.actions.decorator import tfs_action
from tfrobotserver.actions.injected import Injected
from tfrobotserver.app.auth import Authenticator
from tfrobotserver.app.factory import create_app
from tfrobotserver.app.runtime import load_robots
from tfrobotserver.app.settings import ServerSettings, TokenConfig, load_settings
from tfrobotserver.robot.base import Robot
from tfrobotserver.robot.demo import build_demo_robot


def test_defaults_use_the_xdg_user_data_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    settings = load_settings(None)
    assert (settings.host, settings.port, settings.tokens) == ("127.0.0.1", 8000, [])
    assert settings.resolved_data_dir() == tmp_path / "tfrobot"
    assert settings.resolved_database_url() == f"sqlite+aiosqlite:///{tmp_path / 'tfrobot' / 'server.sqlite3'}"
    assert ServerSettings(data_dir=Path("/x")).resolved_database_url() == "sqlite+aiosqlite:////x/server.sqlite3"


def test_server_toml(tmp_path: Path) -> None:
    (tmp_path / "server.toml").write_text(
        'port = 9000\ndata_dir = "/srv/tfrobot"\n'
        '[[tokens]]\nname = "ci"\nscopes = ["read", "write"]\nsecret_env = "CI_TOKEN"\n',
        encoding="utf-8",
    )
    settings = load_settings(tmp_path)
    assert settings.port == 9000
    assert settings.data_dir == Path("/srv/tfrobot")
    assert settings.tokens == [TokenConfig(name="ci", scopes=["read", "write"], secret_env="CI_TOKEN")]
    (tmp_path / "server.toml").write_text('data_dir = "data"\n', encoding="utf-8")
    assert load_settings(tmp_path).data_dir == (tmp_path / "data").resolve()
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match=r"no server\.toml and no robot configuration"):
        load_settings(empty)


def test_unknown_keys_and_token_sources_are_refused(tmp_path: Path) -> None:
    (tmp_path / "server.toml").write_text("prot = 1\n", encoding="utf-8")
    with pytest.raises(ValidationError, match="prot"):
        load_settings(tmp_path)
    with pytest.raises(ValidationError, match="exactly one of `secret` or `secret_env`"):
        TokenConfig(name="t")


def test_a_missing_or_short_secret_stops_start_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOT_SET_ANYWHERE", raising=False)
    with pytest.raises(ValueError, match=r"token 'a'.*NOT_SET_ANYWHERE.*missing or shorter than 16"):
        Authenticator([TokenConfig(name="a", secret_env="NOT_SET_ANYWHERE")])
    with pytest.raises(ValueError, match="shorter than 16"):
        Authenticator([TokenConfig(name="b", secret=SecretStr("short"))])
    assert "short" not in repr(TokenConfig(name="b", secret=SecretStr("short")))


def test_load_robots_by_import_path() -> None:
    assert [r.name for r in load_robots(["tfrobotserver.robot.demo:build_demo_robot"])] == ["demo"]
    with pytest.raises(TypeError, match="did not give a Robot"):
        load_robots(["tfrobotserver.robot.demo:demo_graph"])


def test_an_action_asking_for_an_unknown_injection_is_refused_at_start_up(tmp_path: Path) -> None:
    class Clocked(TFSComponent):
        @tfs_action(alias=ActionAlias(resource="clock", resource_op_type="get"))
        async def aget_time(self, now: Annotated[float, Injected("clock")]) -> float:
            return now

    with pytest.raises(ValueError, match=r"r/c/aget_time: asks the server to inject \['clock'\]"):
        create_app(ServerSettings(data_dir=tmp_path), robots=[Robot("r", {"c": Clocked()})])


async def test_a_server_database_from_an_older_version_is_named_with_the_fix(tmp_path: Path) -> None:
    database = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(database)
    conn.execute("CREATE TABLE memory_docs (id INTEGER PRIMARY KEY, collection TEXT, file_uri TEXT)")
    conn.commit()
    conn.close()
    app = create_app(ServerSettings(database_url=f"sqlite+aiosqlite:///{database}"), robots=[build_demo_robot()])
    with pytest.raises(RuntimeError, match=r"older TFRobot \(memory_docs lacks file_type, keywords, doc_metadata"):
        await app.state.runtime.ensure_started()
    await app.state.runtime.aclose()


def test_allowed_hosts_and_origins_are_spelled_as_the_guard_compares_them() -> None:
    settings = ServerSettings(
        allowed_hosts=["Robots.Example.com", "[::1]", "192.168.1.20"],
        allowed_origins=["https://Robots.Example.com", "http://localhost:5173/", "http://[::1]"],
    )
    assert settings.allowed_hosts == ["robots.example.com", "::1", "192.168.1.20"]
    assert settings.allowed_origins == ["https://robots.example.com:443", "http://localhost:5173", "http://[::1]:80"]
    assert ServerSettings().max_body_bytes == 16 * 1024 * 1024


@pytest.mark.parametrize(
    ("field", "value", "fix"),
    [
        ("allowed_hosts", "http://robots.example.com", "write the name alone, without scheme, port or path"),
        ("allowed_hosts", "robots.example.com:8000", "write the name alone"),
        ("allowed_origins", "robots.example.com", "write it as a browser sends it"),
        ("allowed_origins", "https://robots.example.com/console", "no path"),
        ("allowed_origins", "ftp://robots.example.com", "http(s)://host[:port]"),
    ],
)
def test_a_malformed_name_or_origin_is_refused_with_the_fix(field: str, value: str, fix: str) -> None:
    with pytest.raises(ValidationError, match=re.escape(fix)):
        ServerSettings.model_validate({field: [value]})
