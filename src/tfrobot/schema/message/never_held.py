"""Base fields a message class never holds (issue 18: the width of a message).

`BaseMessage` carries every field of the seed's field map, because system, tool, console and function messages
are plain `BaseMessage`s told apart by which of them they fill. A user message never holds tool calls, results,
function calls or TFL scripts, and an assistant message never holds results; yet every field a class has costs
every instance of it, stored or not: a slot in its `__dict__` (a user message needs 10 without them, 16 with
them; an assistant 19, or 22, which doubles the dict), a key looked up in every record it loads from, a test in
every dump. So those classes declare them `ClassVar[None] = None`: they read as None, as before, and are no
fields (pydantic leaves class variables out).

Records written before v3 hold every field, null ones included. A null the class never holds is dropped where
the record loads (`drop_never_held`), so an old record loads equal to the message a current version writes; any
other value stays an extra field of the message (a stored record loses nothing), and Python input that gives a
typed one (a `ToolCall`) is refused: a user message with tool calls is a mistake of the code that built it.
"""

from __future__ import annotations

from functools import cache

from pydantic import BaseModel


@cache
def never_held(cls: type[BaseModel]) -> frozenset[str]:
    """The fields of `cls`'s bases that `cls` declares as class variables: the ones it never holds."""
    inherited = {name for base in cls.__mro__[1:] for name in getattr(base, "__pydantic_fields__", ())}
    return frozenset(inherited.intersection(cls.__class_vars__))


def _plain(value: object) -> bool:
    """Whether `value` is plain JSON data (what a stored record, or a `model_dump()` of one, holds)."""
    if isinstance(value, dict):
        return all(isinstance(key, str) and _plain(item) for key, item in value.items())
    if isinstance(value, list):
        return all(_plain(item) for item in value)
    return value is None or isinstance(value, str | int | float | bool)


def drop_never_held(msg: BaseModel, *, refuse: bool) -> None:
    """Drop the nulls `msg`'s input gave fields its class never holds (they went to its extra fields); with
    `refuse`, raise for a typed value (a `ToolCall` on a user message: the code that built it is wrong), else keep
    it there: plain data is a stored record's, and `model_dump()` then `model_validate` of a message loaded from
    one must give it back (review R22)."""
    extra = msg.__pydantic_extra__
    if not extra:
        return
    cls = type(msg)
    for name in never_held(cls).intersection(extra):
        value = extra[name]
        if value is None:
            del extra[name]
            fields_set = msg.__pydantic_fields_set__
            if name in fields_set:
                object.__setattr__(msg, "__pydantic_fields_set__", fields_set - {name})
        elif refuse and not _plain(value):
            raise ValueError(
                f"{cls.__name__} never holds `{name}` (got {value!r}): a {cls.__name__} reads it as None and does "
                f"not store it. Fix: put it on the message that holds it (tool calls on the assistant message, "
                "results on a tool or console message), or leave it out."
            )
