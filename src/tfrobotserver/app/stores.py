"""The message stores of a running server: one `SQLMessageStore` per database, a scope per robot.

Robots whose conversations live in one database share one store, its engine and its connection pool
(before, each robot opened a pool of its own to the same database); each robot works through a view
of it in the robot's own scope (`SQLMessageStore.scoped`), so they share connections and nothing else.
The first robot that opens a database migrates it, and owns the conversations stored there before
scopes existed (see `tfrobot.brain.memory` migration 0002): with one robot, its whole history.
"""

from __future__ import annotations

from sqlalchemy.engine import make_url

from tfrobot.brain.memory import SQLMessageStore


class MessageStores:
    """Opens each database once (migrated), hands out scoped views of it, closes them all at shutdown."""

    def __init__(self) -> None:
        self._stores: dict[str, SQLMessageStore] = {}

    async def open(self, url: str, scope: str) -> SQLMessageStore:
        """The store of `url` in `scope`; the first call for a database opens and migrates it."""
        shared = SQLMessageStore(url, scope=scope)
        key = shared.url.render_as_string(hide_password=False)
        known = self._stores.get(key)
        if known is not None:
            await shared.aclose()
            return known.scoped(scope)
        await shared.migrate()
        self._stores[key] = shared
        return shared

    def describe(self) -> list[str]:
        """The databases open (passwords masked): what the start-up log lists."""
        return [make_url(key).render_as_string(hide_password=True) for key in self._stores]

    async def aclose(self) -> None:
        """Close every store; `open` starts afresh afterwards (the runtime may be started again)."""
        stores, self._stores = list(self._stores.values()), {}
        for store in stores:
            await store.aclose()
