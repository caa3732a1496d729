"""`engine.py`: the packaged Alembic migrations build exactly the schema the store's tables describe, on both
dialects; with no URL, the store is the server's SQLite file in the user's data directory, created on demand."""

from __future__ import annotations

import asyncio
import uuid
from argparse import Namespace
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from tests.brain.memory.conftest import trace_turn
from tests.conftest import pg_execute, run_sync
from tfrobot.brain.memory import MEMORY_URL_ENV, SQLMessageStore, default_url
from tfrobot.brain.memory.engine import MIGRATIONS_DIR, alembic_config
from tfrobot.brain.memory.tables import metadata
from tfrobot.schema.message import TextMessage


def _ours(_: object, name: str | None, type_: str, reflected: bool, compare_to: object) -> bool:
    """Compare the memory store's tables only: the database may also hold other components' tables."""
    return type_ != "table" or name in metadata.tables or name == "alembic_version"


def _diff(connection: sa.Connection, target: sa.MetaData = metadata) -> list[Any]:
    opts = {"compare_type": True, "compare_server_default": True, "include_object": _ours}
    context = MigrationContext.configure(connection, opts=opts)
    return list(compare_metadata(context, target))


def _indexes(connection: sa.Connection) -> dict[str | None, list[str | None]]:
    return {ix["name"]: ix["column_names"] for ix in sa.inspect(connection).get_indexes("messages")}


async def test_migrated_schema_matches_the_tables(store: SQLMessageStore) -> None:
    async with store._engine.connect() as conn:
        assert await conn.run_sync(_diff) == []
        indexes = await conn.run_sync(_indexes)
        payload_type = await conn.run_sync(
            lambda c: {col["name"]: col["type"] for col in sa.inspect(c).get_columns("messages")}["payload"]
        )
    assert indexes["ix_messages_conversation_order"] == ["conversation_id", "create_ts", "id"]
    expected = "JSONB" if store.dialect == "postgresql" else "JSON"
    assert type(payload_type).__name__ == expected


async def test_migrate_twice_is_a_no_op(store: SQLMessageStore) -> None:
    await store.migrate()
    async with store._engine.connect() as conn:
        version = (await conn.execute(sa.text("SELECT version_num FROM alembic_version"))).scalar_one()
    assert version == ScriptDirectory.from_config(alembic_config(store.url)).get_current_head()


async def test_a_model_change_without_a_migration_is_caught(tmp_path: Path) -> None:
    changed = sa.MetaData()
    for table in metadata.tables.values():
        table.to_metadata(changed)
    changed.tables["messages"].append_column(sa.Column("flagged", sa.Boolean, nullable=True))
    store = await SQLMessageStore.open(f"sqlite:///{tmp_path / 'm.db'}")
    try:
        async with store._engine.connect() as conn:
            diff = await conn.run_sync(_diff, changed)
    finally:
        await store.aclose()
    assert [(entry[0], entry[2], entry[3].name) for entry in diff] == [("add_column", "messages", "flagged")]


def test_migrations_ship_inside_the_package() -> None:
    assert (MIGRATIONS_DIR / "env.py").is_file()
    assert any(MIGRATIONS_DIR.glob("versions/v*.py"))
    assert "tfrobot/brain/memory/migrations" in MIGRATIONS_DIR.as_posix()


def test_alembic_command_line_path_works_without_a_connection(tmp_path: Path) -> None:
    """`alembic upgrade` run outside our store (env.py builds its own async engine) reaches the same head."""
    config = alembic_config(f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}")
    command.upgrade(config, "head")
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'cli.db'}")
    with engine.connect() as conn:
        assert _diff(conn) == []
    engine.dispose()


def test_downgrade_to_base_and_back(tmp_path: Path) -> None:
    config = alembic_config(f"sqlite+aiosqlite:///{tmp_path / 'down.db'}")
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'down.db'}")
    try:
        command.upgrade(config, "head")
        command.downgrade(config, "base")
        assert set(sa.inspect(engine).get_table_names()) == {"alembic_version"}
        command.upgrade(config, "head")
        with engine.connect() as conn:
            assert _diff(conn) == []
    finally:
        engine.dispose()


LEGACY_ROWS = 3


def _legacy_rows(connection: sa.Connection) -> None:
    """Conversations as revision 0001 stored them: no scope column."""
    for n in range(LEGACY_ROWS):
        turn = TextMessage(content=f"old question {n}", conversation_id=f"old-{n}", create_ts=1_000 + n)
        connection.execute(
            sa.text(
                "INSERT INTO conversations (conversation_id, title, created_ts, updated_ts) VALUES (:c, :t, :ts, :ts)"
            ),
            {"c": turn.conversation_id, "t": turn.content, "ts": turn.create_ts},
        )
        connection.execute(
            sa.text(
                "INSERT INTO messages (msg_id, conversation_id, role, msg_type, create_ts, tokens, payload) "
                "VALUES (:m, :c, 'user', 'text', :ts, 1, :p)"
            ),
            {"m": turn.msg_id, "c": turn.conversation_id, "ts": turn.create_ts, "p": turn.model_dump_json()},
        )


@pytest.fixture(params=["sqlite", "postgresql"])
def old_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database at revision 0001 holding conversations written then (a fresh PostgreSQL database per test)."""
    drop = None
    if request.param == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
    else:
        session_url: str = request.getfixturevalue("pg_url")
        name = f"tfrobot_old_{uuid.uuid4().hex[:10]}"
        run_sync(pg_execute(session_url, f'CREATE DATABASE "{name}"'))
        url = make_url(session_url).set(database=name).render_as_string(hide_password=False)
        drop = f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'
    run_sync(_write_legacy(url))
    try:
        yield url
    finally:
        if drop is not None:
            run_sync(pg_execute(session_url, drop))


async def _write_legacy(url: str) -> None:
    """Bring `url` to revision 0001 (Alembic in a thread: its env.py runs its own event loop) and fill it."""
    await asyncio.to_thread(command.upgrade, alembic_config(url), "0001")
    engine = create_async_engine(url, poolclass=sa.pool.NullPool)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(_legacy_rows)
    finally:
        await engine.dispose()


async def test_upgrading_an_old_store_keeps_every_row_and_gives_it_to_the_first_owner(old_store: str) -> None:
    """The scopes migration (0002) on rows written by 0001: none lost, all owned by the store that upgraded
    (a server: its first robot on this database), none visible to another scope."""
    demo = SQLMessageStore(old_store, scope="demo")
    other = demo.scoped("other")
    try:
        await demo.migrate()
        listed = await demo.list_conversations()
        assert sorted(c.conversation_id for c in listed.items) == [f"old-{n}" for n in range(LEGACY_ROWS)]
        recalled = await demo.recall("old-0")
        assert [type(m) for m in recalled] == [TextMessage]
        assert recalled[0].text() == "old question 0"
        assert (await other.list_conversations()).items == []
        async with demo._engine.connect() as conn:
            scopes = (await conn.execute(sa.text("SELECT DISTINCT scope FROM messages"))).scalars().all()
            assert await conn.run_sync(_diff) == []
        assert scopes == ["demo"]
        await other.migrate()  # a later upgrade by someone else claims nothing
        assert len((await demo.list_conversations()).items) == LEGACY_ROWS
    finally:
        await demo.aclose()


def test_the_command_line_upgrade_names_the_legacy_owner_with_x(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'cli-old.db'}"
    run_sync(_write_legacy(url))
    config = alembic_config(url)
    config.cmd_opts = Namespace(x=["legacy_scope=support"])
    command.upgrade(config, "head")
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'cli-old.db'}")
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.text("SELECT scope, count(*) FROM conversations GROUP BY scope")).all()
    finally:
        engine.dispose()
    assert [tuple(row) for row in rows] == [("support", LEGACY_ROWS)]


async def test_default_store_lives_in_the_user_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MEMORY_URL_ENV, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    expected = tmp_path / "xdg" / "tfrobot" / "server.sqlite3"
    assert default_url() == f"sqlite+aiosqlite:///{expected}"

    store = await SQLMessageStore.open()
    try:
        await store.sync_msg(trace_turn("c"))
        assert len(await store.recall("c")) == 1
    finally:
        await store.aclose()
    assert expected.is_file()


def test_environment_overrides_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MEMORY_URL_ENV, "postgresql://robot:pw@db.internal/memory")
    store = SQLMessageStore()
    assert store.safe_url == "postgresql+asyncpg://robot:***@db.internal/memory"
    assert repr(store) == "SQLMessageStore('postgresql+asyncpg://robot:***@db.internal/memory')"


def test_unsupported_backend_is_refused() -> None:
    with pytest.raises(ValueError, match=r"unsupported backend 'mysql'; use sqlite\+aiosqlite"):
        SQLMessageStore("mysql://robot:pw@localhost/memory")
