"""Alembic environment for the memory store: async engines, or the connection `migrate()` hands in.

`SQLMessageStore.migrate()` runs inside its own event loop, so it passes a synchronous connection (from
`AsyncConnection.run_sync`) in `config.attributes["connection"]`; the Alembic command line (no connection
given) builds its own async engine from `sqlalchemy.url` and runs it with `asyncio.run`.
"""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy import pool
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from tfrobot.brain.memory.tables import metadata


def run_on(connection: Connection) -> None:
    """Run the pending revisions on `connection`, inside its transaction."""
    context.configure(connection=connection, target_metadata=metadata, compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


async def run_online(url: str) -> None:
    """Run the migrations on a fresh async engine for `url`."""
    engine = create_async_engine(url, poolclass=pool.NullPool)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(run_on)
    finally:
        await engine.dispose()


def main() -> None:
    """Entry point Alembic executes when it loads this file."""
    config = context.config
    if context.is_offline_mode():
        context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=metadata, literal_binds=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    connection = config.attributes.get("connection")
    if isinstance(connection, Connection):
        run_on(connection)
        return
    url = config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("alembic: set sqlalchemy.url (e.g. sqlite+aiosqlite:///path.db) to migrate a memory store")
    asyncio.run(run_online(url))


main()
