"""Document management actions for memory components (the seed's `dpe_manage_mixin.py`).

The mixin is generic in the document DTO so that a memory component with a richer document type
gets its schemas (and x-namespace / x-actions) from that type: `DpeManageMixin[AIMemoryDoc]`.
Rows live in the `memory_docs` table, partitioned by the component's `collection`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Generic, cast

from pydantic import Field
from sqlalchemy import (
    JSON,
    Column,
    CursorResult,
    Integer,
    RowMapping,
    String,
    Table,
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.ext.asyncio import AsyncSession

from tfrobotserver.actions.alias import ActionAlias
from tfrobotserver.actions.decorator import tfs_action
from tfrobotserver.actions.errors import ActionInputError
from tfrobotserver.actions.typing_tools import class_bindings
from tfrobotserver.dtos.factory.brain.memory.ai_memory import AIMemoryDocPage, TDoc
from tfrobotserver.dtos.pageable import CursorPageableList
from tfrobotserver.storage import metadata

memory_docs = Table(
    "memory_docs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("collection", String(128), nullable=False, index=True),
    Column("file_uri", String(1024), nullable=False),
    Column("file_type", String(64), nullable=False),
    Column("keywords", JSON, nullable=False),
    Column("doc_metadata", JSON, nullable=False),
)

MAX_ID = 2**31 - 1
"""The largest document id (and page number): `id` is a 32-bit INTEGER on PostgreSQL, and a larger
parameter would fail in the database (a 500) instead of being refused as invalid (a 422)."""
DocId = Annotated[int, Field(ge=1, le=MAX_ID, json_schema_extra={"x-ref": "docId"})]
PageSize = Annotated[int, Field(ge=1, le=200)]


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
        self, async_session: AsyncSession, page: Annotated[int, Field(ge=1, le=MAX_ID)] = 1, page_size: PageSize = 20
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
        if cursor is not None and not cursor.isdigit():
            raise ActionInputError("cursor", "must be a nextCursor returned by this action", cursor)
        after = int(cursor) if cursor else 0
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

    @tfs_action(alias=ActionAlias(category="pageable", resource="doc", resource_op_type="get_one"))
    async def aget_doc(self, async_session: AsyncSession, doc_id: DocId) -> TDoc:
        """One document by id."""
        return await self._one(async_session, doc_id)

    @tfs_action(alias=ActionAlias(category="pageable", resource="doc", resource_op_type="update"))
    async def aupdate_doc(
        self,
        async_session: AsyncSession,
        doc_id: DocId,
        keywords: Annotated[list[str], Field(json_schema_extra={"x-default": "keywords"})],
        metadata: Annotated[dict[str, Any], Field(json_schema_extra={"x-default": "docMetadata"})],
    ) -> TDoc:
        """Replace a document's keywords and metadata."""
        await self._one(async_session, doc_id)
        await async_session.execute(
            update(memory_docs).where(memory_docs.c.id == doc_id).values(keywords=keywords, doc_metadata=metadata)
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
            list[Annotated[int, Field(ge=1, le=MAX_ID)]], Field(min_length=1, json_schema_extra={"x-ref": "allDocIds"})
        ],
    ) -> int:
        """Delete every listed document of this collection (the page's batch action); returns the count."""
        where = (memory_docs.c.collection == self.collection) & memory_docs.c.id.in_(doc_ids)
        result = await async_session.execute(delete(memory_docs).where(where))
        return int(getattr(result, "rowcount", 0))

    async def _insert(self, session: AsyncSession, values: Mapping[str, Any]) -> int:
        result = await session.execute(insert(memory_docs).values(collection=self.collection, **values))
        key = cast("CursorResult[Any]", result).inserted_primary_key
        if key is None:
            raise RuntimeError("the database did not return the new document's id")
        return int(key[0])
