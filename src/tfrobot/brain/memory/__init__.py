"""Memory: conversations persisted with their traces and recalled typed (seed: "sync_msg … recall 反向还原").

`MessageStore` is the interface the brain uses; `SQLMessageStore` implements it on SQLite (the default, a file
in the user's data directory) and PostgreSQL (JSONB).
"""

from tfrobot.brain.memory.base import (
    ConversationInfo,
    MemoryStoreError,
    MemoryStoreUnavailable,
    MessageStore,
    Page,
    estimate_tokens,
)
from tfrobot.brain.memory.sql import (
    MEMORY_URL_ENV,
    SQLMessageStore,
    database_unavailable,
    default_url,
    watch_lost_connections,
)

__all__ = [
    "MEMORY_URL_ENV",
    "ConversationInfo",
    "MemoryStoreError",
    "MemoryStoreUnavailable",
    "MessageStore",
    "Page",
    "SQLMessageStore",
    "database_unavailable",
    "default_url",
    "estimate_tokens",
    "watch_lost_connections",
]
