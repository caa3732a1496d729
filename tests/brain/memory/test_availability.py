"""A database that goes away: a clear error, nothing accepted lost, and recovery on its own."""

from __future__ import annotations

import asyncio
import socket
import sqlite3
import types
from pathlib import Path

import asyncpg
import pytest
import sqlalchemy as sa

from tests.brain.memory.conftest import pg_execute, reply, run_sync, trace_turn
from tfrobot.brain.memory import MemoryStoreError, MemoryStoreUnavailable, SQLMessageStore, database_unavailable
from tfrobot.brain.memory.availability import _invalidate_lost


def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_postgres_down_names_url_without_password_and_fix() -> None:
    url = f"postgresql+asyncpg://robot:s3cret-pw@127.0.0.1:{closed_port()}/memory"
    store = SQLMessageStore(url)
    try:
        with pytest.raises(MemoryStoreUnavailable) as caught:
            await store.sync_msg(trace_turn("c"))
        with pytest.raises(MemoryStoreUnavailable):
            await store.recall("c")
        with pytest.raises(MemoryStoreUnavailable):
            await store.migrate()
    finally:
        await store.aclose()
    text = str(caught.value)
    assert "s3cret-pw" not in text
    assert f"postgresql+asyncpg://robot:***@127.0.0.1:{url.split(':')[3].split('/')[0]}/memory" in text
    assert "Fix: check that PostgreSQL is running" in text


async def test_sqlite_unopenable_path_is_unavailable(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    store = SQLMessageStore(f"sqlite+aiosqlite:///{tmp_path / 'db-dir' / 'memory.db'}")
    (tmp_path / "db-dir").rmdir()
    (tmp_path / "db-dir").symlink_to(blocker)  # the parent "directory" is now a file
    try:
        with pytest.raises(MemoryStoreUnavailable, match=r"memory\.db is unavailable: .*Fix: check that .* writable"):
            await store.sync_msg(trace_turn("c"))
    finally:
        await store.aclose()
        # aiosqlite stops a connection that failed to open with a callback it never awaits; let its worker
        # thread deliver it before this test's event loop closes.
        await asyncio.sleep(0.05)


async def test_sqlite_locked_past_busy_timeout_then_recovers(tmp_path: Path) -> None:
    store = await SQLMessageStore.open(f"sqlite:///{tmp_path / 'locked.db'}", busy_timeout=0.2)
    holder = sqlite3.connect(tmp_path / "locked.db", isolation_level=None)
    try:
        accepted = trace_turn("l")
        await store.sync_msg(accepted)
        holder.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        refused = reply("l")
        with pytest.raises(MemoryStoreUnavailable, match=r"database is locked.*raise SQLMessageStore\(busy_timeout"):
            await store.sync_msg(refused)
        holder.execute("ROLLBACK")
        assert await store.recall("l") == [accepted]
        await store.sync_msg(refused)  # the caller retries the write that was not accepted
        assert await store.recall("l") == [accepted, refused]
    finally:
        holder.close()
        await store.aclose()


async def test_unmigrated_sqlite_says_migrate(tmp_path: Path) -> None:
    store = SQLMessageStore(f"sqlite+aiosqlite:///{tmp_path / 'fresh.db'}")
    try:
        with pytest.raises(MemoryStoreError, match=r"has no schema .*Fix: `await store.migrate\(\)`"):
            await store.recall("c")
    finally:
        await store.aclose()


async def test_unmigrated_postgres_says_migrate(pg_url: str) -> None:
    empty = f"{pg_url}_empty"
    name = empty.rsplit("/", 1)[1]
    await pg_execute(pg_url, f'CREATE DATABASE "{name}"')
    store = SQLMessageStore(empty)
    try:
        with pytest.raises(MemoryStoreError, match=r"has no schema .*Fix: `await store.migrate\(\)`"):
            await store.sync_msg(trace_turn("c"))
    finally:
        await store.aclose()
        await pg_execute(pg_url, f'DROP DATABASE "{name}" WITH (FORCE)')


async def _terminate_other_backends(url: str) -> None:
    await pg_execute(
        url,
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE datname = current_database() AND pid <> pg_backend_pid()",
    )


async def test_postgres_connections_killed_between_writes(pg_url: str) -> None:
    store = SQLMessageStore(pg_url)
    try:
        accepted = [trace_turn("k"), reply("k")]
        await store.sync_msgs(accepted)
        async with store._engine.connect() as conn:  # the pool now holds a live connection
            before = (await conn.execute(sa.text("SELECT pg_backend_pid()"))).scalar_one()

        run_sync(_terminate_other_backends(pg_url))

        later = trace_turn("k", "after the restart")
        await store.sync_msg(later)  # pre-ping finds the dead connection and opens a new one
        async with store._engine.connect() as conn:
            after = (await conn.execute(sa.text("SELECT pg_backend_pid()"))).scalar_one()
        assert after != before
        assert await store.recall("k") == [*accepted, later]

        run_sync(_terminate_other_backends(pg_url))
        assert await store.recall("k", last_turns=1) == [later]
    finally:
        await store.aclose()


async def test_a_connection_left_mid_operation_is_lost_and_invalidated(pg_url: str) -> None:
    """Regression (soak): a backend killed during a query can leave asyncpg's protocol mid-operation; its
    `InternalClientError` escaped as a raw error and the broken connection went back to the pool."""
    broken = asyncpg.exceptions.InternalClientError("cannot switch to state 11; another operation (2) is in progress")
    store = SQLMessageStore(pg_url)
    try:
        translated = store._translate(sa.exc.InternalError("SELECT 1", {}, broken))
        assert type(translated) is MemoryStoreUnavailable
        assert "another operation (2) is in progress" in str(translated)
        assert sa.event.contains(store._engine.sync_engine, "handle_error", _invalidate_lost)
    finally:
        await store.aclose()
    context = types.SimpleNamespace(original_exception=broken, is_disconnect=False)
    _invalidate_lost(context)  # type: ignore[arg-type]
    assert context.is_disconnect
    other = types.SimpleNamespace(original_exception=asyncpg.exceptions.InternalClientError("x"), is_disconnect=False)
    _invalidate_lost(other)  # type: ignore[arg-type]
    assert not other.is_disconnect


def test_what_counts_as_the_database_being_unavailable() -> None:
    refused = OSError(111, "Connect call failed ('127.0.0.1', 5432)")
    multiple = OSError("Multiple exceptions: [Errno 111] Connect call failed ('127.0.0.1', 5432)")
    for exc in (ConnectionRefusedError(111, "refused"), refused, multiple, MemoryStoreUnavailable("down")):
        assert database_unavailable(exc), exc
    locked = sa.exc.OperationalError("INSERT", {}, sqlite3.OperationalError("database is locked"))
    assert database_unavailable(locked)
    no_table = sa.exc.OperationalError("SELECT", {}, sqlite3.OperationalError("no such table: messages"))
    for exc in (FileNotFoundError(2, "No such file or directory"), PermissionError(13, "denied"), no_table):
        assert not database_unavailable(exc), exc
    assert not database_unavailable(ValueError("bad value"))


def test_a_refused_connection_deeper_in_a_chain_is_not_the_database() -> None:
    """Regression: an LLM provider's connection error (its cause a ConnectionRefusedError) was a 503."""
    wrapped = RuntimeError("provider unreachable")
    wrapped.__cause__ = ConnectionRefusedError(111, "Connect call failed ('10.0.0.1', 443)")
    assert not database_unavailable(wrapped)
