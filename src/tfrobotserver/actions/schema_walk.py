"""Walking JSON Schemas for the protocol's `x-*` keys.

Both the static checks (Python, at registration) and the resolver need to find x-namespace,
x-actions, x-ref, x-default and x-fetch wherever pydantic put them: at a model's root, in `$defs`,
or inside an `anyOf` branch (an `Optional[Annotated[..., Field(json_schema_extra=...)]]`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

PROTOCOL_KEYS = ("x-namespace", "x-actions", "x-ref", "x-default", "x-fetch")
_VALUE_KEYS = frozenset({"default", "examples", "const", "enum", "example"})
_BRANCH_KEYS = ("anyOf", "oneOf", "allOf")


def iter_schema_nodes(schema: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every sub-schema with its dotted path; x-* values and literal values are not descended."""
    if isinstance(schema, dict):
        yield path, schema
        for key, value in schema.items():
            if key.startswith("x-") or key in _VALUE_KEYS:
                continue
            yield from iter_schema_nodes(value, f"{path}.{key}" if path else key)
    elif isinstance(schema, list):
        for i, item in enumerate(schema):
            yield from iter_schema_nodes(item, f"{path}[{i}]")


def deref(schema: Mapping[str, Any], node: Mapping[str, Any]) -> Mapping[str, Any]:
    """Follow a local `$ref` (`#/$defs/Name`) from `node`, keeping sibling keys of the ref."""
    seen = 0
    while "$ref" in node and seen < 32:
        ref = node["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#/"):
            return node
        target: Any = schema
        for part in ref[2:].split("/"):
            target = target.get(part, {}) if isinstance(target, dict) else {}
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        seen += 1
    return node


def unresolved_refs(schema: Mapping[str, Any]) -> list[str]:
    """Local `$ref`s that point nowhere: a schema sent to the console must have none."""
    missing: list[str] = []
    for _, node in iter_schema_nodes(schema):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            target: Any = schema
            for part in ref[2:].split("/"):
                target = target.get(part) if isinstance(target, dict) else None
            if target is None:
                missing.append(ref)
    return missing


def field_meta(schema: Mapping[str, Any], prop: Mapping[str, Any]) -> dict[str, Any]:
    """The x-ref / x-default / x-fetch of one params property, looking into anyOf branches too.

    Keys on the property itself win over keys found on a branch.
    """
    meta: dict[str, Any] = {}
    node = deref(schema, prop)
    for branch_key in _BRANCH_KEYS:
        for branch in node.get(branch_key, ()) or ():
            if isinstance(branch, dict):
                branch_node = deref(schema, branch)
                for key in ("x-ref", "x-default", "x-fetch"):
                    if key in branch_node:
                        meta.setdefault(key, branch_node[key])
    for key in ("x-ref", "x-default", "x-fetch"):
        if key in node:
            meta[key] = node[key]
    return meta
