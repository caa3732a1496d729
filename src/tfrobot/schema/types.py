"""Type aliases shared across the schema package."""

from __future__ import annotations

from typing import Annotated, Any, TypeAlias, cast

from pydantic import GetCoreSchemaHandler, JsonValue
from pydantic_core import CoreSchema, core_schema


def written_by_value(schema: CoreSchema) -> CoreSchema:
    """`schema`, serialized by pydantic-core's inference: each value by its own type's serializer (a model by
    its class's), in Rust, with no check against `schema`.

    What passed validation needs no second look when it is written, but a union's serializer gives it one:
    it tries its choices in turn in strict mode, and the chosen model then checks every nested value the same
    way (dumping a stored conversation through the message union cost a third more than the same messages
    dumped by their own classes). Validation, and the JSON Schema in either mode, stay those of `schema`
    (pydantic reads no schema from an `any` serializer)."""
    return cast(CoreSchema, {**schema, "serialization": core_schema.simple_ser_schema("any")})


class _SerializedInRust:
    """Validates as `JsonValue`, serializes by pydantic-core's own inference of the JSON types.

    `JsonValue` serializes through its validation union, which calls a Python function for every value to
    name its type: a third of the Python time of dumping a conversation went there (three values in the trace
    mark of every record). A JSON value needs no schema to be written, so inference writes the same JSON."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        inner = handler(source)  # (a definitions node, which takes no serializer: wrapped in one that does)
        return written_by_value(core_schema.json_or_python_schema(json_schema=inner, python_schema=inner))


AttributeValue: TypeAlias = Annotated[JsonValue, _SerializedInRust]
"""A metadata value: anything JSON can hold (the seed's `additional_kwargs` values, trace meta)."""
