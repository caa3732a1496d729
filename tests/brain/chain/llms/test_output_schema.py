"""`OutputSchema.of`: titles dropped (not properties named `title`), objects closed, strict only when OpenAI's
strict mode can take the schema."""

from __future__ import annotations

from pydantic import BaseModel

from tfrobot.brain.chain.llms import OutputSchema


class Book(BaseModel):
    """A book on the shelf."""

    title: str
    pages: int


class Shelf(BaseModel):
    books: list[Book]
    label: str | None = None


def test_titles_go_properties_named_title_stay_and_the_docstring_is_the_description() -> None:
    schema = OutputSchema.of(Book)
    assert schema.name == "Book"
    assert schema.description == "A book on the shelf."
    assert schema.schema == {
        "type": "object",
        "properties": {"title": {"type": "string"}, "pages": {"type": "integer"}},
        "required": ["title", "pages"],
    }
    assert schema.closed == {**schema.schema, "additionalProperties": False}
    assert schema.strict is True


def test_an_optional_field_is_not_strict_but_every_object_is_still_closed() -> None:
    schema = OutputSchema.of(Shelf, name="shelf")
    assert (schema.name, schema.strict) == ("shelf", False)
    assert schema.closed["additionalProperties"] is False
    assert schema.closed["$defs"]["Book"]["additionalProperties"] is False
    assert "additionalProperties" not in schema.schema["$defs"]["Book"]


def test_an_object_that_allows_other_keys_keeps_its_word_and_is_not_strict() -> None:
    class Tags(BaseModel):
        tags: dict[str, str]

    schema = OutputSchema.of(Tags)
    assert schema.closed["properties"]["tags"]["additionalProperties"] == {"type": "string"}
    assert schema.strict is False
