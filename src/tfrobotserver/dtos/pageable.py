"""The PageableProtocol containers: what every `get_list` action must return.

`category="pageable"` promises the console a list container with at least `items`; the two
pagination modes add `page`/`pageSize`/`total` or `cursor`/`pageSize`/`nextCursor`. Registration
refuses a get_list whose return type is not a `BasePageableList` subclass, so the promise holds.

x-namespace / x-actions belong on the *element* type (the `T` of `items`), never here: the
console builds one scope per row. Subclasses may add container-level variables that project over
all rows (e.g. `"allDocIds": "items[*].docId"`) for batch actions.

Paging is declared, not guessed: each container's schema says its mode (`x-paging: {"mode":
"page"}` or `{"mode": "cursor"}`), and registration marks the get_list parameters that drive it
(`x-paging: "page" | "pageSize" | "cursor"`, see `PAGING_ROLES`); the console reads both.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Generic, Literal, TypeAlias, TypeVar

from pydantic import Field, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from tfrobotserver.dtos.base import HttpModel

T = TypeVar("T")

MAX_INT32 = 2**31 - 1
"""The largest page number or row id an action accepts: ids are 32-bit INTEGER columns, and a larger page
overflows an OFFSET on some dialects, so both are refused as invalid (422) instead of failing in the
database (500)."""

PageNumber: TypeAlias = Annotated[int, Field(ge=1, le=MAX_INT32, description="1-based page number")]
"""The `page` parameter of every page-number get_list."""
PageSize: TypeAlias = Annotated[int, Field(ge=1, le=200, description="rows per page")]
"""The `page_size` parameter of every get_list."""

PagingRole: TypeAlias = Literal["page", "pageSize", "cursor"]
"""What a get_list parameter does for paging: the page number, the rows per page, the cursor."""

PAGING_KEY = "x-paging"
"""The schema key of the paging declaration: the mode on a container, the role on a parameter."""


class BasePageableList(HttpModel, Generic[T]):
    """A list container: the rows the console renders as a table."""

    items: list[T] = Field(default_factory=list)
    """The rows of this page; each row gets its own namespace scope in the console."""

    PAGING_MODE: ClassVar[Literal["page", "cursor"] | None] = None
    """How the container pages; None: one page (no paging declared)."""
    PAGING_ROLES: ClassVar[Mapping[str, PagingRole]] = {}
    """get_list parameter name → its paging role: a parameter named like the container field it
    echoes drives that field. Another name declares its role itself (`x-paging` in its Field's
    `json_schema_extra`)."""

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        """Declare the paging mode on the container's schema, for subclasses with their own extras too."""
        json_schema: dict[str, Any] = handler(core_schema)
        if cls.PAGING_MODE is not None:
            handler.resolve_ref_schema(json_schema)[PAGING_KEY] = {"mode": cls.PAGING_MODE}
        return json_schema


class PageableList(BasePageableList[T], Generic[T]):
    """Page-number pagination: `page` is 1-based, `total` counts all rows of all pages."""

    PAGING_MODE: ClassVar[Literal["page", "cursor"] | None] = "page"
    PAGING_ROLES: ClassVar[Mapping[str, PagingRole]] = {"page": "page", "page_size": "pageSize"}

    page: int = Field(default=1, ge=1)
    page_size: int = Field(default=20, ge=1)
    total: int = Field(default=0, ge=0)


class CursorPageableList(BasePageableList[T], Generic[T]):
    """Cursor pagination for stores that cannot count: pass `nextCursor` back as `cursor`."""

    PAGING_MODE: ClassVar[Literal["page", "cursor"] | None] = "cursor"
    PAGING_ROLES: ClassVar[Mapping[str, PagingRole]] = {"cursor": "cursor", "page_size": "pageSize"}

    cursor: str | None = None
    page_size: int = Field(default=20, ge=1)
    next_cursor: str | None = None
    """None when this is the last page."""
