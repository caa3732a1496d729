"""Long id lists in SQL: one statement per chunk, so no statement exceeds a driver's bind-parameter limit.

asyncpg takes at most 32,767 parameters per statement and SQLite 32,766 by default; an `IN` over more
fails in the driver (which asyncpg reports like a lost connection: a misleading 503 "retry"). The graph's
walks and the documents' batch delete both go through `chunks`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")

CHUNK = 500
"""Values bound in one statement: far below every driver's limit, and few statements for large batches."""


def chunks(items: Sequence[T], size: int = CHUNK) -> Iterator[list[T]]:
    """`items` in consecutive lists of at most `size`."""
    for start in range(0, len(items), size):
        yield list(items[start : start + size])
