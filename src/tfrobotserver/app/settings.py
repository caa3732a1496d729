"""Server configuration: tokens, where data lives, which robots to serve.

Read from `<config dir>/server.toml` when the CLI gets `--config DIR`; every field has a default
so that `tfrobot serve` works with no file at all (demo robot, SQLite in the user data dir, no
tokens and therefore loopback only). The robot configuration files of that folder (`*.yaml`,
`*.yml`, `*.json`, see `tfrobotserver.robot.config`) are served too; when the folder has any and
server.toml does not list `robots`, they replace the default demo robot. server.toml itself is
optional in a folder that has robot files.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator

from tfrobot.brain.memory import DATA_FILE, default_data_dir
from tfrobotserver.robot.config import robot_files

Scope = Literal["read", "write"]
CONFIG_FILE = "server.toml"


class TokenConfig(BaseModel):
    """A bearer token: `secret` inline or, better, the name of an environment variable holding it."""

    model_config = ConfigDict(extra="forbid")

    name: str
    scopes: list[Scope] = Field(default_factory=lambda: list[Scope](["read"]))
    secret: SecretStr | None = None
    secret_env: str | None = None

    @model_validator(mode="after")
    def _one_source(self) -> TokenConfig:
        if (self.secret is None) == (self.secret_env is None):
            raise ValueError(f"token {self.name!r}: set exactly one of `secret` or `secret_env`")
        return self

    def resolve_secret(self) -> str:
        """The secret itself; a missing environment variable is a start-up error, not an open door."""
        inline = self.secret.get_secret_value() if self.secret is not None else None
        value = inline if inline is not None else os.environ.get(self.secret_env or "", "")
        if len(value) < 16:
            raise ValueError(
                f"token {self.name!r}: the secret (from {self.secret_env or 'secret'}) is missing or shorter than "
                "16 characters; generate one with `python -c 'import secrets; print(secrets.token_urlsafe())'`"
            )
        return value


class ServerSettings(BaseModel):
    """Everything `create_app` and `tfrobot serve` need."""

    model_config = ConfigDict(extra="forbid")

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    tokens: list[TokenConfig] = Field(default_factory=list)
    data_dir: Path | None = None
    """Defaults to the XDG user data dir (platformdirs) of "tfrobot", which `tfrobot chat` uses too."""
    database_url: str | None = None
    """Any SQLAlchemy async URL; defaults to SQLite in `data_dir`."""
    pool_size: int = Field(default=10, ge=1)
    """Connections the server keeps to a client-server database (PostgreSQL); requests beyond it wait."""
    robots: list[str] = Field(default_factory=lambda: ["tfrobotserver.robot.demo:build_demo_robot"])
    """`module:callable` paths, each returning a `Robot`."""
    robot_configs: list[Path] = Field(default_factory=list)
    """Robot configuration files (YAML/JSON); relative paths are relative to the config directory."""

    def resolved_data_dir(self) -> Path:
        """`data_dir`, or the platform's user data directory for TFRobot."""
        return self.data_dir or default_data_dir()

    def resolved_database_url(self) -> str:
        """`database_url`, or the SQLite file `server.sqlite3` in the data dir (the memory store's default too)."""
        return self.database_url or f"sqlite+aiosqlite:///{self.resolved_data_dir() / DATA_FILE}"


def load_settings(config_dir: Path | None) -> ServerSettings:
    """Settings from `config_dir/server.toml`, or the defaults when there is no directory."""
    if config_dir is None:
        return ServerSettings()
    path = config_dir / CONFIG_FILE
    files = robot_files(config_dir)
    data: dict[str, Any] = {}
    if path.is_file():
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    elif not files:
        raise FileNotFoundError(
            f"{path}: no {CONFIG_FILE} and no robot configuration (*.yaml, *.yml, *.json) in the --config "
            "directory; add one or drop --config"
        )
    if files and "robots" not in data:
        data["robots"] = []
    settings = ServerSettings.model_validate(data)
    configs = [p if p.is_absolute() else (config_dir / p) for p in settings.robot_configs]
    settings.robot_configs = [p.resolve() for p in [*configs, *files]]
    if settings.data_dir is not None and not settings.data_dir.is_absolute():
        # relative to the file that says it, not to wherever the server happens to be started
        settings.data_dir = (config_dir / settings.data_dir).resolve()
    return settings
