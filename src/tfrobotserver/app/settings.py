"""Server configuration: tokens, where data lives, which robots to serve.

Read from `<config dir>/server.toml` when the CLI gets `--config DIR`; every field has a default
so that `tfrobot serve` works with no file at all (demo robot, SQLite in the user data dir, no
tokens and therefore loopback only). The robot configuration files of that folder (`*.yaml`,
`*.yml`, `*.json`, see `tfrobotserver.robot.config`) are served too; when the folder has any and
server.toml does not list `robots`, they replace the default demo robot. server.toml itself is
optional in a folder that has robot files.
"""

from __future__ import annotations

import ipaddress
import os
import re
import tomllib
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

from tfrobot.brain.memory import DATA_FILE, default_data_dir
from tfrobotserver.robot.config import robot_files

Scope = Literal["read", "write"]
CONFIG_FILE = "server.toml"
MIB = 1024 * 1024
_LABEL = r"[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?"
_HOST_NAME = re.compile(rf"^(?=.{{1,253}}$){_LABEL}(\.{_LABEL})*$")
_DEFAULT_PORTS = {"http": 80, "https": 443}


def host_name(value: str) -> str:
    """`value` as the guard compares it: lower case, IPv6 without brackets; a ValueError names the fix.

    A port is not part of it: the name is what a DNS-rebinding page controls, and a port would break
    access through a port mapping (`docker -p 9000:8000`) or a proxy.
    """
    name = value.strip().lower()
    bare = name[1:-1] if name.startswith("[") and name.endswith("]") else name
    try:
        return str(ipaddress.ip_address(bare))
    except ValueError:
        pass
    if not _HOST_NAME.match(name):
        raise ValueError(
            f"{value!r} is not a host name or IP address; write the name alone, without scheme, port or path "
            "(e.g. 'robots.example.com' or '192.168.1.20')"
        )
    return name


def origin(value: str) -> str:
    """`value` as `scheme://host:port` (lower case, the port always spelled); a ValueError names the fix."""
    parts = urlsplit(value.strip().lower())
    example = "write it as a browser sends it, e.g. 'https://console.example.com' or 'http://localhost:5173'"
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname or parts.path not in ("", "/"):
        raise ValueError(f"{value!r} is not an origin (http(s)://host[:port], no path); {example}")
    if parts.query or parts.fragment or parts.username or parts.password:
        raise ValueError(f"{value!r} is not an origin: it has a query, fragment or user; {example}")
    try:
        port = parts.port or _DEFAULT_PORTS[parts.scheme]
    except ValueError:
        raise ValueError(f"{value!r} has an invalid port; {example}") from None
    host = host_name(parts.hostname)
    return f"{parts.scheme}://{f'[{host}]' if ':' in host else host}:{port}"


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
    allowed_hosts: list[str] = Field(default_factory=list)
    """Names a request's `Host` may carry besides localhost, loopback addresses and `host`: the names a
    reverse proxy or a colleague uses to reach this server. Any other Host is refused (DNS rebinding)."""
    allowed_origins: list[str] = Field(default_factory=list)
    """Browser origins besides the server's own that may call it, e.g. the public origin of a reverse
    proxy that rewrites `Host`. No CORS header is ever sent: this never lets another site read answers."""
    max_body_bytes: int = Field(default=16 * MIB, ge=1024)
    """Largest request body accepted; larger ones are a 413 before they are read. 16 MiB holds a
    file of 12 MiB sent base64-encoded to `aingest_file`."""

    @field_validator("allowed_hosts")
    @classmethod
    def _host_names(cls, value: list[str]) -> list[str]:
        return [host_name(v) for v in value]

    @field_validator("allowed_origins")
    @classmethod
    def _origins(cls, value: list[str]) -> list[str]:
        return [origin(v) for v in value]

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
