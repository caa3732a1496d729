"""`OutputSchema`: the JSON schema a reply must follow, made once from a Pydantic model for every provider.

Each provider constrains replies its own way (`ChatLLM.response_format`: OpenAI's `response_format`, the
Responses API's `text.format`, Anthropic's `output_config.format`, Gemini's `response_json_schema`); they all
start from the same schema, here. Titles are dropped (Pydantic adds one per model and field: tokens that
say nothing the names do not). OpenAI's strict mode needs every object closed (`additionalProperties:
false`) with every property required, so `strict` is True only for a model whose schema is so once closed;
Anthropic wants objects closed whatever is required (`closed`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

_SUBSCHEMA_MAPS = frozenset({"properties", "$defs", "definitions", "patternProperties"})
"""Keys whose values map names to schemas (a property named `title` is not a title)."""


@dataclass(frozen=True, slots=True)
class OutputSchema:
    """The schema of a structured reply: `name` and `description` for the APIs that take them."""

    name: str
    schema: dict[str, Any]
    """The model's JSON schema without titles."""
    closed: dict[str, Any]
    """`schema` with every object closed to other properties (unless it says otherwise itself)."""
    strict: bool
    """Whether OpenAI's strict mode can take `closed` (every property of every object required)."""
    description: str | None = None

    def described(self, schema: dict[str, Any]) -> dict[str, Any]:
        """`schema` (`schema` or `closed`) with the model's docstring back as its `description`, for the APIs
        whose format has no field of its own for it (Gemini, Anthropic): it is the only place that says what the
        whole answer is."""
        return {**schema, "description": self.description} if self.description else schema

    @classmethod
    def of(cls, model: type[BaseModel], name: str | None = None) -> OutputSchema:
        """The output schema of `model` (its class name, or `name`; its docstring as the description)."""
        schema = _untitled(model.model_json_schema())
        description = schema.pop("description", None)
        closed = _closed(schema)
        return cls(
            name=name or model.__name__,
            schema=schema,
            closed=closed,
            strict=_all_required(closed),
            description=description if isinstance(description, str) else None,
        )


def _untitled(schema: Any, in_map: bool = False) -> Any:
    if isinstance(schema, dict):
        if in_map:
            return {name: _untitled(sub) for name, sub in schema.items()}
        return {k: _untitled(v, k in _SUBSCHEMA_MAPS) for k, v in schema.items() if k != "title"}
    if isinstance(schema, list):
        return [_untitled(item) for item in schema]
    return schema


def _closed(schema: Any, in_map: bool = False) -> Any:
    if isinstance(schema, dict):
        if in_map:
            return {name: _closed(sub) for name, sub in schema.items()}
        out = {k: _closed(v, k in _SUBSCHEMA_MAPS) for k, v in schema.items()}
        if out.get("type") == "object" and "additionalProperties" not in out:
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [_closed(item) for item in schema]
    return schema


def _all_required(schema: Any) -> bool:
    """Whether every object of `schema` is closed and requires all its properties (OpenAI's strict mode)."""
    if isinstance(schema, list):
        return all(_all_required(item) for item in schema)
    if not isinstance(schema, dict):
        return True
    if schema.get("type") == "object":
        properties = schema.get("properties") or {}
        if schema.get("additionalProperties") is not False or set(schema.get("required") or ()) != set(properties):
            return False
    for key, value in schema.items():
        subs = value.values() if key in _SUBSCHEMA_MAPS and isinstance(value, dict) else [value]
        if not all(_all_required(sub) for sub in subs):
            return False
    return True
