"""Type aliases shared across the schema package."""

from __future__ import annotations

from typing import Annotated, Any, TypeAlias

from pydantic import GetCoreSchemaHandler, JsonValue
from pydantic_core import CoreSchema, core_schema


class _SerializedInRust:
    """Validates as `JsonValue`, serializes by pydantic-core's own inference of the JSON types.

    `JsonValue` serializes through its validation union, which calls a Python function for every value to
    name its type: a third of the Python time of dumping a conversation went there (three values in the trace
    mark of every record). A JSON value needs no schema to be written, so inference writes the same JSON."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        inner = handler(source)
        return core_schema.json_or_python_schema(
            json_schema=inner, python_schema=inner, serialization=core_schema.simple_ser_schema("any")
        )


AttributeValue: TypeAlias = Annotated[JsonValue, _SerializedInRust]
"""A metadata value: anything JSON can hold (the seed's `additional_kwargs` values, trace meta)."""
