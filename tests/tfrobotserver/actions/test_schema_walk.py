"""Finding protocol keys in JSON Schemas: paths, $ref, anyOf branches."""

from __future__ import annotations

from typing import Any

from tfrobotserver.actions.schema_walk import deref, field_meta, iter_schema_nodes, unresolved_refs

SCHEMA: dict[str, Any] = {
    "$defs": {"Row": {"type": "object", "x-namespace": {"rowId": "id"}, "properties": {"id": {"type": "string"}}}},
    "type": "object",
    "properties": {
        "items": {"type": "array", "items": {"$ref": "#/$defs/Row"}},
        "note": {"anyOf": [{"type": "string", "x-ref": "a", "x-default": "b"}, {"type": "null"}], "x-ref": "top"},
        "lit": {"type": "object", "default": {"x-ref": "not-a-schema"}},
    },
}


def test_nodes_and_paths_skip_values_and_protocol_keys() -> None:
    paths = [path for path, _ in iter_schema_nodes(SCHEMA)]
    assert "$defs.Row" in paths
    assert "properties.items.items" in paths
    assert "properties.note.anyOf[0]" in paths
    assert not any("default" in p or "x-namespace" in p for p in paths)


def test_deref_follows_local_refs_and_keeps_siblings() -> None:
    node = deref(SCHEMA, {"$ref": "#/$defs/Row", "description": "kept"})
    assert node["x-namespace"] == {"rowId": "id"}
    assert node["description"] == "kept"
    assert deref(SCHEMA, {"$ref": "https://elsewhere/x"}) == {"$ref": "https://elsewhere/x"}


def test_field_meta_prefers_the_property_over_its_branches() -> None:
    assert field_meta(SCHEMA, SCHEMA["properties"]["note"]) == {"x-ref": "top", "x-default": "b"}


def test_unresolved_refs_finds_dangling_refs() -> None:
    assert unresolved_refs(SCHEMA) == []
    broken = {**SCHEMA, "properties": {"x": {"$ref": "#/$defs/Missing"}}}
    assert unresolved_refs(broken) == ["#/$defs/Missing"]
