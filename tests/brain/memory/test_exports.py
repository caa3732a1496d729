"""The memory package's public surface is pinned: changing it is a deliberate edit here."""

from __future__ import annotations

import tfrobot.brain.memory as memory
import tfrobot.schema.saver_loader as saver_loader


def test_memory_public_names() -> None:
    assert sorted(memory.__all__) == [
        "ConversationInfo",
        "ConversationNotFound",
        "DATA_FILE",
        "DEFAULT_SCOPE",
        "MEMORY_URL_ENV",
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
    assert all(hasattr(memory, name) for name in memory.__all__)


def test_saver_loader_public_names() -> None:
    assert sorted(saver_loader.__all__) == ["DocumentStore", "SaverLoader", "SaverLoaderError"]
