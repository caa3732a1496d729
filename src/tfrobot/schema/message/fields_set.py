"""One `model_fields_set` per combination of set fields, shared by the messages that set them (issue 18: heap).

Pydantic gives every instance its own set of the fields it was given; a message sets 5 to 11 of them, and a
set of 5 or more costs 728 bytes: a quarter of what a stored conversation holds. Messages loaded from one
store set the same few combinations (a tool result: role, its results, the mark, time, id, conversation), so
`share` gives every message of one combination the same `_SharedFieldsSet`, a `set` (pydantic-core reads it as
one for `exclude_unset`) that refuses to change. The records of a turn's trace get theirs when the trace is
validated (`IntermediateTrace._share_fields_sets`): they are most of a conversation's messages. Pydantic changes
a fields set in three places, each of which gets a set of its own first: assigning a field
(`BaseMessage.__setattr__`), and the copies (`__copy__` and `__deepcopy__` of this class, which
`model_copy(update=…)` then updates).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final, NoReturn

from pydantic import BaseModel

_MOST: Final = 4096
"""Combinations kept; a message with a combination beyond them keeps its own set (bounds the memory of a
process that sees arbitrary records)."""


class _SharedFieldsSet(set[str]):
    """A fields set shared by several messages: read-only, and copied as a plain `set`."""

    __slots__ = ()

    def __copy__(self) -> set[str]:
        return set(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> set[str]:
        return set(self)


def _refuse(self: _SharedFieldsSet, *args: Any) -> NoReturn:
    raise TypeError(
        f"the fields set {set(self)!r} is shared by every message that set these fields and cannot change here; "
        "assign the field on the message (`msg.name = value`), which gives the message a set of its own"
    )


for _name in (
    "add",
    "clear",
    "difference_update",
    "discard",
    "intersection_update",
    "pop",
    "remove",
    "symmetric_difference_update",
    "update",
    "__iand__",
    "__ior__",
    "__isub__",
    "__ixor__",
):
    setattr(_SharedFieldsSet, _name, _refuse)

_SHARED: Final[dict[tuple[str, ...], set[str]]] = {}
"""Tuple of a fields set (in its iteration order) -> the shared set equal to it."""


def share(fields_set: set[str]) -> set[str]:
    """The shared set equal to `fields_set` (the same object for every equal set built in the same order)."""
    key = tuple(fields_set)
    shared = _SHARED.get(key)
    if shared is None:
        if len(_SHARED) >= _MOST:
            return fields_set
        shared = _SHARED[key] = _SharedFieldsSet(fields_set)
    return shared


def share_all(messages: Iterable[BaseModel]) -> None:
    """Give each of `messages` the shared set equal to its own (`share`)."""
    for msg in messages:
        object.__setattr__(msg, "__pydantic_fields_set__", share(msg.__pydantic_fields_set__))


def is_shared(fields_set: set[str]) -> bool:
    """Whether `fields_set` is a shared one (to be replaced by a set of its own before it changes)."""
    return type(fields_set) is _SharedFieldsSet
