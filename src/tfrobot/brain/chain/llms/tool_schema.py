"""The one JSON Schema walker that cleans tool definitions (`tfrobot.schema.tool_definition`) per provider.

TFRobot's own schemas carry `x-*` keys (x-namespace, x-actions, x-ref, …) for the web console; no provider
may see them, and some providers reject further keys. One walker visits every subschema (properties,
items, `$defs`, combinators) and each provider subclass only says which keys to drop or rewrite, the way
pydantic-ai's `_json_schema.py` does it.
"""

from __future__ import annotations

from typing import Any, ClassVar

_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems", "items")  # `items` as a list: draft 4 tuples
_SCHEMA_ONES = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames")


class SchemaCleaner:
    """Walks a JSON Schema and returns a cleaned copy; never mutates its input.

    Subclasses add keys to `drop_keys` or override `clean_node` for per-provider rewrites. Keys inside
    `properties` (and other name maps) are property *names*, not keywords, so they are never dropped:
    a property called `x-id` survives, only schema keywords starting with `x-` go.
    """

    drop_keys: ClassVar[frozenset[str]] = frozenset()

    def clean(self, schema: dict[str, Any]) -> dict[str, Any]:
        """A cleaned deep copy of `schema`."""
        return self._walk(schema)

    def clean_node(self, node: dict[str, Any]) -> dict[str, Any]:
        """Hook for one already-walked node; the default returns it unchanged."""
        return node

    def _walk(self, node: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key.startswith("x-") or key in self.drop_keys:
                continue
            if key in _SCHEMA_MAPS and isinstance(value, dict):
                out[key] = {name: self._walk(sub) if isinstance(sub, dict) else sub for name, sub in value.items()}
            elif key in _SCHEMA_LISTS and isinstance(value, list):
                out[key] = [self._walk(sub) if isinstance(sub, dict) else sub for sub in value]
            elif key in _SCHEMA_ONES and isinstance(value, dict):
                out[key] = self._walk(value)
            else:
                out[key] = _copy(value)
        return self.clean_node(out)


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


class GeminiSchemaCleaner(SchemaCleaner):
    """Gemini takes JSON Schema in `parameters_json_schema` but answers 400 on the `$schema`/`$id` keywords."""

    drop_keys: ClassVar[frozenset[str]] = frozenset({"$schema", "$id"})
