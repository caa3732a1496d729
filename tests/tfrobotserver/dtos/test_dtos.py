"""Seed section 8.1: the DTOs' protocol metadata, asserted as whole schema fragments."""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

from tfrobotserver.actions.schema_walk import unresolved_refs
from tfrobotserver.dtos.factory.base import Edge, Node
from tfrobotserver.dtos.factory.brain.memory.ai_memory import AIMemoryDoc, AIMemoryDocPage
from tfrobotserver.dtos.factory.brain.memory.doc_types import DocTypeCatalog
from tfrobotserver.dtos.graph import BaseGraph, Graph
from tfrobotserver.dtos.pageable import BasePageableList, CursorPageableList, PageableList


def test_node_json_schema_extra() -> None:
    schema = Node.model_json_schema()
    assert schema["x-namespace"] == {
        "nodeIri": "iri",
        "nodeLabel": "label",
        "nodeCls": "cls",
        "nodeProperties": "properties",
        "nodeVersion": "version",
    }
    assert schema["x-actions"] == ["aupdate_node", "adelete_node"]


def test_edge_json_schema_extra() -> None:
    schema = Edge.model_json_schema()
    assert schema["x-namespace"] == {
        "edgeSource": "source",
        "edgeTarget": "target",
        "edgeLabel": "label",
        "edgeProperty": "property",
        "edgeProperties": "properties",
        "edgeVersion": "version",
    }
    assert schema["x-actions"] == ["aupdate_edge", "adelete_edge"]


def test_ai_memory_doc_json_schema_extra() -> None:
    schema = AIMemoryDoc.model_json_schema()
    assert schema["x-namespace"] == {
        "docId": "docId",
        "fileUri": "fileUri",
        "fileType": "fileType",
        "keywords": "keywords",
        "docMetadata": "docMetadata",
        "docVersion": "version",
    }
    assert schema["x-actions"] == ["aupdate_doc", "adelete_doc"]
    assert list(schema["properties"]) == [
        "docId", "fileUri", "fileType", "keywords", "docMetadata", "excerpt", "version"
    ]  # fmt: skip


def test_namespace_lives_on_elements_not_on_the_plain_containers() -> None:
    for container in (PageableList[AIMemoryDoc], CursorPageableList[AIMemoryDoc], Graph[Node, Edge]):
        schema: dict[str, Any] = TypeAdapter(container).json_schema(mode="serialization")
        assert "x-namespace" not in schema
        assert "x-actions" not in schema
        assert unresolved_refs(schema) == []
    page = TypeAdapter(PageableList[AIMemoryDoc]).json_schema(mode="serialization")
    assert page["properties"]["items"] == {"items": {"$ref": "#/$defs/AIMemoryDoc"}, "title": "Items", "type": "array"}
    assert page["$defs"]["AIMemoryDoc"]["x-actions"] == ["aupdate_doc", "adelete_doc"]


def test_doc_page_adds_a_batch_variable_over_all_rows_and_its_position() -> None:
    schema = AIMemoryDocPage[AIMemoryDoc].model_json_schema(mode="serialization")
    assert schema["x-namespace"] == {"allDocIds": "items[*].docId", "page": "page", "pageSize": "pageSize"}
    assert schema["x-actions"] == ["adelete_docs"]


def test_options_namespace_fragment() -> None:
    assert DocTypeCatalog.model_json_schema()["x-namespace"] == {
        "fileTypeOptions": {"Options": {"labels": "values[*].label", "keys": "values[*].key", "values": "types"}}
    }


def test_pageable_wire_format_is_camel_case_and_accepts_snake_case() -> None:
    doc = AIMemoryDoc(doc_id=1, file_uri="m://a", file_type="md")
    page = PageableList[AIMemoryDoc](items=[doc], page=2, page_size=5, total=6)
    assert page.model_dump(mode="json") == {
        "items": [
            {
                "docId": 1,
                "fileUri": "m://a",
                "fileType": "md",
                "keywords": [],
                "docMetadata": {},
                "excerpt": "",
                "version": 1,
            }
        ],
        "page": 2,
        "pageSize": 5,
        "total": 6,
    }
    assert PageableList[AIMemoryDoc].model_validate({"items": [], "pageSize": 3}).page_size == 3
    cursor = CursorPageableList[AIMemoryDoc](items=[], cursor="a", page_size=2, next_cursor="b")
    assert cursor.model_dump(mode="json") == {"items": [], "cursor": "a", "pageSize": 2, "nextCursor": "b"}


def test_container_bases() -> None:
    assert issubclass(PageableList[AIMemoryDoc], BasePageableList)
    assert issubclass(CursorPageableList[Node], BasePageableList)
    assert issubclass(Graph[Node, Edge], BaseGraph)
    assert Graph[Node, Edge]().model_dump() == {"nodes": [], "edges": []}
