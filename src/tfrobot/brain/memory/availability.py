"""Database availability: whether a failed database call means "the database is not there for us right now".

`SQLMessageStore` uses this to raise `MemoryStoreUnavailable` and to retry a call once on a fresh connection; the
server uses `database_unavailable` to answer 503 instead of 500 and `watch_lost_connections` on its own engines.
The line drawn: refused, restarting, killed or lost connections are unavailability (a retry can succeed); a
mistake in the query, the data or the schema is not.
"""

from __future__ import annotations

import errno
from typing import Final

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from tfrobot.brain.memory.base import MemoryStoreUnavailable

__all__ = ["database_unavailable", "first_line", "lost_connection", "missing_schema", "watch_lost_connections"]

_UNAVAILABLE_STATES: Final = ("08", "57P01", "57P02", "57P03", "53300")
"""SQLSTATEs that mean "the server is not there for us right now": connection exceptions, shutdown, starting
up, too many connections. asyncpg reports them as plain DBAPIErrors, not OperationalErrors."""


def lost_connection(exc: BaseException) -> bool:
    """asyncpg's own error for a connection that can no longer be used: closed under us ("connection is
    closed"), or its protocol left mid-operation by a backend killed during a query ("cannot switch to
    state 11; another operation (2) is in progress")."""
    if not type(exc).__module__.startswith("asyncpg"):
        return False
    names = {cls.__name__ for cls in type(exc).__mro__}
    return "InterfaceError" in names or ("InternalClientError" in names and "cannot switch to state" in str(exc))


def _invalidate_lost(context: sa.engine.ExceptionContext) -> None:
    """SQLAlchemy knows neither of `lost_connection`'s errors as a disconnect: without this, the broken
    connection went back to the pool and failed the next call that checked it out."""
    if any(lost_connection(e) for e in _causes(context.original_exception)):
        context.is_disconnect = True


def watch_lost_connections(engine: AsyncEngine) -> None:
    """Make `engine` drop a connection asyncpg reports lost in its own words (see `lost_connection`)
    instead of pooling it again. `SQLMessageStore` does this for its engines; the server for its own."""
    if not sa.event.contains(engine.sync_engine, "handle_error", _invalidate_lost):
        sa.event.listen(engine.sync_engine, "handle_error", _invalidate_lost)


def first_line(exc: BaseException) -> str:
    """The driver's message of `exc` (SQLAlchemy wraps it in `orig`), first line only."""
    orig = getattr(exc, "orig", None) or exc
    return (str(orig).strip().splitlines() or [type(orig).__name__])[0]


def missing_schema(exc: BaseException) -> bool:
    cause = first_line(exc)
    return "no such table" in cause or ("relation" in cause and "does not exist" in cause)


_CONNECT_ERRNOS: Final = frozenset({errno.ECONNREFUSED, errno.ECONNRESET, errno.EHOSTUNREACH, errno.ENETUNREACH})


def _refused(exc: BaseException) -> bool:
    """A connection to the server that failed or broke (asyncpg raises these raw, not wrapped)."""
    if isinstance(exc, ConnectionError):
        return True
    return isinstance(exc, OSError) and (exc.errno in _CONNECT_ERRNOS or "Connect call failed" in str(exc))


def database_unavailable(exc: BaseException) -> bool:
    """Whether `exc` means the database is not there for us right now (refused, restarting, connection
    killed or lost), as opposed to a mistake in the query, the data or the schema: such a call can
    succeed if retried. Any other `OSError` (a file not found, say) is not the database's."""
    if isinstance(exc, MemoryStoreUnavailable):
        return True
    if missing_schema(exc):
        return False
    if isinstance(exc, sa.exc.DBAPIError) and exc.connection_invalidated:
        return True
    if isinstance(exc, sa.exc.OperationalError | sa.exc.InterfaceError):
        return True
    # a refused connection only as the error itself: deeper in a chain it may be any service's (an LLM API)
    return _refused(exc) or any(lost_connection(e) or _unavailable_state(e) for e in _causes(exc))


def _causes(exc: BaseException) -> list[BaseException]:
    """`exc`, the driver error it wraps, and what caused those (SQLAlchemy and asyncpg nest them)."""
    found: list[BaseException] = []
    todo: list[BaseException | None] = [exc]
    while todo and len(found) < 10:
        item = todo.pop()
        if item is None or item in found:
            continue
        found.append(item)
        orig = getattr(item, "orig", None)
        todo += [orig if isinstance(orig, BaseException) else None, item.__cause__, item.__context__]
    return found


def _unavailable_state(orig: object) -> bool:
    state = getattr(orig, "sqlstate", None)
    if not isinstance(state, str):
        return False
    # 55000 is a generic state; it means unavailable only when a database refuses new connections.
    return state.startswith(_UNAVAILABLE_STATES) or (state == "55000" and "accepting connections" in str(orig))
