"""`ListOrTuple[X]`: a `Sequence[X]` field that pydantic-core validates and serializes without Python code.

Pydantic gives `Sequence[X]` a Python serializer (`serialize_sequence_via_list`, called for every value) and a
Python validator for Python input; on the messages' `tool_reses`, `console_reses` and forwarded history that
was a quarter of the time of dumping a conversation. This schema keeps what `Sequence` accepts and returns for
the values messages hold - a list stays a list, a tuple a tuple, a string is refused - as a union of the
list and the tuple schemas, both in Rust: in Python a value takes the branch of its exact type, and in JSON
an array is a list; a dump writes either as an array.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, TypeAlias, TypeVar, get_args

from pydantic import GetCoreSchemaHandler
from pydantic_core import CoreSchema, core_schema

T = TypeVar("T")


class _ListOrTupleSchema:
    """The `Annotated` marker that replaces pydantic's schema of the `Sequence[X]` it annotates."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        (item,) = get_args(source)
        items = handler.generate_schema(item)
        as_list = core_schema.list_schema(items)
        as_tuple = core_schema.tuple_schema([items], variadic_item_index=0)
        return core_schema.json_or_python_schema(
            json_schema=core_schema.union_schema([as_list, as_tuple], mode="left_to_right"),
            python_schema=core_schema.union_schema([as_list, as_tuple]),
        )


ListOrTuple: TypeAlias = Annotated[Sequence[T], _ListOrTupleSchema]
"""A sequence of `T` held as a list or a tuple (see the module docstring)."""
