"""Memory documents as the console sees them (the seed's `ai_memory.py`)."""

from __future__ import annotations

from typing import Any, ClassVar, Generic, TypeVar

from pydantic import ConfigDict, Field

from tfrobotserver.dtos.base import HttpModel
from tfrobotserver.dtos.pageable import PageableList


class AIMemoryDoc(HttpModel):
    """One document row: its x-namespace feeds aupdate_doc / adelete_doc of the same row (`docVersion`: the
    version an update sends back, so that a write over a newer version is refused instead of losing it)."""

    doc_id: int
    file_uri: str
    file_type: str
    keywords: list[str] = Field(default_factory=list)
    doc_metadata: dict[str, Any] = Field(default_factory=dict)
    excerpt: str = Field(default="", description="The first 200 characters of the document's text.")
    version: int = Field(default=1, ge=1, description="1 when created, one more per update.")

    model_config: ClassVar[ConfigDict] = ConfigDict(
        json_schema_extra={
            "x-namespace": {
                "docId": "docId",
                "fileUri": "fileUri",
                "fileType": "fileType",
                "keywords": "keywords",
                "docMetadata": "docMetadata",
                "docVersion": "version",
            },
            "x-actions": ["aupdate_doc", "adelete_doc"],
        }
    )


TDoc = TypeVar("TDoc", bound=AIMemoryDoc)


class AIMemoryDocPage(PageableList[TDoc], Generic[TDoc]):
    """A page of documents that also offers a batch delete over every row shown, and its page position.

    The container-level variable projects over all rows (seed 4.4 rule 4): it is an array meant
    for batch actions, while row actions keep using each row's own `docId`. `page` / `pageSize` are
    container-level scalars: `aget_docs` takes them as x-default, so a refresh stays on the page shown.
    """

    model_config: ClassVar[ConfigDict] = ConfigDict(
        json_schema_extra={
            "x-namespace": {"allDocIds": "items[*].docId", "page": "page", "pageSize": "pageSize"},
            "x-actions": ["adelete_docs"],
        }
    )
