"""The demo memory component: documents in SQLite plus the read actions its forms fetch from.

`acreate_doc` shows x-fetch: its owner is shown as the caller (`userId`, fetched with
`aget_current_user` when no row provides it) and its file type defaults to the first accepted type
(`fileTypeOptions`, an Options namespace fetched with `aget_doc_types`). The owner a document is
stored with is always the caller, set by the server from the principal: the form shows who that will
be, and an `owner_id` naming anyone else is refused. `aingest_file` turns an uploaded text, Markdown
or PDF file into a document with its text (searchable) and keywords; NUL characters, which the stores
cannot hold and which carry no text, are dropped from the extracted text.
"""

from __future__ import annotations

import base64
import binascii
from typing import Annotated, Any

from pydantic import Field
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from tfrobotserver.actions.alias import ActionAlias
from tfrobotserver.actions.decorator import tfs_action
from tfrobotserver.actions.errors import ActionInputError
from tfrobotserver.actions.injected import Principal
from tfrobotserver.dtos.factory.brain.memory.ai_memory import AIMemoryDoc
from tfrobotserver.dtos.factory.brain.memory.doc_types import DocType, DocTypeCatalog
from tfrobotserver.dtos.factory.config import ConfigUpdate
from tfrobotserver.dtos.factory.user import CurrentUser
from tfrobotserver.robot.factory.brain.memory.dpe_manage_mixin import DpeManageMixin, memory_docs
from tfrobotserver.robot.factory.brain.memory.ingest import (
    READABLE_TYPES,
    IngestError,
    IngestLimits,
    file_type_of,
    ingest,
)
from tfrobotserver.robot.factory.config_mixin import ConfigurableMixin
from tfrobotserver.robot.factory.worker import off_process


class MemoryComponent(ConfigurableMixin, DpeManageMixin[AIMemoryDoc]):
    """Memory documents of one collection; seeds `seed_docs` example rows into an empty store."""

    collection: str = Field(default="default", min_length=1, max_length=128)
    seed_docs: int = Field(default=0, ge=0)
    file_types: dict[str, str] = Field(default_factory=lambda: {"pdf": "PDF document", "md": "Markdown", "txt": "Text"})
    max_pdf_pages: int = Field(default=IngestLimits.max_pages, ge=1, description="Pages `aingest_file` reads.")
    max_text_chars: int = Field(default=IngestLimits.max_chars, ge=1, description="Text one ingested file may have.")

    async def aon_startup(self, session: AsyncSession) -> None:
        count_query = select(func.count()).select_from(memory_docs).where(memory_docs.c.collection == self.collection)
        if (await session.execute(count_query)).scalar_one() > 0:
            return
        kinds = list(self.file_types) or ["txt"]
        for i in range(1, self.seed_docs + 1):
            kind = kinds[i % len(kinds)]
            await self._insert(
                session,
                {
                    "file_uri": f"memory://{self.collection}/doc-{i:04d}.{kind}",
                    "file_type": kind,
                    "keywords": [f"topic-{i % 5}", kind],
                    "doc_metadata": {"seeded": True, "n": i},
                    "text_content": f"Demo document {i} of {self.collection} about topic {i % 5}, "
                    f"filed as {self.file_types.get(kind, kind)}.",
                },
            )

    @tfs_action(alias=ActionAlias(resource="user", resource_op_type="get"))
    async def aget_current_user(self, principal: Principal) -> CurrentUser:
        """Who is calling: the x-fetch target of parameters that default to the caller."""
        return CurrentUser(user_id=principal.name, display_name=principal.name, scopes=sorted(principal.scopes))

    def _validate_config(self, new: Any) -> None:
        unreadable = sorted(set(new.file_types) - set(READABLE_TYPES))
        if unreadable:
            raise ActionInputError(
                "file_types", f"cannot ingest {unreadable}; readable types: {', '.join(READABLE_TYPES)}", new.file_types
            )

    @tfs_action(alias=ActionAlias(resource="doc_type", resource_op_type="get"))
    async def aget_doc_types(self) -> DocTypeCatalog:
        """The file types this memory accepts (feeds the file type select of acreate_doc)."""
        return DocTypeCatalog(types=[DocType(key=k, label=v) for k, v in self.file_types.items()])

    @tfs_action(
        alias=ActionAlias(resource="doc_type", resource_op_type="config"),
        description="Replace the accepted file types (key → label); ingestion and the type select follow at once.",
    )
    async def aset_file_types(
        self,
        async_session: AsyncSession,
        principal: Principal,
        file_types: Annotated[dict[str, str], Field(min_length=1)],
    ) -> ConfigUpdate:
        return await self._change_config(async_session, principal, {"file_types": file_types})

    @tfs_action(alias=ActionAlias(category="pageable", resource="doc", resource_op_type="create"))
    async def acreate_doc(
        self,
        async_session: AsyncSession,
        file_uri: Annotated[str, Field(min_length=1, max_length=1024)],
        file_type: Annotated[
            str, Field(json_schema_extra={"x-default": "fileTypeOptions.keys[0]", "x-fetch": "aget_doc_types"})
        ],
        principal: Principal,
        owner_id: Annotated[
            str | None,
            Field(
                description="Who will own the document: always the caller (shown for confirmation; another user "
                "is refused).",
                json_schema_extra={"x-ref": "userId", "x-default": "userId", "x-fetch": "aget_current_user"},
            ),
        ] = None,
        keywords: list[str] | None = None,
        text: str = "",
    ) -> AIMemoryDoc:
        """Register a document (its text is optional); the caller is kept as its owner in its metadata."""
        if file_type not in self.file_types:
            raise ActionInputError("file_type", f"must be one of {sorted(self.file_types)}", file_type)
        if owner_id is not None and owner_id != principal.name:
            raise ActionInputError(
                "owner_id",
                f"a document is owned by whoever creates it, here {principal.name!r}; omit owner_id or send your own "
                "(aget_current_user)",
                owner_id,
            )
        values: dict[str, Any] = {
            "file_uri": file_uri,
            "file_type": file_type,
            "keywords": keywords or [],
            "doc_metadata": {"owner": principal.name},
            "text_content": text,
        }
        return await self._one(async_session, await self._insert(async_session, values))

    @tfs_action(
        alias=ActionAlias(category="pageable", resource="doc", resource_op_type="create"),
        description="Ingest a text, Markdown or PDF file (base64): its text becomes searchable, its most "
        "frequent words its keywords unless keywords are given.",
    )
    async def aingest_file(
        self,
        async_session: AsyncSession,
        principal: Principal,
        file_name: Annotated[
            str,
            Field(min_length=1, max_length=255, description="its name; its extension (.txt, .md, .pdf) is its type"),
        ],
        content_base64: Annotated[
            str,
            Field(
                title="File",
                description="the file's bytes, base64-encoded (the console reads a chosen file)",
                json_schema_extra={"contentEncoding": "base64"},
            ),
        ],
        keywords: list[str] | None = None,
    ) -> AIMemoryDoc:
        file_type = file_type_of(file_name)
        if file_type not in self.file_types:
            raise ActionInputError("file_name", f"the file type must be one of {sorted(self.file_types)}", file_name)
        try:
            data = base64.b64decode(content_base64, validate=True)
        except binascii.Error as exc:
            raise ActionInputError("content_base64", f"not base64: {exc}", None) from None
        limits = IngestLimits(max_pages=self.max_pdf_pages, max_chars=self.max_text_chars)
        try:  # reading a PDF is CPU work that makes many objects: in a worker process, bounded there
            extracted, found = await off_process(
                ingest, file_type, data, limits, keywords is None, seconds=limits.max_seconds
            )
        except (IngestError, TimeoutError) as exc:
            raise ActionInputError("content_base64", str(exc), None) from None
        except MemoryError:
            raise ActionInputError(
                "content_base64", "reading the file needed more memory than a worker may use; split it", None
            ) from None
        text = extracted.text.replace("\x00", "")
        read = {k: v.replace("\x00", "") if isinstance(v, str) else v for k, v in extracted.metadata.items()}
        metadata = {**read, "fileName": file_name, "bytes": len(data), "owner": principal.name}
        values: dict[str, Any] = {
            "file_uri": f"upload://{self.collection}/{file_name}",
            "file_type": file_type,
            "keywords": keywords if keywords is not None else found,
            "doc_metadata": metadata,
            "text_content": text,
        }
        return await self._one(async_session, await self._insert(async_session, values))
