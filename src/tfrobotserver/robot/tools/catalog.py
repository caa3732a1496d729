"""A robot's tools from every source its file names, as one list per turn, with each source's status.

Python tools are resolved when the catalog is built (an import error is a start-up error naming the
entry); MCP servers connect in `start()` (a server that cannot start is a start-up error unless its
entry says `optional: true`, then it is reported and retried) and stay connected until `aclose()`.
Entry options (prefix, timeout, confirm, read_only, per-tool options) apply on top of each tool's own;
two tools with one name are an error naming both sources. A source is described (in logs, start-up errors
and statuses) by its command line or URL with the credentials masked (`tfrobotserver.redaction`).
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from tfrobot.drive import BaseTool
from tfrobot.drive.mcp import MCPStartError, MCPToolSource
from tfrobotserver.redaction import redact_args, redact_text
from tfrobotserver.robot.tools.entries import MCPTools, PythonTools, ToolEntry, ToolOptions
from tfrobotserver.robot.tools.python import python_tools

logger = logging.getLogger("tfrobotserver.tools")
Kind = Literal["python", "mcp-stdio", "mcp-http"]


@dataclass(frozen=True)
class SourceInfo:
    """One source's state, for start-up logs, `/api/robots` and the console."""

    name: str
    kind: Kind
    state: str
    tools: int
    error: str | None = None
    optional: bool = False


@dataclass
class _Source:
    name: str
    kind: Kind
    entry: PythonTools | MCPTools
    python: list[BaseTool] = field(default_factory=list)
    mcp: MCPToolSource | None = None
    cached: tuple[int, list[BaseTool]] = (-1, [])


def _options(defaults: ToolOptions, own: ToolOptions | None = None) -> dict[str, object]:
    merged: dict[str, object] = {}
    for layer in (defaults, own):
        if layer is not None:
            merged.update(
                {
                    k: v
                    for k, v in layer.model_dump(include={"timeout", "confirm", "read_only"}).items()
                    if v is not None
                }
            )
    return merged


PYTHON_COMMANDS = frozenset({"python", "python3"})
"""A stdio server's `command` that means "this server's Python" (`sys.executable`): on PATH, `python` may
be another interpreter, without the packages (the `mcp` SDK) the server was installed with."""


def _entry(raw: ToolEntry) -> PythonTools | MCPTools:
    return PythonTools(python=raw) if isinstance(raw, str) else raw


class ToolCatalog:
    """The tools of one robot; `tools()` is what a turn offers the LLM."""

    def __init__(self, entries: list[ToolEntry]) -> None:
        self._sources: list[_Source] = []
        for index, raw in enumerate(entries):
            entry = _entry(raw)
            where = f"tools[{index}]"
            if isinstance(entry, PythonTools):
                try:
                    found = python_tools(entry.python)
                except ValueError as exc:
                    raise ValueError(f"{where} ({entry.python}): {exc}") from None
                tools = [t.with_options(name=entry.prefix + t.name, **_options(entry)) for t in found]
                self._sources.append(_Source(entry.python, "python", entry, python=tools))
            else:
                self._sources.append(self._mcp_source(where, entry))
        self._named(strict=True)

    @staticmethod
    def _mcp_source(where: str, entry: MCPTools) -> _Source:
        options = {"startup_timeout": entry.startup_timeout, **({"timeout": entry.timeout} if entry.timeout else {})}
        try:
            if entry.command is not None:
                source = MCPToolSource.stdio(
                    entry.mcp,
                    sys.executable if entry.command in PYTHON_COMMANDS else entry.command,
                    entry.args,
                    env=entry.resolved_env(),
                    cwd=Path(entry.cwd) if entry.cwd else None,
                    describe=" ".join(redact_args([entry.command, *entry.args])),
                    **options,
                )
                return _Source(entry.mcp, "mcp-stdio", entry, mcp=source)
            assert entry.url is not None  # the entry's validator checked one of the two
            source = MCPToolSource.http(
                entry.mcp, entry.url, headers=entry.resolved_headers(), describe=redact_text(entry.url), **options
            )
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        return _Source(entry.mcp, "mcp-http", entry, mcp=source)

    async def start(self) -> None:
        """Connect every MCP server; a required one that does not start is an `MCPStartError` naming the entry
        (`tools[i]`) with the fix."""
        for index, source in enumerate(self._sources):
            if source.mcp is None:
                continue
            if isinstance(source.entry, MCPTools) and source.entry.command in PYTHON_COMMANDS:
                logger.info(
                    "MCP server %r: command `%s` runs this server's Python, %s",
                    source.name,
                    source.entry.command,
                    sys.executable,
                )
            try:
                await source.mcp.start()
                logger.info(
                    "MCP server %r (%s): ready, %d tools", source.name, source.mcp.describe, len(source.mcp.tools())
                )
            except MCPStartError as exc:
                if isinstance(source.entry, MCPTools) and source.entry.optional:
                    logger.warning("%s (optional: its tools are missing until it answers)", exc)
                    continue
                await self.aclose()
                raise MCPStartError(
                    f"tools[{index}]: {exc}. Fix the entry's command/url (or the server), or mark it "
                    "`optional: true` to start without it"
                ) from None
        self._named(strict=True)

    async def aclose(self) -> None:
        """Disconnect every MCP server (stdio server processes end)."""
        for source in self._sources:
            if source.mcp is not None:
                await source.mcp.aclose()

    def sources(self) -> list[SourceInfo]:
        """Every source with its state: python sources are always ready."""
        infos: list[SourceInfo] = []
        for source in self._sources:
            if source.mcp is None:
                infos.append(SourceInfo(source.name, source.kind, "ready", len(source.python)))
                continue
            status = source.mcp.status
            optional = isinstance(source.entry, MCPTools) and source.entry.optional
            error = redact_text(status.error) if status.error else None  # a transport error may quote the URL
            infos.append(SourceInfo(source.name, source.kind, status.state, status.tools, error, optional))
        return infos

    def tools(self) -> list[BaseTool]:
        """Every tool, in entry order; a name taken by an earlier tool is left out (and logged)."""
        return [tool for _source, tool in self._named(strict=False)]

    def named(self) -> list[tuple[str, BaseTool]]:
        """`tools()` with the name of the source each comes from."""
        return self._named(strict=False)

    def _tools_of(self, source: _Source) -> list[BaseTool]:
        if source.mcp is None:
            return source.python
        version = source.mcp.version
        if source.cached[0] != version:
            entry = source.entry
            assert isinstance(entry, MCPTools)
            tools = [
                t.with_options(name=entry.prefix + t.name, **_options(entry, entry.tools.get(t.name)))
                for t in source.mcp.tools()
            ]
            source.cached = (version, tools)
        return source.cached[1]

    def _named(self, *, strict: bool) -> list[tuple[str, BaseTool]]:
        kept: dict[str, tuple[str, BaseTool]] = {}
        for source in self._sources:
            for tool in self._tools_of(source):
                if tool.name in kept:
                    problem = (
                        f"two tools are named {tool.name!r} (from {kept[tool.name][0]!r} and {source.name!r}); give "
                        "one source a `prefix` (e.g. prefix: fs_) or leave one of them out"
                    )
                    if strict:
                        raise ValueError(problem)
                    logger.warning("%s; the later one is left out", problem)
                    continue
                kept[tool.name] = (source.name, tool)
        return list(kept.values())
