"""The page cursors of `SQLMessageStore`: keyset pagination over (timestamp, tie-breaker), encoded as
``"<ts>:<tail>"``. Decoding checks what the database would otherwise fail on (a BIGINT out of range, a NUL)
so a bad cursor is a `ValueError` that says what to pass instead."""

from __future__ import annotations

from typing import Final

_INT64: Final = (-(2**63), 2**63 - 1)
"""The range of a BIGINT: a cursor outside it is refused before it reaches the database (which would fail)."""


def encode_cursor(ts: int, tail: int | str) -> str:
    """The cursor after a row ordered by (`ts`, `tail`): opaque to callers, who pass back `next_cursor`."""
    return f"{ts}:{tail}"


def decode_cursor(cursor: str) -> tuple[int, str]:
    """(ts, tail) of a conversation-page cursor; a forged or mangled one is refused here, not by the database."""
    ts, sep, tail = cursor.partition(":")
    digits = ts.removeprefix("-")
    if (
        not sep
        or "\x00" in tail
        or not (digits.isascii() and digits.isdigit())
        or not _INT64[0] <= int(ts) <= _INT64[1]
    ):
        raise ValueError(f"invalid page cursor {cursor!r}: pass back the `next_cursor` of the previous page, or None")
    return int(ts), tail


def decode_message_cursor(cursor: str) -> tuple[int, int]:
    """(ts, row id) of a message-page cursor: its tail must be a row id within a BIGINT."""
    ts, tail = decode_cursor(cursor)
    if not (tail.isascii() and tail.isdigit()) or int(tail) > _INT64[1]:
        raise ValueError(f"invalid page cursor {cursor!r}: pass back the `next_cursor` of the previous page")
    return ts, int(tail)


def page_limit(limit: int) -> int:
    """`limit`, refused below 1 (a page of nothing would have no cursor to go on from)."""
    if limit < 1:
        raise ValueError(f"page limit {limit} must be at least 1")
    return limit
