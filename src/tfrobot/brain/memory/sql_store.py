"""`SQLMessageStore`: the memory store on SQLite (the embedded default) or PostgreSQL (production).

One SQLAlchemy async implementation for both dialects; they differ only in the upsert construct and connection
set-up. Guarantees, and how they are kept:

* Accepted = committed. `sync_msgs` returns only after its transaction commits; a failure raises and nothing of
  that call is kept, nothing before it is touched.
* Idempotent by `msg_id` (``INSERT … ON CONFLICT (msg_id) DO UPDATE``): syncing a user message again after its
  trace grew replaces the row but keeps its insertion order, and a write that lost its connection mid-way is
  simply retried once.
* Concurrent writers lose nothing: PostgreSQL row locks; on SQLite, WAL, a busy timeout and ``BEGIN IMMEDIATE``
  for writes (a deferred transaction that upgrades to a write lock can fail at once instead of waiting).
* A dead pooled connection (server restart, `pg_terminate_backend`) is detected on use, the pool recycled and
  the call retried once on a fresh connection (see `_run`); a database that is down raises
  `MemoryStoreUnavailable` naming the URL (password hidden) and the fix.
* Scopes (`base.py`): every query names the store's scope; a write into a conversation or over a message id
  that another scope owns changes nothing and raises. `scoped(name)` gives a store of another scope on the
  same engine, so the robots of a server that share a database share one connection pool too.

The engine, its SQLite set-up and the migrations are `engine.py`'s; what counts as "the database is unavailable"
is `availability.py`'s.
"""

from __future__ import annotations

import asyncio
import copy
import re
import reprlib
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, Final, TypeVar

import sqlalchemy as sa
from pydantic import TypeAdapter, ValidationError
from pydantic_core import PydanticSerializationError
from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from tfrobot.brain.memory.availability import database_unavailable, first_line, lost_connection, missing_schema
from tfrobot.brain.memory.base import (
    DEFAULT_SCOPE,
    ConversationInfo,
    ConversationNotFound,
    MemoryStoreError,
    MemoryStoreUnavailable,
    MessageStore,
    Page,
    TailCut,
    estimate_tokens,
)
from tfrobot.brain.memory.engine import (
    MEMORY_URL_ENV,
    WRITE_OPTION,
    create_store_engine,
    default_url,
    migrate_blocking,
    normalize_url,
)
from tfrobot.brain.memory.sql_cursors import decode_cursor, decode_message_cursor, encode_cursor, page_limit
from tfrobot.brain.memory.sql_upserts import upserts
from tfrobot.brain.memory.tables import ID_CHARS, SCOPE_CHARS, conversations, documents, messages
from tfrobot.schema.message import non_messages
from tfrobot.schema.message.base import BaseMessage, content_text, now_ms
from tfrobot.schema.message.discriminator import adapter

__all__ = ["SQLMessageStore"]

_MESSAGE: Final[TypeAdapter[BaseMessage]] = adapter(BaseMessage)
_TITLE_CHARS: Final = 80
_JSON_NUL: Final = re.compile(r"(?<!\\)(?:\\\\)*\\u0000")
"""An escaped NUL in JSON text (an even run of backslashes before it would make it literal text)."""
_CHECK_CHUNK: Final = 500
"""Ids per `IN (…)` of the scope checks (well under every driver's bound-parameter limit)."""

R = TypeVar("R")


def _title(msg: BaseMessage) -> str | None:
    if msg.role != "user":
        return None
    text = " ".join(content_text(msg.content).replace("\x00", "").split())
    return text[:_TITLE_CHARS] or None


def _check_loads(msg: BaseMessage, payload: str) -> None:
    """Refuse a record that would not load back as its message's class (review R22): a value assigned past
    validation (`msg.content = {...}`), a `model_construct` with another kind. Stored, it would fail every read of
    its conversation for good; loading one message costs microseconds beside the write."""
    try:
        restored = _MESSAGE.validate_json(payload)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(map(str, first["loc"]))
        raise ValueError(
            f"sync_msg: message {msg.msg_id} ({msg.role}, conversation {msg.conversation_id!r}) would be stored as a "
            f"record that does not load ({exc.error_count()} error(s), first at {where}: {first['msg']}). Fix: set "
            "the message's fields to values of their types (assignment is not validated), or build it with its "
            "class rather than `model_construct`"
        ) from None
    if type(restored) is not type(msg):
        raise ValueError(
            f"sync_msg: message {msg.msg_id} ({msg.role}, conversation {msg.conversation_id!r}) is a "
            f"{type(msg).__name__} whose record loads as a {type(restored).__name__}. Fix: build it with its class "
            "(its `role`/`msg_type` name the class a record loads as), not with `model_construct`"
        )


class SQLMessageStore(MessageStore):
    """The SQL memory store. ``await SQLMessageStore.open()`` gives a migrated store on the default SQLite file.

    `url`: ``sqlite+aiosqlite:///file.db`` (parent directories are created) or
    ``postgresql+asyncpg://user:password@host:5432/db`` (plain ``sqlite://`` / ``postgresql://`` are given the
    async driver). `busy_timeout` (seconds) is how long a SQLite writer waits for another. `scope`: whose
    conversations this store sees (`DEFAULT_SCOPE` without a server; a robot's name in one).
    """

    def __init__(
        self,
        url: str | URL | None = None,
        *,
        scope: str = DEFAULT_SCOPE,
        busy_timeout: float = 30.0,
        pool_size: int = 10,
        echo: bool = False,
    ) -> None:
        self.scope = _checked_scope(scope)
        self._owns_engine = True
        self.url = normalize_url(url if url is not None else default_url())
        self.dialect = self.url.get_backend_name()
        self._busy_timeout = busy_timeout
        if self.dialect == "sqlite" and self.url.database and self.url.database != ":memory:":
            Path(self.url.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        # A fixed PostgreSQL pool: beyond it, callers wait for a connection instead of each opening one (a
        # new backend process per burst, then closed again, costs the database more than the queries).
        pooling = {"pool_size": pool_size, "max_overflow": 0} if self.dialect == "postgresql" else {}
        self._engine = create_store_engine(self.url, busy_timeout, echo=echo, **pooling)
        self._writer: AsyncEngine = self._engine.execution_options(**{WRITE_OPTION: True})
        # PostgreSQL reads are single statements (or keyset chunks): autocommit spares BEGIN and ROLLBACK.
        # SQLite reads keep a deferred transaction, which costs no round trip there.
        self._reader: AsyncEngine = (
            self._engine.execution_options(isolation_level="AUTOCOMMIT")
            if self.dialect == "postgresql"
            else self._engine
        )
        self._conv_upsert, self._msg_upsert, self._doc_upsert = upserts(self.dialect)

    @classmethod
    async def open(cls, url: str | URL | None = None, **kwargs: Any) -> SQLMessageStore:
        """Create the store and bring its schema to the newest revision (`migrate`)."""
        store = cls(url, **kwargs)
        await store.migrate()
        return store

    def __repr__(self) -> str:
        scope = f", scope={self.scope!r}" if self.scope != DEFAULT_SCOPE else ""
        return f"SQLMessageStore({self.safe_url!r}{scope})"

    def scoped(self, scope: str) -> SQLMessageStore:
        """This store in another scope, on the same engine and pool; closing it leaves the engine to this one."""
        view = copy.copy(self)
        view.scope = _checked_scope(scope)
        view._owns_engine = False
        return view

    @property
    def safe_url(self) -> str:
        """The URL with its password masked: safe for logs and error messages."""
        return self.url.render_as_string(hide_password=True)

    async def migrate(self, *, legacy_scope: str | None = None) -> None:
        """Run ``alembic upgrade head`` with the packaged migrations (safe from several workers at once).

        `legacy_scope` (default: this store's scope) owns the conversations written before scopes existed when
        this upgrade is the one that adds scopes (revision 0002); afterwards it changes nothing.
        Alembic keeps its migration context in module globals, so two upgrades interleaved on one event loop
        would corrupt each other: each runs in a worker thread, one at a time per process, on its own engine.
        Across processes, PostgreSQL's advisory lock and SQLite's write lock serialize them.
        """
        owner = _checked_scope(self.scope if legacy_scope is None else legacy_scope)
        try:
            await asyncio.to_thread(migrate_blocking, self.url, self._busy_timeout, owner)
        except (sa.exc.DBAPIError, OSError) as exc:
            raise self._translate(exc) from exc

    async def aclose(self) -> None:
        if self._owns_engine:
            await self._engine.dispose()

    # -- errors and transactions -------------------------------------------------------------------------

    def _translate(self, exc: Exception) -> Exception:
        """The error to raise for a failed database call: ours for connection and schema trouble, else as is."""
        cause = first_line(exc)
        if missing_schema(exc):
            return MemoryStoreError(
                f"memory store {self.safe_url} has no schema ({cause}). Fix: `await store.migrate()` once "
                "(or open it with `await SQLMessageStore.open(url)`)."
            )
        # every OSError of a call to the store is about reaching its database (SQLite: the file)
        if not (database_unavailable(exc) or isinstance(exc, OSError)):
            return exc
        if self.dialect == "sqlite":
            fix = (
                f"check that {self.url.database} is a writable file path; if another process holds the database "
                "longer than the busy timeout, raise SQLMessageStore(busy_timeout=…)"
            )
        else:
            fix = (
                f"check that PostgreSQL is running and reachable at {self.url.host}:{self.url.port or 5432}, that "
                f"database {self.url.database!r} exists and the credentials are right, or set ${MEMORY_URL_ENV}"
            )
        return MemoryStoreUnavailable(f"memory store {self.safe_url} is unavailable: {cause}. Fix: {fix}.")

    async def _run(self, work: Callable[[AsyncConnection], Awaitable[R]], *, write: bool = False) -> R:
        """Run `work` on a pooled connection — in one committed transaction when `write` — and translate errors.

        A connection found dead (server restart, `pg_terminate_backend`) makes SQLAlchemy recycle the pool;
        the work is then retried once on a fresh connection. That is safe: reads change nothing and writes are
        idempotent upserts, even when the first attempt's COMMIT did reach the server. It also spares every
        call the extra round trip a pre-ping costs.
        """
        for attempt in (1, 2):
            try:
                if write:
                    async with self._writer.begin() as conn:
                        return await work(conn)
                async with self._reader.connect() as conn:
                    return await work(conn)
            except (sa.exc.DBAPIError, OSError) as exc:
                if isinstance(exc, sa.exc.DBAPIError) and exc.connection_invalidated and attempt == 1:
                    continue
                raise self._translate(exc) from exc
            except Exception as exc:
                # The pool can check out a connection the server has just closed and raise the driver's own
                # error, unwrapped (asyncpg: InterfaceError "connection is closed"); it is a lost connection.
                if not lost_connection(exc):
                    raise
                if attempt == 1:
                    continue
                raise self._translate(exc) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    # -- writes -----------------------------------------------------------------------------------------

    async def sync_msgs(self, msgs: Sequence[BaseMessage]) -> None:
        if not msgs:
            return
        rows: dict[str, dict[str, Any]] = {}
        heads: dict[str, str | None] = {}
        for msg in msgs:
            if not msg.conversation_id:
                raise ValueError(
                    f"sync_msg: message {msg.msg_id} ({msg.role}) has no conversation_id; set "
                    "msg.conversation_id before syncing it, so recall() can find it"
                )
            for name, value in (("conversation_id", msg.conversation_id), ("msg_id", msg.msg_id)):
                if len(value) > ID_CHARS:
                    raise ValueError(
                        f"sync_msg: {name} {value[:40]!r}… is {len(value)} characters long; the store keeps ids of "
                        f"at most {ID_CHARS}"
                    )
            for where, held in non_messages(msg):
                raise ValueError(
                    f"sync_msg: message {msg.msg_id} ({msg.role}, conversation {msg.conversation_id!r}) holds a "
                    f"{type(held).__name__} ({reprlib.repr(held)}) at {where}, where only messages go: its record "
                    "would not load. Fix: add messages only (`IntermediateTrace.append` copies and marks one)"
                )
            try:
                payload = msg.model_dump_json()
            except PydanticSerializationError as exc:
                raise ValueError(
                    f"sync_msg: message {msg.msg_id} ({msg.role}, conversation {msg.conversation_id!r}) cannot be "
                    f"written as JSON: {exc}. Fix: make that field JSON-serializable, or keep it out of the stored "
                    "record with `Field(exclude=True)` (usually a field of a tool source's own `ToolReturn` subclass)"
                ) from exc
            _check_loads(msg, payload)
            if self.dialect == "postgresql" and _JSON_NUL.search(payload):
                raise ValueError(
                    f"sync_msg: message {msg.msg_id} ({msg.role}, conversation {msg.conversation_id!r}) contains a NUL "
                    "character (\\u0000), which PostgreSQL cannot store in JSONB or text; strip NUL characters "
                    "where they enter (tool or console output, usually) before syncing"
                )
            rows.pop(msg.msg_id, None)  # the last version of a msg_id wins, in its last position
            rows[msg.msg_id] = {
                "msg_id": msg.msg_id,
                "conversation_id": msg.conversation_id,
                "scope": self.scope,
                "role": msg.role,
                "msg_type": getattr(msg, "msg_type", None),
                "create_ts": msg.create_ts,
                "tokens": estimate_tokens(payload),
                "payload": payload,
            }
            if heads.get(msg.conversation_id) is None:
                heads[msg.conversation_id] = _title(msg)
        ts = now_ms()
        conv_rows = [
            {"conversation_id": cid, "scope": self.scope, "title": heads[cid], "created_ts": ts, "updated_ts": ts}
            for cid in sorted(heads)
        ]

        async def work(conn: AsyncConnection) -> None:
            await conn.execute(self._conv_upsert, conv_rows)
            # after the upserts every id exists, and its scope is the one that counts: a foreign one fails the
            # transaction, so nothing of this call is kept and nothing of the other scope was touched
            taken = await self._foreign(conn, conversations.c.conversation_id, sorted(heads))
            if taken:
                raise ConversationNotFound(
                    taken[0],
                    self.scope,
                    f"sync_msg: conversation id {taken[0]!r} is taken by another scope of {self.safe_url}; start "
                    "a new conversation (conversation_id=None gives a fresh id)",
                )
            await conn.execute(self._msg_upsert, list(rows.values()))
            taken = await self._foreign(conn, messages.c.msg_id, list(rows))
            if taken:
                raise ValueError(
                    f"sync_msg: message id {taken[0]!r} is taken by another scope of {self.safe_url}; give the "
                    "message a fresh msg_id"
                )

        await self._run(work, write=True)

    async def _foreign(self, conn: AsyncConnection, key: sa.Column[str], ids: list[str]) -> list[str]:
        """Which of `ids` (conversation or message ids, per `key`) belong to another scope."""
        found: list[str] = []
        for start in range(0, len(ids), _CHECK_CHUNK):
            chunk = ids[start : start + _CHECK_CHUNK]
            query = sa.select(key).where(key.in_(chunk), key.table.c.scope != self.scope)
            found += (await conn.execute(query)).scalars().all()
        return found

    async def delete_conversation(self, conversation_id: str) -> int:
        """Delete a conversation of this scope and its messages; 0 when it is not one of this scope's."""

        async def work(conn: AsyncConnection) -> int:
            m, c = messages.c, conversations.c
            deleted = await conn.execute(
                sa.delete(messages).where(m.conversation_id == conversation_id, m.scope == self.scope)
            )
            await conn.execute(
                sa.delete(conversations).where(c.conversation_id == conversation_id, c.scope == self.scope)
            )
            return deleted.rowcount

        return await self._run(work, write=True)

    async def put_document(self, kind: str, key: str, payload: str) -> None:
        """Insert or replace a JSON document (the `DocumentStore` protocol of `tfrobot.schema.saver_loader`)."""

        async def work(conn: AsyncConnection) -> None:
            await conn.execute(self._doc_upsert, {"kind": kind, "key": key, "payload": payload, "updated_ts": now_ms()})

        await self._run(work, write=True)

    # -- reads ------------------------------------------------------------------------------------------

    async def _fetch(self, query: sa.Select[Any]) -> Sequence[sa.Row[Any]]:
        async def work(conn: AsyncConnection) -> Sequence[sa.Row[Any]]:
            rows: Sequence[sa.Row[Any]] = (await conn.execute(query)).all()
            return rows

        return await self._run(work)

    async def get_document(self, kind: str, key: str) -> str | None:
        """The JSON text of a document, or None."""
        rows = await self._fetch(sa.select(documents.c.payload).where(documents.c.kind == kind, documents.c.key == key))
        return str(rows[0].payload) if rows else None

    def _decode(self, conversation_id: str, msg_id: str, payload: str) -> BaseMessage:
        try:
            return _MESSAGE.validate_json(payload)
        except ValidationError as exc:
            raise MemoryStoreError(
                f"memory store {self.safe_url}: stored message {msg_id} of conversation {conversation_id!r} does "
                f"not validate ({exc.error_count()} errors):\n{exc}\nFix: read it with the TFRobot version that "
                "wrote it, or delete the row."
            ) from exc

    async def recall(
        self, conversation_id: str, *, last_turns: int | None = None, token_budget: int | None = None
    ) -> list[BaseMessage]:
        """See `MessageStore.recall`; [] for a conversation that does not exist yet, `ConversationNotFound`
        for one of another scope (it cannot be continued here)."""
        stored = await self.recall_json(conversation_id, last_turns=last_turns, token_budget=token_budget)
        return [self._decode(conversation_id, msg_id, payload) for msg_id, payload in stored]

    async def _owner(self, conversation_id: str) -> str | None:
        """The scope owning `conversation_id`, None when there is no such conversation."""
        c = conversations.c
        rows = await self._fetch(sa.select(c.scope).where(c.conversation_id == conversation_id))
        return str(rows[0].scope) if rows else None

    def _not_found(self, conversation_id: str) -> ConversationNotFound:
        return ConversationNotFound(
            conversation_id,
            self.scope,
            f"no conversation {conversation_id!r} in scope {self.scope!r} of {self.safe_url}; list the scope's "
            "conversations for the ids it has",
        )

    async def _empty_result(self, conversation_id: str, *, known: bool) -> None:
        """A read found no message: fine for a conversation of this scope (or, unless `known` is required, for
        none at all), `ConversationNotFound` otherwise. Only empty results pay for this query."""
        owner = await self._owner(conversation_id)
        if owner != self.scope and (known or owner is not None):
            raise self._not_found(conversation_id)

    async def recall_json(
        self, conversation_id: str, *, last_turns: int | None = None, token_budget: int | None = None
    ) -> list[tuple[str, str]]:
        """What `recall` returns, as stored: `(msg_id, JSON text)` pairs, undecoded (export, measurement).

        With a limit, the conversation is read newest first through the `(conversation_id, create_ts, id)`
        index in chunks sized to the request (``2 * last_turns + 2`` rows: a turn is usually a question and
        an answer), doubling when a turn has more replies; one query in the common case.
        """
        m = messages.c
        in_conv = (m.conversation_id == conversation_id) & (m.scope == self.scope)
        if last_turns is None and token_budget is None:
            rows = await self._fetch(sa.select(m.msg_id, m.payload).where(in_conv).order_by(m.create_ts, m.id))
            if not rows:
                await self._empty_result(conversation_id, known=False)
            return [(row.msg_id, row.payload) for row in rows]
        cut = TailCut(last_turns, token_budget)
        if cut.done:
            return []
        key = sa.tuple_(m.create_ts, m.id)
        newest_first = (m.create_ts.desc(), m.id.desc())

        async def work(conn: AsyncConnection) -> list[tuple[str, str]]:
            fed: list[tuple[str, str]] = []
            chunk = 2 * last_turns + 2 if last_turns is not None else 64
            before: list[sa.ColumnElement[bool]] = []
            while not cut.done:
                query = sa.select(m.create_ts, m.id, m.role, m.tokens, m.msg_id, m.payload)
                rows = (await conn.execute(query.where(in_conv, *before).order_by(*newest_first).limit(chunk))).all()
                for row in rows:
                    fed.append((row.msg_id, row.payload))
                    if cut.feed(row.role, row.tokens):
                        break
                else:
                    if len(rows) < chunk:
                        cut.finish()
                        break
                    before = [key < (rows[-1].create_ts, rows[-1].id)]
                    chunk *= 2
            return fed[: cut.kept][::-1]

        kept = await self._run(work)
        if not kept:
            await self._empty_result(conversation_id, known=False)
        return kept

    async def get_messages(
        self, conversation_id: str, cursor: str | None = None, limit: int = 100
    ) -> Page[BaseMessage]:
        """See `MessageStore.get_messages`; `ConversationNotFound` unless the conversation is this scope's."""
        m = messages.c
        query = sa.select(m.create_ts, m.id, m.msg_id, m.payload).where(
            m.conversation_id == conversation_id, m.scope == self.scope
        )
        if cursor is not None:
            query = query.where(sa.tuple_(m.create_ts, m.id) > decode_message_cursor(cursor))
        rows = await self._fetch(query.order_by(m.create_ts, m.id).limit(page_limit(limit) + 1))
        if not rows:
            await self._empty_result(conversation_id, known=True)
        page = rows[:limit]
        items = [self._decode(conversation_id, row.msg_id, row.payload) for row in page]
        next_cursor = encode_cursor(page[-1].create_ts, page[-1].id) if len(rows) > limit else None
        return Page(items, next_cursor)

    async def list_conversations(self, cursor: str | None = None, limit: int = 50) -> Page[ConversationInfo]:
        c = conversations.c
        m = messages.c
        failed_turns = (
            sa.select(sa.func.count())
            .where(
                m.conversation_id == c.conversation_id,
                m.role == "user",
                m.payload[("intermediate_trace", "failure")].as_string().is_not(None),
            )
            .scalar_subquery()
        )
        query = sa.select(
            c.conversation_id, c.title, c.created_ts, c.updated_ts, failed_turns.label("failed_turns")
        ).where(c.scope == self.scope)
        if cursor is not None:
            ts, conversation_id = decode_cursor(cursor)
            query = query.where(sa.tuple_(c.updated_ts, c.conversation_id) < (ts, conversation_id))
        rows = await self._fetch(
            query.order_by(c.updated_ts.desc(), c.conversation_id.desc()).limit(page_limit(limit) + 1)
        )
        items = [ConversationInfo.model_validate(row._asdict()) for row in rows[:limit]]
        next_cursor = encode_cursor(items[-1].updated_ts, items[-1].conversation_id) if len(rows) > limit else None
        return Page(items, next_cursor)


def _checked_scope(scope: str) -> str:
    if not isinstance(scope, str) or len(scope) > SCOPE_CHARS:
        raise ValueError(f"memory store scope {scope!r:.60}: give a name of at most {SCOPE_CHARS} characters")
    return scope
