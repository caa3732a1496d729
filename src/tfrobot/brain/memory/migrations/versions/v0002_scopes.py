"""Scopes: every conversation and message belongs to one scope (a robot, in a server).

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01

Who owns the rows written before: the store that runs this upgrade names the legacy owner
(`SQLMessageStore.migrate(legacy_scope=…)`, by default its own scope; a server passes the first robot that
keeps its conversations in this database, which is every robot's own history when the server had one robot).
From the Alembic command line: ``alembic -x legacy_scope=NAME upgrade head``; without it they keep the
default scope (the empty string), where a store used without a server finds them. No row is rewritten but
for its scope, and none is dropped: both columns are added with the default scope (a constant default, so
SQLite adds them in place, without copying its tables).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context, op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None

_NO_SCOPE = sa.text("''")


def _legacy_scope() -> str:
    named = context.config.attributes.get("legacy_scope")
    if named is None:
        named = context.get_x_argument(as_dictionary=True).get("legacy_scope", "")
    return str(named)


def upgrade() -> None:
    for table in ("conversations", "messages"):
        op.add_column(table, sa.Column("scope", sa.String(255), nullable=False, server_default=_NO_SCOPE))
    owner = _legacy_scope()
    if owner:
        for table in ("conversations", "messages"):
            op.execute(sa.text(f"UPDATE {table} SET scope = :owner").bindparams(owner=owner))
    op.drop_index("ix_conversations_updated", table_name="conversations")
    op.create_index("ix_conversations_scope_updated", "conversations", ["scope", "updated_ts", "conversation_id"])


def downgrade() -> None:
    op.drop_index("ix_conversations_scope_updated", table_name="conversations")
    op.create_index("ix_conversations_updated", "conversations", ["updated_ts", "conversation_id"])
    for table in ("messages", "conversations"):
        op.drop_column(table, "scope")
