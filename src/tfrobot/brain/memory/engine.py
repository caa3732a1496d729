"""The SQL engine of the memory store and its migrations: where the database is, how to connect, how to upgrade.

`SQLMessageStore` builds its engine here and migrates through `migrate_blocking`; the server reads the default
location (`default_data_dir`, `DATA_FILE`). SQLite connections get WAL, a busy timeout and foreign keys, and their
own ``BEGIN`` (``BEGIN IMMEDIATE`` for writes, see `_sqlite_begin`); the migrations are the packaged Alembic
scripts of `migrations/`, run without an alembic.ini.
"""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path
from typing import Any, Final

import platformdirs
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from tfrobot.brain.memory.availability import watch_lost_connections

__all__ = [
    "DATA_FILE",
    "MEMORY_URL_ENV",
    "MIGRATIONS_DIR",
    "WRITE_OPTION",
    "alembic_config",
    "create_store_engine",
    "default_data_dir",
    "default_url",
    "migrate_blocking",
    "normalize_url",
]

MEMORY_URL_ENV: Final = "TFROBOT_MEMORY_URL"
"""Environment variable that overrides the default store URL."""
DATA_FILE: Final = "server.sqlite3"
"""The SQLite file of the data directory: `tfrobot serve` keeps its data there and `tfrobot chat` its
conversations, so that a conversation from the terminal shows in the console."""

MIGRATIONS_DIR: Final = Path(__file__).with_name("migrations")

WRITE_OPTION: Final = "tfrobot_write"
"""The execution option that marks an engine's transactions as writes (SQLite then takes its write lock up front)."""
_MIGRATION_LOCK: Final = 0x7466_726F_626F_74  # "tfrobot": serializes concurrent migrate() on one PostgreSQL database


def default_data_dir() -> Path:
    """The user's data directory for TFRobot (`~/.local/share/tfrobot/` on Linux), shared by serve and chat."""
    return platformdirs.user_data_path("tfrobot", appauthor=False)


def default_url() -> str:
    """`$TFROBOT_MEMORY_URL`, else `DATA_FILE` in `default_data_dir()` (the server's default database)."""
    env = os.environ.get(MEMORY_URL_ENV)
    if env:
        return env
    return f"sqlite+aiosqlite:///{default_data_dir() / DATA_FILE}"


def normalize_url(url: str | URL) -> URL:
    """`url` with the async driver of its backend (plain ``sqlite://`` / ``postgresql://`` are accepted), or a
    `ValueError` naming the URL (password hidden) and the two forms that work."""
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return parsed.set(drivername="sqlite+aiosqlite")
    if backend == "postgresql":
        return parsed.set(drivername="postgresql+asyncpg")
    raise ValueError(
        f"memory store URL {parsed.render_as_string(hide_password=True)!r}: unsupported backend {backend!r}; "
        "use sqlite+aiosqlite:///path/to/file.db or postgresql+asyncpg://user:password@host/db"
    )


def alembic_config(url: str | URL) -> Config:
    """An Alembic config for the packaged migrations and `url` (no alembic.ini needed)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    rendered = make_url(url).render_as_string(hide_password=False)
    config.set_main_option("sqlalchemy.url", rendered.replace("%", "%%"))
    return config


def create_store_engine(url: URL, busy_timeout: float, **kwargs: Any) -> AsyncEngine:
    """An async engine for `url`; on SQLite with WAL, the busy timeout and our own BEGIN (see `_sqlite_begin`)."""
    if url.get_backend_name() != "sqlite":
        engine = create_async_engine(url, **kwargs)
        watch_lost_connections(engine)
        return engine
    engine = create_async_engine(url, connect_args={"timeout": busy_timeout}, **kwargs)

    def on_connect(dbapi_connection: Any, _record: object) -> None:
        # The driver's own implicit BEGIN is switched off: `_sqlite_begin` issues the right kind.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout * 1000)}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    sa.event.listen(engine.sync_engine, "connect", on_connect)
    sa.event.listen(engine.sync_engine, "begin", _sqlite_begin)
    return engine


_ALEMBIC_LOCK: Final = threading.Lock()


def migrate_blocking(url: URL, busy_timeout: float, legacy_scope: str) -> None:
    """``alembic upgrade head`` on `url`, for a worker thread: Alembic keeps its migration context in module
    globals, so one upgrade at a time per process (`_ALEMBIC_LOCK`), each on its own event loop and engine."""
    with _ALEMBIC_LOCK:
        asyncio.run(_migrate(url, busy_timeout, legacy_scope))


async def _migrate(url: URL, busy_timeout: float, legacy_scope: str) -> None:
    engine = create_store_engine(url, busy_timeout, poolclass=sa.pool.NullPool)
    config = alembic_config(url)
    config.attributes["legacy_scope"] = legacy_scope
    try:
        async with engine.execution_options(**{WRITE_OPTION: True}).begin() as conn:
            if url.get_backend_name() == "postgresql":
                await conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
            await conn.run_sync(_upgrade, config)
    finally:
        await engine.dispose()


def _upgrade(connection: Connection, config: Config) -> None:
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


def _sqlite_begin(conn: Connection) -> None:
    """Writes take SQLite's write lock up front (then wait up to the busy timeout); reads stay deferred."""
    conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get(WRITE_OPTION) else "BEGIN")
