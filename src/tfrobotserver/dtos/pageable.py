"""The PageableProtocol containers: what every `get_list` action must return.

`category="pageable"` promises the console a list container with at least `items`; the two
pagination modes add `page`/`pageSize`/`total` or `cursor`/`pageSize`/`nextCursor`. Registration
refuses a get_list whose return type is not a `BasePageableList` subclass, so the promise holds.

x-namespace / x-actions belong on the *element* type (the `T` of `items`), never here: the
console builds one scope per row. Subclasses may add container-level variables that project over
all rows (e.g. `"allDocIds": "items[*].docId"`) for batch actions.
"""

from __future__ import annotations

from typing import Annotated, Generic, TypeAlias, TypeVar

from pydantic import Field

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


class BasePageableList(HttpModel, Generic[T]):
    """A list container: the rows the console renders as a table."""

    items: list[T] = Field(default_factory=list)
    """The rows of this page; each row gets its own namespace scope in the console."""


class PageableList(BasePageableList[T], Generic[T]):
    """Page-number pagination: `page` is 1-based, `total` counts all rows of all pages."""

    page: int = Field(default=1, ge=1)
    page_size: int = Field(default=20, ge=1)
    total: int = Field(default=0, ge=0)


class CursorPageableList(BasePageableList[T], Generic[T]):
    """Cursor pagination for stores that cannot count: pass `nextCursor` back as `cursor`."""

    cursor: str | None = None
    page_size: int = Field(default=20, ge=1)
    next_cursor: str | None = None
    """None when this is the last page."""
