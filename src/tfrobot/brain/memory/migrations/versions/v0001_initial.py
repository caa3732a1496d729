"""Initial memory schema: conversations, messages (JSON/JSONB payload), documents.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None

JSON_PAYLOAD = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "conversations",
        sa.Column("conversation_id", sa.String(255), primary_key=True),
        sa.Column("title", sa.Text, nullable=True),
        sa.Column("created_ts", sa.BigInteger, nullable=False),
        sa.Column("updated_ts", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_conversations_updated", "conversations", ["updated_ts", "conversation_id"])
    op.create_table(
        "messages",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("msg_id", sa.String(255), nullable=False),
        sa.Column(
            "conversation_id",
            sa.String(255),
            sa.ForeignKey("conversations.conversation_id", ondelete="CASCADE", name="fk_messages_conversation"),
            nullable=False,
        ),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("msg_type", sa.String(64), nullable=True),
        sa.Column("create_ts", sa.BigInteger, nullable=False),
        sa.Column("tokens", sa.Integer, nullable=False),
        sa.Column("payload", JSON_PAYLOAD, nullable=False),
        sa.UniqueConstraint("msg_id", name="uq_messages_msg_id"),
    )
    op.create_index("ix_messages_conversation_order", "messages", ["conversation_id", "create_ts", "id"])
    op.create_table(
        "documents",
        sa.Column("kind", sa.String(100), primary_key=True),
        sa.Column("key", sa.String(255), primary_key=True),
        sa.Column("payload", JSON_PAYLOAD, nullable=False),
        sa.Column("updated_ts", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("documents")
    op.drop_index("ix_messages_conversation_order", table_name="messages")
    op.drop_table("messages")
    op.drop_index("ix_conversations_updated", table_name="conversations")
    op.drop_table("conversations")
