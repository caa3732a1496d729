"""Memory: conversations persisted with their traces and recalled typed (seed: "sync_msg … recall 反向还原").

`MessageStore` is the interface the brain uses; `SQLMessageStore` implements it on SQLite (the default, a file
in the user's data directory) and PostgreSQL (JSONB).
"""

from tfrobot.brain.memory.availability import database_unavailable, watch_lost_connections
from tfrobot.brain.memory.base import (
    DEFAULT_SCOPE,
    ConversationInfo,
    ConversationNotFound,
    MemoryStoreError,
    MemoryStoreUnavailable,
    MessageStore,
    Page,
    estimate_tokens,
)
from tfrobot.brain.memory.engine import DATA_FILE, MEMORY_URL_ENV, default_data_dir, default_url
from tfrobot.brain.memory.sql_store import SQLMessageStore

__all__ = [
    "DATA_FILE",
    "DEFAULT_SCOPE",
    "MEMORY_URL_ENV",
    "ConversationInfo",
    "ConversationNotFound",
    "MemoryStoreError",
    "MemoryStoreUnavailable",
    "MessageStore",
    "Page",
    "SQLMessageStore",
    "database_unavailable",
    "default_data_dir",
    "default_url",
    "estimate_tokens",
    "watch_lost_connections",
]
