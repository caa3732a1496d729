"""How a robot file names its tools: every entry of `tools:` is one of these (deployment settings only:
no action writes them, so a write token cannot point a robot at another command or server).

```yaml
tools:
  - weather                              # a built-in tool, by name
  - myapp.tools:lookup_order             # a Python callable (or a `Tool`), typed by its signature
  - myapp.tools:*                        # every tool of the module (its __all__, or its `Tool` objects)
  - {python: "myapp.tools:refund", confirm: true, timeout: 10}
  - mcp: files                           # an MCP server over stdio …
    command: python
    args: [-m, files_server]
    env: {FILES_ROOT: /srv/files, API_KEY: "${FILES_KEY}"}   # ${VAR}: from the server's environment
    prefix: fs_
    tools: {delete: {confirm: true}}     # per-tool options, by the server's tool name
  - mcp: search                          # … or over streamable HTTP
    url: http://127.0.0.1:9000/mcp
    headers: {Authorization: "Bearer ${SEARCH_TOKEN}"}          # header values come from the environment
```
"""

from __future__ import annotations

import os
import re
from string import Template
from typing import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

_NAME = r"^[A-Za-z0-9_-]+$"
_VARIABLE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")


class _Config(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ToolOptions(_Config):
    """Options of one tool, or defaults for every tool of an entry (unset: the tool's own)."""

    timeout: float | None = Field(default=None, gt=0, description="Seconds a call may take.")
    confirm: bool | None = Field(default=None, description="Ask the user before each call (destructive tools).")
    read_only: bool | None = Field(default=None, description="The tool changes nothing (read tokens may call it).")


class PythonTools(ToolOptions):
    """A built-in name, `module:function` or `module:*`, with options."""

    python: str = Field(min_length=1)
    prefix: str = Field(default="", pattern=r"^[A-Za-z0-9_-]*$", description="Put before each tool's name.")


class MCPTools(ToolOptions):
    """An MCP server: `command` (stdio) or `url` (streamable HTTP)."""

    mcp: str = Field(pattern=_NAME, description="The source's name, in statuses and the console.")
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict, description="Values may name variables: ${VAR}.")
    cwd: str | None = None
    url: str | None = Field(default=None, pattern=r"^https?://")
    headers: dict[str, str] = Field(default_factory=dict, description="Each value names a variable: ${VAR}.")
    prefix: str = Field(default="", pattern=r"^[A-Za-z0-9_-]*$")
    tools: dict[str, ToolOptions] = Field(default_factory=dict, description="Options per tool (server's names).")
    optional: bool = Field(
        default=False, description="A server that cannot start is reported, not a start-up error; retried."
    )
    startup_timeout: float = Field(default=15.0, gt=0)

    @model_validator(mode="after")
    def _one_transport(self) -> Self:
        if (self.command is None) == (self.url is None):
            raise ValueError(f"MCP server {self.mcp!r}: give exactly one of `command` (stdio) or `url` (HTTP)")
        if self.url is None and self.headers:
            raise ValueError(f"MCP server {self.mcp!r}: `headers` are for `url` servers; a stdio server gets `env`")
        if self.command is None and (self.args or self.env or self.cwd):
            raise ValueError(f"MCP server {self.mcp!r}: `args`, `env` and `cwd` are for `command` servers")
        for name, value in self.headers.items():
            if not _VARIABLE.search(value):
                raise ValueError(
                    f"MCP server {self.mcp!r}: header {name!r} is written inline; header values come from the "
                    f'environment (robot files may be shown): write e.g. "Bearer ${{MY_TOKEN}}" and set MY_TOKEN'
                )
        return self

    def resolved_env(self) -> dict[str, str]:
        """`env` with `${VAR}` replaced from the server's environment."""
        return {key: _expand(self.mcp, f"env.{key}", value) for key, value in self.env.items()}

    def resolved_headers(self) -> dict[str, str]:
        """`headers` with `${VAR}` replaced from the server's environment."""
        return {key: _expand(self.mcp, f"headers.{key}", value) for key, value in self.headers.items()}


def _expand(source: str, where: str, value: str) -> str:
    try:
        return Template(value).substitute(os.environ)
    except KeyError as exc:
        raise ValueError(
            f"MCP server {source!r}: {where} names the environment variable {exc.args[0]}, which is not set; "
            "set it where the server runs"
        ) from None
    except ValueError as exc:
        raise ValueError(f"MCP server {source!r}: {where}: {exc}; write variables as ${{NAME}}") from None


ToolEntry = str | PythonTools | MCPTools
"""One entry of a robot file's `tools:`."""
