"""Type aliases shared across the schema package."""

from __future__ import annotations

import reprlib
from typing import Annotated, Any, TypeAlias, cast

from pydantic import GetCoreSchemaHandler, JsonValue
from pydantic_core import CoreSchema, PydanticSerializationUnexpectedValue, core_schema


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


def written_by_own_class(schema: CoreSchema, expected: type[Any] | tuple[type[Any], ...]) -> CoreSchema:
    """`schema`, serialized by the value's own class's serializer (pydantic-core's inference, in Rust) once a
    C-speed `isinstance` has said it is one of `expected`; anything else is reported as pydantic reports a
    wrong value (a warning naming the expected classes, or an error under `warnings="error"`) and written by inference.

    What passed validation needs no second look when it is written, but a union's serializer gives it one: it
    tries its choices in turn in strict mode and then checks every field of the chosen class the same way
    (dumping a stored conversation through the message union cost half again as much as the same messages
    dumped by their own classes), and it wrote a subclass of a choice as that choice, dropping the subclass's
    fields. Validation, and the JSON Schema in either mode, stay those of `schema`: the serializer's return
    schema (what serialization-mode JSON Schema is generated from) is `schema` itself, written by inference."""

    choices = expected if isinstance(expected, tuple) else (expected,)
    name = " | ".join(choice.__name__ for choice in choices)

    def written(value: Any, info: core_schema.SerializationInfo) -> Any:
        if isinstance(value, expected):
            if info.include is None and info.exclude is None:
                return value
            serializer = getattr(value, "__pydantic_serializer__", None)
            if serializer is None:  # (a `str` result: nothing to filter)
                return value
            # A nested include/exclude (`exclude={"records": {"__all__": {"content"}}}`) is this value's own filter:
            # inference would write the value whole, so it is applied here, by the value's class.
            return serializer.to_python(
                value,
                mode=info.mode,
                include=info.include,
                exclude=info.exclude,
                context=info.context,
                by_alias=info.by_alias,
                exclude_unset=info.exclude_unset,
                exclude_defaults=info.exclude_defaults,
                exclude_none=info.exclude_none,
                exclude_computed_fields=info.exclude_computed_fields,
                round_trip=info.round_trip,
                serialize_as_any=info.serialize_as_any,
            )
        if value is None:  # (a field left at an unvalidated None default: written as null, as pydantic does)
            return None
        raise PydanticSerializationUnexpectedValue(
            f"Expected `{name}` - serialized value may not be as expected "
            f"[input_value={reprlib.repr(value)}, input_type={type(value).__name__}]"
        )

    by_inference = core_schema.simple_ser_schema("any")
    ref = schema.get("ref")
    described = (
        core_schema.definition_reference_schema(str(ref), serialization=by_inference)
        if ref is not None
        else cast(CoreSchema, {**schema, "serialization": by_inference})
    )
    serializer = core_schema.plain_serializer_function_ser_schema(written, info_arg=True, return_schema=described)
    return cast(CoreSchema, {**schema, "serialization": serializer})


class WrittenByOwnClass:
    """`Annotated[SomeModel, WrittenByOwnClass]`: a field whose value is written by its own class's serializer
    (`written_by_own_class`), so a subclass keeps the fields it declares; pydantic writes a subclass as the
    annotated class."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: type[Any], handler: GetCoreSchemaHandler) -> CoreSchema:
        return written_by_own_class(handler(source), source)
