"""The packaged Alembic migrations build exactly the schema the store's tables describe, on both dialects."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory

from tfrobot.brain.memory import SQLMessageStore
from tfrobot.brain.memory.sql import MIGRATIONS_DIR, alembic_config
from tfrobot.brain.memory.tables import metadata


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
