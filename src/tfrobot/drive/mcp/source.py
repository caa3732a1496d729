"""One MCP server as a source of tools, through the official `mcp` SDK: connected for its whole lifetime.

`MCPToolSource.stdio(...)` starts a local server process, `MCPToolSource.http(...)` talks to a
streamable-HTTP server. `start()` connects, initializes and lists the tools (a failure is an
`MCPStartError` that says why, with the end of a stdio server's stderr); `aclose()` disconnects.
In between a supervisor task holds the session (the SDK's transports are anyio task groups, which
must be entered and left by one task), re-lists the tools when the server sends
`notifications/tools/list_changed`, and reconnects with back-off when the connection dies — a dead
server is noticed when its stream ends, its transport fails or a call reports the connection closed;
calls pending on it then fail at once instead of waiting for their time-out.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import anyio
import httpx
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp import ClientSession, McpError, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.message import SessionMessage

from tfrobot.drive.mcp.tool import MCPTool
from tfrobot.drive.tool import DEFAULT_TIMEOUT, ToolFailure

logger = logging.getLogger("tfrobot.drive.mcp")

Streams = tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]
Connector = Callable[[], AbstractAsyncContextManager[Streams]]
"""Opens the transport to the server (a fresh process or HTTP session each time)."""
State = Literal["starting", "ready", "reconnecting", "failed", "stopped"]

_MAX_BACKOFF = 30.0
_STDERR_TAIL = 1500


class MCPStartError(RuntimeError):
    """The server did not start or did not answer `initialize` and `tools/list` in time."""


@dataclass(frozen=True)
class SourceStatus:
    """What a source is doing now, for start-up logs and the console."""

    state: State
    tools: int
    error: str | None = None
    """Why the last connection failed or ended (None while all is well)."""
    since: float = 0.0
    """When the source entered this state (seconds since the epoch)."""


class MCPToolSource:
    """The tools of one MCP server, kept current; `tools()` is the latest listing."""

    def __init__(
        self,
        name: str,
        connector: Connector,
        *,
        describe: str,
        startup_timeout: float = 15.0,
        timeout: float = DEFAULT_TIMEOUT,
        stderr_path: Path | None = None,
    ) -> None:
        self.name = name
        self.describe = describe
        """How to reach the server, for messages (a command line or a URL; never header values)."""
        self.startup_timeout = startup_timeout
        self.timeout = timeout
        """The default time-out of its tools' calls."""
        self._connector = connector
        self._stderr_path = stderr_path
        self._tools: list[MCPTool] = []
        self._session: ClientSession | None = None
        self._status = SourceStatus("stopped", 0, since=time.time())
        self._wake = asyncio.Event()
        self._ready = asyncio.Event()
        self._attempted = asyncio.Event()
        """Set when a connection attempt has ended, well or not (`start` waits for the first)."""
        self._stale = False
        self._dead: str | None = None
        self._down = asyncio.Event()
        """Set when the current connection died (a fresh event per connection)."""
        self._stopping = False
        self._task: asyncio.Task[None] | None = None
        self._pinging: asyncio.Task[None] | None = None
        self.version = 0
        """Incremented at every new listing: callers that derive something from `tools()` can cache on it."""

    @classmethod
    def stdio(
        cls,
        name: str,
        command: str,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        describe: str | None = None,
        **options: Any,
    ) -> MCPToolSource:
        """A server run as a child process speaking over stdin/stdout. Its environment is the SDK's safe
        default (PATH, HOME …) plus `env`: the parent's secrets are not passed on unless named. `describe`: how
        messages show it (default: the command line; a server passes it with its credentials masked)."""
        params = StdioServerParameters(command=command, args=list(args), env=dict(env or {}), cwd=cwd)
        stderr_path = Path(tempfile.gettempdir()) / f"tfrobot-mcp-{name}-{uuid.uuid4().hex[:12]}.stderr"

        @asynccontextmanager
        async def connect() -> AsyncIterator[Streams]:
            with stderr_path.open("w", encoding="utf-8") as errlog:  # this attempt's stderr only
                async with stdio_client(params, errlog=errlog) as streams:
                    yield streams

        shown = describe if describe is not None else " ".join([command, *args])
        return cls(name, connect, describe=shown, stderr_path=stderr_path, **options)

    @classmethod
    def http(
        cls,
        name: str,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        describe: str | None = None,
        **options: Any,
    ) -> MCPToolSource:
        """A streamable-HTTP server at `url`; `headers` (e.g. Authorization) go with every request. `describe`:
        how messages show it (default: the URL; a server passes it with its credentials masked)."""
        timeout = httpx.Timeout(float(options.get("startup_timeout", 15.0)), read=300.0)  # read: a held SSE stream

        @asynccontextmanager
        async def connect() -> AsyncIterator[Streams]:
            async with (
                httpx.AsyncClient(headers=dict(headers or {}), timeout=timeout) as client,
                streamable_http_client(url, http_client=client) as (read, write, _),
            ):
                yield read, write

        return cls(name, connect, describe=url if describe is None else describe, **options)

    @property
    def status(self) -> SourceStatus:
        return self._status

    def tools(self) -> list[MCPTool]:
        """The tools of the latest listing (empty until connected)."""
        return list(self._tools)

    async def start(self) -> None:
        """Connect and list the tools; `MCPStartError` if that fails within `startup_timeout`. The source
        keeps trying in the background after a failure until `aclose()`."""
        if self._task is None:
            # fresh events: a source may be started again, on another event loop (a new app lifespan)
            self._wake, self._ready, self._attempted = asyncio.Event(), asyncio.Event(), asyncio.Event()
            self._stopping = False
            self._set_status("starting")
            self._task = asyncio.get_running_loop().create_task(self._supervise(), name=f"mcp:{self.name}")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._attempted.wait(), self.startup_timeout)
        if not self._ready.is_set():
            reason = self._status.error or f"no answer within {self.startup_timeout:g} s"
            raise MCPStartError(f"MCP server {self.name!r} ({self.describe}) did not start: {reason}")

    async def aclose(self) -> None:
        """Disconnect (a stdio server's process is ended) and stop reconnecting."""
        self._stopping = True
        self._wake.set()
        task, self._task = self._task, None
        if task is not None:
            try:
                await asyncio.wait_for(task, self.startup_timeout)
            except TimeoutError:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._ready.clear()
        self._set_status("stopped")
        if self._stderr_path is not None:
            self._stderr_path.unlink(missing_ok=True)

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """Call the server's tool `name`; a server that is down or dies during the call is a `ToolFailure`
        at once (the call is not left waiting for its time-out)."""
        session, down = self._session, self._down
        if session is None or down.is_set():
            reason = self._dead or self._status.error or "not connected yet"
            raise ToolFailure(f"the MCP server {self.name!r} is not connected ({reason}); try again shortly")
        call = asyncio.ensure_future(session.call_tool(name, arguments))
        died = asyncio.ensure_future(down.wait())
        try:
            await asyncio.wait({call, died}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            died.cancel()
            if not call.done():
                call.cancel()
        if not call.done() or call.cancelled():
            raise ToolFailure(f"the MCP server {self.name!r} stopped during the call: {self._dead}")
        try:
            return call.result()
        except McpError as exc:
            if exc.error.code == types.CONNECTION_CLOSED:
                self._mark_dead(f"the connection closed during a call of {name}")
                raise ToolFailure(f"the MCP server {self.name!r} closed the connection during the call") from None
            raise ToolFailure(f"the MCP server {self.name!r} refused the call: {exc.error.message}") from None

    def check_alive(self) -> None:
        """Ping the server in the background (after a call timed out): no answer within 2 s marks the
        connection dead, so the next calls fail at once and the source reconnects. Needed over HTTP, where
        the SDK drops a response stream cut by the server's death without telling the session."""
        session = self._session
        if session is None or self._dead is not None or self._pinging is not None:
            return

        async def ping() -> None:
            try:
                with anyio.fail_after(2.0):
                    await session.send_ping()
            except Exception as exc:  # no answer: treat the server as gone (if this is still its connection)
                if self._session is session:
                    self._mark_dead(f"no answer to a ping after a call timed out ({_reason(exc)})")
            finally:
                self._pinging = None

        self._pinging = asyncio.get_running_loop().create_task(ping(), name=f"mcp-ping:{self.name}")

    def _set_status(self, state: State, error: str | None = None) -> None:
        self._status = SourceStatus(state, len(self._tools), error, time.time())

    def _mark_dead(self, reason: str) -> None:
        if self._dead is None:
            self._dead = reason
            self._down.set()
            self._wake.set()
            if not self._stopping:
                self._set_status("reconnecting", reason)

    def _stderr_tail(self) -> str:
        if self._stderr_path is None or not self._stderr_path.is_file():
            return ""
        text = self._stderr_path.read_text(encoding="utf-8", errors="replace").strip()
        return f"; its stderr ends: {text[-_STDERR_TAIL:]}" if text else ""

    async def _supervise(self) -> None:
        delay = 0.5
        while not self._stopping:
            try:
                await self._connected()
                delay = 0.5
            except Exception as exc:  # any failure of the server or its transport: note it, retry later
                reason = _reason(exc) + self._stderr_tail()
                logger.warning("MCP server %r (%s): %s", self.name, self.describe, reason)
                self._set_status("failed" if not self._ready.is_set() else "reconnecting", reason)
                self._attempted.set()
            finally:
                self._session = None
            if self._stopping:
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), delay)  # aclose() cuts the back-off short
            delay = min(delay * 2, _MAX_BACKOFF)

    async def _connected(self) -> None:
        """One connection, from `initialize` until it dies or the source stops."""
        self._dead = None
        self._down = asyncio.Event()
        self._wake.clear()
        async with self._connector() as (read, write):
            relay_writer, relay_reader = anyio.create_memory_object_stream[SessionMessage | Exception](0)
            async with relay_writer, relay_reader, anyio.create_task_group() as group:
                group.start_soon(self._relay, read, relay_writer)
                async with ClientSession(relay_reader, write, message_handler=self._on_message) as session:
                    with anyio.fail_after(self.startup_timeout):
                        await session.initialize()
                        await self._list(session)
                    self._session = session
                    self._ready.set()
                    self._attempted.set()
                    self._set_status("ready")
                    await self._serve(session)
                group.cancel_scope.cancel()

    async def _serve(self, session: ClientSession) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            if self._stopping or self._dead is not None:
                return
            if self._stale:
                self._stale = False
                with anyio.fail_after(self.startup_timeout):
                    await self._list(session)
                self._set_status("ready")

    async def _relay(
        self,
        read: MemoryObjectReceiveStream[SessionMessage | Exception],
        out: MemoryObjectSendStream[SessionMessage | Exception],
    ) -> None:
        """Pass the server's messages on to the session, and notice when its stream ends (it died)."""
        async with read, out:  # the session closes the relay's end; this closes the transport's
            async for message in read:
                await out.send(message)
        self._mark_dead("the server closed its stream (the process exited?)")

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            self._mark_dead(_reason(message))
        elif isinstance(message, types.ServerNotification) and isinstance(
            message.root, types.ToolListChangedNotification
        ):
            self._stale = True
            self._wake.set()

    async def _list(self, session: ClientSession) -> None:
        listed: list[types.Tool] = []
        cursor: str | None = None
        while True:
            page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
            listed.extend(page.tools)
            cursor = page.nextCursor
            if not cursor:
                break
        tools: list[MCPTool] = []
        for item in listed:
            try:
                tools.append(MCPTool.from_listing(self, item, timeout=self.timeout))
            except ValueError as exc:  # an invalid inputSchema: that tool is left out, the others work
                logger.warning("MCP server %r: tool %r left out: %s", self.name, item.name, exc)
        self._tools = tools
        self.version += 1


def _reason(exc: BaseException) -> str:
    """A one-line cause, unwrapping the exception groups anyio raises."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, McpError):
        return f"MCP error {exc.error.code}: {exc.error.message}"
    if isinstance(exc, TimeoutError):
        return "no answer in time"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
