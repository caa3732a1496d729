"""With no URL, the store is the server's SQLite file in the user's data directory, created on demand."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.brain.memory.conftest import trace_turn
from tfrobot.brain.memory import MEMORY_URL_ENV, SQLMessageStore, default_url


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
