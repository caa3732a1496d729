"""The SQL schema of the memory store, one `MetaData` for SQLite and PostgreSQL.

The Alembic migrations in `migrations/` create exactly this (a test compares them); change both together.
`messages.id` is the insertion order, the tie-break after `create_ts` that keeps ordering stable when two
messages share a millisecond. `payload` holds the whole message — trace included — as `model_dump_json()`
produced it: JSONB on PostgreSQL (queryable, compact), JSON text on SQLite. `scope` says whose a conversation
is (a robot's name in a server; `DEFAULT_SCOPE`, the empty string, otherwise and for rows older than scopes);
each message repeats its conversation's scope so that no write can move a message into another scope.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Dialect
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.types import TypeEngine

__all__ = ["ID_CHARS", "SCOPE_CHARS", "JSONText", "conversations", "documents", "messages", "metadata"]


class JSONText(sa.TypeDecorator[str]):
    """A JSON column whose Python value is the JSON *text*: pydantic writes it and pydantic parses it.

    SQLAlchemy's JSON type would `json.dumps` on the way in and `json.loads` on the way out (asyncpg even in
    its codec), turning every recall into dicts that pydantic then walks again. Here the text passes through
    untouched, and reads select it cast to text, so `TypeAdapter(Message).validate_json` parses it once, in Rust.
    """

    impl = sa.JSON
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "postgresql":
            return dialect.type_descriptor(postgresql.JSONB())
        return dialect.type_descriptor(sa.JSON())

    def bind_processor(self, dialect: Dialect) -> None:
        return None

    def result_processor(self, dialect: Dialect, coltype: object) -> None:
        return None

    def column_expression(self, column: ColumnElement[str]) -> ColumnElement[str]:
        return sa.cast(column, sa.Text)


metadata = sa.MetaData()

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
"""BIGSERIAL on PostgreSQL; INTEGER PRIMARY KEY (the rowid, always above every live row's) on SQLite."""

ID_CHARS = 255
"""The longest conversation or message id the columns hold."""
SCOPE_CHARS = 255
"""The longest scope name the columns hold."""
_NO_SCOPE = sa.text("''")
"""The default scope (`base.DEFAULT_SCOPE`) as SQL: a literal, so that Alembic compares it as the database says it."""

conversations = sa.Table(
    "conversations",
    metadata,
    sa.Column("conversation_id", sa.String(ID_CHARS), primary_key=True),
    sa.Column("scope", sa.String(SCOPE_CHARS), nullable=False, server_default=_NO_SCOPE),
    sa.Column("title", sa.Text, nullable=True),
    sa.Column("created_ts", sa.BigInteger, nullable=False),
    sa.Column("updated_ts", sa.BigInteger, nullable=False),
    sa.Index("ix_conversations_scope_updated", "scope", "updated_ts", "conversation_id"),
)

messages = sa.Table(
    "messages",
    metadata,
    sa.Column("id", BigId, primary_key=True, autoincrement=True),
    sa.Column("msg_id", sa.String(ID_CHARS), nullable=False),
    sa.Column(
        "conversation_id",
        sa.String(ID_CHARS),
        sa.ForeignKey("conversations.conversation_id", ondelete="CASCADE", name="fk_messages_conversation"),
        nullable=False,
    ),
    sa.Column("scope", sa.String(SCOPE_CHARS), nullable=False, server_default=_NO_SCOPE),
    sa.Column("role", sa.String(16), nullable=False),
    sa.Column("msg_type", sa.String(64), nullable=True),
    sa.Column("create_ts", sa.BigInteger, nullable=False),
    sa.Column("tokens", sa.Integer, nullable=False),
    sa.Column("payload", JSONText, nullable=False),
    sa.UniqueConstraint("msg_id", name="uq_messages_msg_id"),
    sa.Index("ix_messages_conversation_order", "conversation_id", "create_ts", "id"),
)

documents = sa.Table(
    "documents",
    metadata,
    sa.Column("kind", sa.String(100), primary_key=True),
    sa.Column("key", sa.String(255), primary_key=True),
    sa.Column("payload", JSONText, nullable=False),
    sa.Column("updated_ts", sa.BigInteger, nullable=False),
)
