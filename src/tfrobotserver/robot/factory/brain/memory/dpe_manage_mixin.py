"""Document management actions for memory components (the seed's `dpe_manage_mixin.py`).

The mixin is generic in the document DTO so that a memory component with a richer document type
gets its schemas (and x-namespace / x-actions) from that type: `DpeManageMixin[AIMemoryDoc]`.
Rows live in the `memory_docs` table, partitioned by the component's `collection`, with the
document's text for full-text search: a stored generated `text_tsv` column
(`to_tsvector('simple', text_content)`) with a GIN index on PostgreSQL, an external-content FTS5
table kept in step by triggers on SQLite. Keywords are JSONB with a GIN index on PostgreSQL (`@>`),
JSON searched with `json_each` on SQLite.

Every row has a `version` (1 when created, one more per update). `aupdate_doc` takes back the version
the caller read (`doc_version`, x-default `docVersion` from the row's scope, so the console sends it) and
writes only if the row is still at it, in one `UPDATE … WHERE version = :read`; a stale write is refused
with 409 `conflict`, carrying the document as it is now and the `doc_version` that would overwrite it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Generic, Literal, cast

from pydantic import Field
from sqlalchemy import (
    DDL,
    JSON,
    Column,
    CursorResult,
    Index,
    Integer,
    RowMapping,
    String,
    Table,
    Text,
    bindparam,
    column,
    delete,
    event,
    exists,
    func,
    insert,
    literal,
    literal_column,
    select,
    text,
    update,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnClause

from tfrobotserver.actions.alias import ActionAlias
from tfrobotserver.actions.decorator import tfs_action
from tfrobotserver.actions.errors import ActionConflictError, ActionInputError
from tfrobotserver.actions.typing_tools import class_bindings
from tfrobotserver.dtos.factory.brain.memory.ai_memory import AIMemoryDocPage, TDoc
from tfrobotserver.dtos.pageable import MAX_INT32, CursorPageableList, PageNumber, PageSize
from tfrobotserver.robot.factory.brain.memory.batches import chunks
from tfrobotserver.storage import metadata

memory_docs = Table(
    "memory_docs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("collection", String(128), nullable=False, index=True),
    Column("file_uri", String(1024), nullable=False),
    Column("file_type", String(64), nullable=False),
    Column("keywords", JSON().with_variant(JSONB(), "postgresql"), nullable=False),
    Column("doc_metadata", JSON, nullable=False),
    Column("text_content", Text, nullable=False, server_default=""),
    Column("version", Integer, nullable=False, server_default=text("1")),
    Index("ix_memory_docs_collection_id", "collection", "id"),
)
_PG_TSV: ColumnClause[Any] = literal_column("memory_docs.text_tsv")
"""PostgreSQL: the document's tsvector, a stored generated column (not recomputed per row by a filter)."""
for _pg_statement in (
    "ALTER TABLE memory_docs ADD COLUMN IF NOT EXISTS text_tsv tsvector "
    "GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, text_content)) STORED",
    "CREATE INDEX IF NOT EXISTS ix_memory_docs_fts ON memory_docs USING gin (text_tsv)",
):
    _pg_ddl = DDL(_pg_statement)  # type: ignore[no-untyped-call]
    event.listen(memory_docs, "after_create", _pg_ddl.execute_if(dialect="postgresql"))
Index("ix_memory_docs_keywords", memory_docs.c.keywords, postgresql_using="gin").ddl_if(dialect="postgresql")
for _statement in (
    "CREATE VIRTUAL TABLE IF NOT EXISTS memory_docs_fts USING fts5(text_content, content='memory_docs', "
    "content_rowid='id')",
    "CREATE TRIGGER IF NOT EXISTS memory_docs_fts_ai AFTER INSERT ON memory_docs BEGIN "
    "INSERT INTO memory_docs_fts(rowid, text_content) VALUES (new.id, new.text_content); END",
    "CREATE TRIGGER IF NOT EXISTS memory_docs_fts_ad AFTER DELETE ON memory_docs BEGIN "
    "INSERT INTO memory_docs_fts(memory_docs_fts, rowid, text_content) "
    "VALUES ('delete', old.id, old.text_content); END",
    "CREATE TRIGGER IF NOT EXISTS memory_docs_fts_au AFTER UPDATE OF text_content ON memory_docs BEGIN "
    "INSERT INTO memory_docs_fts(memory_docs_fts, rowid, text_content) VALUES ('delete', old.id, old.text_content); "
    "INSERT INTO memory_docs_fts(rowid, text_content) VALUES (new.id, new.text_content); END",
):
    _ddl = DDL(_statement)  # type: ignore[no-untyped-call]
    event.listen(memory_docs, "after_create", _ddl.execute_if(dialect="sqlite"))
_drop_fts = DDL("DROP TABLE IF EXISTS memory_docs_fts")  # type: ignore[no-untyped-call]
event.listen(memory_docs, "before_drop", _drop_fts.execute_if(dialect="sqlite"))

_TOKEN = re.compile(r"\w+", re.UNICODE)


def _after(cursor: str | None) -> int:
    """The id a cursor stands for (0 for the first page)."""
    if cursor is None or cursor == "":
        return 0
    if not (cursor.isascii() and cursor.isdigit()) or int(cursor) > MAX_INT32:
        raise ActionInputError("cursor", "must be a nextCursor returned by this action", cursor)
    return int(cursor)


DocId = Annotated[int, Field(ge=1, le=MAX_INT32, json_schema_extra={"x-ref": "docId"})]
DocVersion = Annotated[
    int,
    Field(
        ge=1,
        le=MAX_INT32,
        description="The document's version as you read it (docVersion); if it changed since, the update is "
        "refused with 409 and nothing is written.",
        json_schema_extra={"x-default": "docVersion"},
    ),
]
MAX_BATCH = 100_000
"""Most ids `adelete_docs` takes in one call (deleted in chunks of `batches.CHUNK`)."""


_DOC_TYPES: dict[type, type[Any]] = {}


def _doc_type(cls: type) -> type[Any]:
    """The document DTO a concrete component bound `TDoc` to (cached per class)."""
    found = _DOC_TYPES.get(cls)
    if found is None:
        found = _DOC_TYPES[cls] = cast("type[Any]", class_bindings(cls)[DpeManageMixin][TDoc])
    return found


class DpeManageMixin(Generic[TDoc]):
    """List, page, create, update and delete documents of `self.collection`."""

    collection: str
    _doc_columns: ClassVar[tuple[Any, ...]] = (
        memory_docs.c.id.label("doc_id"),
        memory_docs.c.file_uri,
        memory_docs.c.file_type,
        memory_docs.c.keywords,
        memory_docs.c.doc_metadata,
        func.substr(memory_docs.c.text_content, 1, 200).label("excerpt"),
        memory_docs.c.version,
    )

    def _doc(self, row: RowMapping | Mapping[str, Any]) -> TDoc:
        return cast("TDoc", _doc_type(type(self)).model_validate(dict(row)))

    async def _one(self, session: AsyncSession, doc_id: int) -> TDoc:
        query = select(*self._doc_columns).where(
            memory_docs.c.collection == self.collection, memory_docs.c.id == doc_id
        )
        row = (await session.execute(query)).mappings().first()
        if row is None:
            raise ActionInputError("doc_id", f"no document {doc_id} in collection {self.collection!r}", doc_id)
        return self._doc(row)

    @tfs_action(
        alias=ActionAlias(category="pageable", resource="doc", resource_op_type="get_list"),
        description="Documents, one page at a time (page numbers).",
    )
    async def aget_docs(
        self,
        async_session: AsyncSession,
        page: Annotated[PageNumber, Field(json_schema_extra={"x-default": "page"})] = 1,
        page_size: Annotated[PageSize, Field(json_schema_extra={"x-default": "pageSize"})] = 20,
    ) -> AIMemoryDocPage[TDoc]:
        where = memory_docs.c.collection == self.collection
        total = (await async_session.execute(select(func.count()).select_from(memory_docs).where(where))).scalar_one()
        query = select(*self._doc_columns).where(where).order_by(memory_docs.c.id)
        rows = (await async_session.execute(query.limit(page_size).offset((page - 1) * page_size))).mappings().all()
        return AIMemoryDocPage[TDoc](items=[self._doc(r) for r in rows], page=page, page_size=page_size, total=total)

    @tfs_action(
        alias=ActionAlias(category="pageable", resource="doc", resource_op_type="get_list"),
        description="Documents after a cursor (for stores too large to count).",
    )
    async def aget_docs_by_cursor(
        self, async_session: AsyncSession, cursor: str | None = None, page_size: PageSize = 20
    ) -> CursorPageableList[TDoc]:
        after = _after(cursor)
        query = (
            select(*self._doc_columns)
            .where(memory_docs.c.collection == self.collection, memory_docs.c.id > after)
            .order_by(memory_docs.c.id)
            .limit(page_size + 1)
        )
        rows = (await async_session.execute(query)).mappings().all()
        docs = [self._doc(r) for r in rows[:page_size]]
        next_cursor = str(rows[page_size - 1]["doc_id"]) if len(rows) > page_size else None
        return CursorPageableList[TDoc](items=docs, cursor=cursor, page_size=page_size, next_cursor=next_cursor)

    def _search_condition(self, session: AsyncSession, query: str, mode: str) -> Any:
        dialect = session.bind.dialect.name  # type: ignore[union-attr]
        if mode == "keyword":
            word = query.strip().lower()
            if dialect == "postgresql":
                return memory_docs.c.keywords.op("@>")(bindparam("keyword", [word], type_=JSONB))
            each = func.json_each(memory_docs.c.keywords).table_valued("value")
            return exists(select(literal(1)).select_from(each).where(func.lower(each.c.value) == word))
        tokens = _TOKEN.findall(query)
        if not tokens:
            raise ActionInputError("query", "give at least one word to search for", query)
        if dialect == "postgresql":
            ts_query = func.plainto_tsquery(literal_column("'simple'::regconfig"), " ".join(tokens))
            return _PG_TSV.op("@@")(ts_query)
        match = " ".join('"' + t + '"' for t in tokens)
        rowids = text("SELECT rowid FROM memory_docs_fts WHERE memory_docs_fts MATCH :match").bindparams(match=match)
        return memory_docs.c.id.in_(rowids.columns(column("rowid", Integer)))

    @tfs_action(
        alias=ActionAlias(category="pageable", resource="doc", resource_op_type="get_list"),
        description="Documents with a keyword (mode=keyword) or whose text contains every word of the query "
        "(mode=fulltext: PostgreSQL full-text search, SQLite FTS5), by id, a cursor page at a time.",
    )
    async def asearch_docs(
        self,
        async_session: AsyncSession,
        query: Annotated[str, Field(min_length=1)],
        mode: Literal["keyword", "fulltext"] = "fulltext",
        cursor: str | None = None,
        page_size: PageSize = 20,
    ) -> CursorPageableList[TDoc]:
        after = _after(cursor)
        condition = self._search_condition(async_session, query, mode)
        select_docs = (
            select(*self._doc_columns)
            .where(memory_docs.c.collection == self.collection, memory_docs.c.id > after, condition)
            .order_by(memory_docs.c.id)
            .limit(page_size + 1)
        )
        rows = (await async_session.execute(select_docs)).mappings().all()
        docs = [self._doc(r) for r in rows[:page_size]]
        next_cursor = str(rows[page_size - 1]["doc_id"]) if len(rows) > page_size else None
        return CursorPageableList[TDoc](items=docs, cursor=cursor, page_size=page_size, next_cursor=next_cursor)

    @tfs_action(alias=ActionAlias(category="pageable", resource="doc", resource_op_type="get_one"))
    async def aget_doc(self, async_session: AsyncSession, doc_id: DocId) -> TDoc:
        """One document by id."""
        return await self._one(async_session, doc_id)

    @tfs_action(alias=ActionAlias(category="pageable", resource="doc", resource_op_type="update"))
    async def aupdate_doc(
        self,
        async_session: AsyncSession,
        doc_id: DocId,
        doc_version: DocVersion,
        keywords: Annotated[list[str], Field(json_schema_extra={"x-default": "keywords"})],
        metadata: Annotated[dict[str, Any], Field(json_schema_extra={"x-default": "docMetadata"})],
    ) -> TDoc:
        """Replace a document's keywords and metadata if it is still at `doc_version` (409 if it changed)."""
        c = memory_docs.c
        where = (c.collection == self.collection) & (c.id == doc_id) & (c.version == doc_version)
        changes = {"keywords": keywords, "doc_metadata": metadata, "version": c.version + 1}
        result = await async_session.execute(update(memory_docs).where(where).values(**changes))
        if not cast("CursorResult[Any]", result).rowcount:
            current = await self._one(async_session, doc_id)  # a 422 when there is no such document
            raise ActionConflictError(
                "doc_version",
                f"document {doc_id} changed since you read it: you sent version {doc_version}, it is at version "
                f"{current.version} now (see `current`); reload it and apply your change again, or overwrite it by "
                f"sending doc_version {current.version}",
                doc_version,
                current=current.model_dump(mode="json", by_alias=True),
                overwrite={"doc_version": current.version},
            )
        return await self._one(async_session, doc_id)

    @tfs_action(alias=ActionAlias(category="pageable", resource="doc", resource_op_type="delete"))
    async def adelete_doc(self, async_session: AsyncSession, doc_id: DocId) -> None:
        """Delete one document."""
        await self._one(async_session, doc_id)
        await async_session.execute(delete(memory_docs).where(memory_docs.c.id == doc_id))

    @tfs_action(alias=ActionAlias(category="pageable", resource="doc", resource_op_type="delete"))
    async def adelete_docs(
        self,
        async_session: AsyncSession,
        doc_ids: Annotated[
            list[Annotated[int, Field(ge=1, le=MAX_INT32)]],
            Field(min_length=1, max_length=MAX_BATCH, json_schema_extra={"x-ref": "allDocIds"}),
        ],
    ) -> int:
        """Delete every listed document of this collection (the page's batch action, up to 100,000 ids);
        returns the count."""
        deleted = 0
        for chunk in chunks(sorted(set(doc_ids))):
            where = (memory_docs.c.collection == self.collection) & memory_docs.c.id.in_(chunk)
            deleted += cast("CursorResult[Any]", await async_session.execute(delete(memory_docs).where(where))).rowcount
        return deleted

    async def _insert(self, session: AsyncSession, values: Mapping[str, Any]) -> int:
        result = await session.execute(insert(memory_docs).values(collection=self.collection, **values))
        key = cast("CursorResult[Any]", result).inserted_primary_key
        if key is None:
            raise RuntimeError("the database did not return the new document's id")
        return int(key[0])
