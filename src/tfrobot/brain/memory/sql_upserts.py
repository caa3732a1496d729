"""The upserts of `SQLMessageStore` (``INSERT … ON CONFLICT DO UPDATE``): the one place the two dialects differ
in what the store writes. A row another scope owns is never updated (the WHERE of each), which is what lets the
store find it afterwards and refuse the write (`sql_store.py`)."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from tfrobot.brain.memory.tables import conversations, documents, messages


def upserts(dialect: str) -> tuple[sa.Insert, sa.Insert, sa.Insert]:
    """The upserts of the store, built once for `dialect`: conversation, message and document."""
    insert = pg_insert if dialect == "postgresql" else sqlite_insert
    conv = insert(conversations)
    newest = sa.func.greatest if dialect == "postgresql" else sa.func.max
    # A row of another scope is left as it is (the WHERE); `sync_msgs` then finds it and refuses the write.
    conv_upsert = conv.on_conflict_do_update(
        index_elements=[conversations.c.conversation_id],
        set_={
            "updated_ts": newest(conversations.c.updated_ts, conv.excluded.updated_ts),
            "title": sa.func.coalesce(conversations.c.title, conv.excluded.title),
        },
        where=conversations.c.scope == conv.excluded.scope,
    )
    msg = insert(messages)
    replaced = ("conversation_id", "role", "msg_type", "create_ts", "tokens", "payload")
    msg_upsert = msg.on_conflict_do_update(
        index_elements=[messages.c.msg_id],
        set_={name: msg.excluded[name] for name in replaced},
        where=messages.c.scope == msg.excluded.scope,
    )
    doc = insert(documents)
    doc_upsert = doc.on_conflict_do_update(
        index_elements=[documents.c.kind, documents.c.key],
        set_={"payload": doc.excluded.payload, "updated_ts": doc.excluded.updated_ts},
    )
    return conv_upsert, msg_upsert, doc_upsert
