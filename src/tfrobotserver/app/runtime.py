"""What a running app holds: robots, the database engine, and the token table.

Start-up (table creation, component `aon_startup`) runs once, lazily on the first request as
well as from the lifespan, so that an app driven without lifespan events (httpx's ASGITransport)
behaves the same as one under Uvicorn.

The server's tables are created from `storage.metadata` (`create_all`), which never alters an existing
table; a column added to the code since a database was created is added at start-up when the database
can fill the existing rows (a server default or NULL: `ALTER TABLE … ADD COLUMN … DEFAULT …`, rows kept),
and a database lacking any other column is refused with the fix.

Robots are isolated from each other: each keeps its conversations in its own scope of the message
store (one store per database, shared: `stores.py`), and a document or graph collection belongs to
one robot only — two robots naming the same one is refused when the runtime is built, and a robot
naming a collection that another server's robot claimed on the same database at start-up (`claims.py`).
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Final

from sqlalchemy import Column, Connection, inspect, text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.schema import CreateColumn

from tfrobot.brain.memory import watch_lost_connections
from tfrobot.drive.mcp import MCPStartError
from tfrobotserver.actions.injected import ASYNC_SESSION, PRINCIPAL, ROBOT, STEP_PREPARER, TURN_PREPARER
from tfrobotserver.app.claims import check_collections, claim_collections
from tfrobotserver.app.readiness import chat_readiness
from tfrobotserver.app.settings import ServerSettings
from tfrobotserver.app.stores import MessageStores
from tfrobotserver.app.turns import Turns
from tfrobotserver.robot.base import Robot
from tfrobotserver.robot.factory.brain.conversations import ConversationsComponent
from tfrobotserver.robot.factory.config_mixin import ConfigurableMixin
from tfrobotserver.storage import metadata

logger = logging.getLogger("tfrobotserver")

PROVIDED = frozenset({ASYNC_SESSION, PRINCIPAL, ROBOT, STEP_PREPARER, TURN_PREPARER})
"""Context keys the server can inject into action parameters."""
_STARTUP_LOCK: Final = 0x7466_7365_7276_6572  # "tfserver": one start-up at a time per PostgreSQL database
logger = logging.getLogger("tfrobotserver")


def load_robots(paths: Sequence[str]) -> list[Robot]:
    """Import each `module:callable` and call it; the result must be a `Robot`."""
    robots: list[Robot] = []
    for path in paths:
        module_name, _, attr = path.partition(":")
        factory = getattr(importlib.import_module(module_name), attr or "build_robot", None)
        robot = factory() if callable(factory) else None
        if not isinstance(robot, Robot):
            raise TypeError(f"robots: {path!r} did not give a Robot; point it at a function returning one")
        robots.append(robot)
    return robots


class StartupError(RuntimeError):
    """A start-up the user can fix (a collection another server's robot owns, an MCP server that did not
    start, a database of an older TFRobot): the message names the file or entry and the fix, and
    `tfrobot serve` prints it in a line and exits 2 instead of a traceback."""


def _addable(column: Column[object]) -> bool:
    """Whether existing rows can be given the column by the database itself (a server default, or NULL)."""
    return not column.primary_key and (column.server_default is not None or column.nullable is True)


def _add_missing_columns(conn: Connection) -> dict[str, list[str]]:
    """Add the columns the code has and an existing table lacks, where the database can fill the existing
    rows (`_addable`); return table → the columns still missing (create_all never alters a table)."""
    inspector = inspect(conn)
    stale: dict[str, list[str]] = {}
    for table in metadata.sorted_tables:
        have = {column["name"] for column in inspector.get_columns(table.name)}
        for column in [c for c in table.columns if c.name not in have]:
            if not _addable(column):
                stale.setdefault(table.name, []).append(column.name)
                continue
            definition = CreateColumn(column).compile(dialect=conn.dialect)
            conn.execute(
                text(f"ALTER TABLE {conn.dialect.identifier_preparer.format_table(table)} ADD COLUMN {definition}")
            )
            logger.warning(
                "the server database lacked %s.%s (an older TFRobot): added as %s", table.name, column.name, definition
            )
    return stale


class Runtime:
    """Robots by name plus the engine their components share."""

    def __init__(self, settings: ServerSettings, robots: Sequence[Robot]) -> None:
        names = [r.name for r in robots]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"robots: names {duplicates} are used twice; give each robot its own name")
        for robot in robots:
            for comp_name, comp in robot.components.items():
                for action in type(comp).tfs_bound_actions().values():
                    unknown = sorted(set(action.injected.values()) - PROVIDED)
                    if unknown:
                        raise ValueError(
                            f"{robot.name}/{comp_name}/{action.name}: asks the server to inject {unknown}, which "
                            "it does not provide; use AsyncSession, Principal or Injected(key) with a key in "
                            f"{sorted(PROVIDED)}"
                        )
        check_collections(robots)
        self.settings = settings
        self.robots: dict[str, Robot] = {r.name: r for r in robots}
        url = settings.resolved_database_url()
        # fixed pool, as `SQLMessageStore`'s: a burst waits for a connection rather than opening new backends
        pooling = {} if url.startswith("sqlite") else {"pool_size": settings.pool_size, "max_overflow": 0}
        self.engine: AsyncEngine = create_async_engine(url, **pooling)
        watch_lost_connections(self.engine)
        self.sessions: async_sessionmaker[AsyncSession] = async_sessionmaker(self.engine, expire_on_commit=False)
        self.stores = MessageStores()
        """The robots' message stores, one per database."""
        self.turns = Turns()
        """The chat turns running now (each in its own task)."""
        self._started = False
        self._lock = asyncio.Lock()

    async def ensure_started(self) -> None:
        """Create tables and let each component seed itself, exactly once."""
        if self._started:
            return
        async with self._lock, self._startup_lock():
            if self._started:
                return
            database = self.engine.url.database
            if self.engine.url.get_backend_name() == "sqlite" and database not in (None, "", ":memory:"):
                Path(str(database)).parent.mkdir(parents=True, exist_ok=True)
            async with self.engine.begin() as conn:
                await conn.run_sync(metadata.create_all)
                stale = await conn.run_sync(_add_missing_columns)
            if stale:
                shown = "; ".join(f"{table} lacks {', '.join(cols)}" for table, cols in stale.items())
                raise StartupError(
                    f"the server database {self.engine.url.render_as_string(hide_password=True)} was created by an "
                    f"older TFRobot ({shown}); its tables hold only seed data and component edits: drop them (or "
                    "delete the SQLite file), or set database_url to a new database"
                )
            try:
                async with self.engine.begin() as conn:
                    await conn.run_sync(claim_collections, list(self.robots.values()))
            except ValueError as exc:
                raise StartupError(str(exc)) from None
            server_url = self.engine.url.render_as_string(hide_password=False)
            for robot in self.robots.values():
                for name, component in robot.components.items():
                    try:
                        if isinstance(component, ConversationsComponent):
                            await component.aopen_store(self.stores.open, server_url)
                        # one transaction per component: a SQLite write lock is not held across another's start-up
                        async with self.sessions.begin() as session:
                            if isinstance(component, ConfigurableMixin):
                                await component.load_saved_config(session)
                            await component.aon_startup(session)
                    except (ValueError, MCPStartError) as exc:
                        raise StartupError(f"{robot.source or robot.name} ({name}): {exc}") from None
            self._started = True
            self._log_readiness()

    def _log_readiness(self) -> None:
        """Say which robots can chat and which cannot (and why, with the fix), once per start."""
        for robot in self.robots.values():
            status = chat_readiness(robot)
            if status is None:
                continue
            if status.ready:
                logger.info("robot %r can chat", robot.name)
            for problem in status.problems:
                verdict = "has a warning" if status.ready else "cannot chat"
                logger.warning("robot %r %s: %s", robot.name, verdict, problem)
        logger.info("conversation stores: %s", ", ".join(self.stores.describe()) or "none")

    @asynccontextmanager
    async def _startup_lock(self) -> AsyncIterator[None]:
        """On PostgreSQL, one server process at a time creates tables and seeds: two processes starting
        together on one database would otherwise both find a component's table empty and both seed it
        (and race `CREATE TABLE`). A session-level advisory lock on its own connection, released at the end."""
        if self.engine.url.get_backend_name() != "postgresql":
            yield
            return
        async with self.engine.connect() as conn:
            await conn.execute(text("SELECT pg_advisory_lock(:key)"), {"key": _STARTUP_LOCK})
            try:
                yield
            finally:
                await conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": _STARTUP_LOCK})

    async def aclose(self) -> None:
        """Release database connections (the engine's and the components' own stores).

        The runtime may be started again afterwards (a lifespan per test client, a reloaded app): start-up
        then runs anew, reopening what components closed."""
        async with self._lock:
            await self.turns.aclose()  # running turns finish (and are stored) before their stores close
            for robot in self.robots.values():
                for component in robot.components.values():
                    await component.aclose()
            await self.stores.aclose()
            await self.engine.dispose()
            self._started = False
