"""Seed section 8.2: the demo components register their actions with the right aliases."""

from __future__ import annotations

from tfrobotserver.actions.alias import ActionAlias
from tfrobotserver.actions.schema_walk import unresolved_refs
from tfrobotserver.dtos.factory.brain.memory.ai_memory import AIMemoryDoc, AIMemoryDocPage
from tfrobotserver.dtos.graph import Graph
from tfrobotserver.robot.demo import build_demo_robot
from tfrobotserver.robot.factory.brain.memory.graph_component import GraphComponent
from tfrobotserver.robot.factory.brain.memory.memory_component import MemoryComponent
from tfrobotserver.robot.factory.prompt import PromptComponent


def test_action_registration() -> None:
    assert "aget_nodes" in GraphComponent.__tfs_actions__
    assert set(GraphComponent.__tfs_actions__) == {
        "aget_graph",
        "aget_nodes",
        "acreate_node",
        "acreate_edge",
        "aupdate_node",
        "adelete_node",
        "aupdate_edge",
        "adelete_edge",
    }
    assert GraphComponent.__tfs_actions__["aget_graph"].alias == ActionAlias(
        category="graphical", resource="graph", resource_op_type="get_graph"
    )
    assert GraphComponent.__tfs_actions__["aget_nodes"].alias == ActionAlias(
        category="pageable", resource="node", resource_op_type="get_list"
    )


def test_memory_actions_and_aliases() -> None:
    aliases = {
        n: (d.alias.category, d.alias.resource, d.alias.resource_op_type)
        for n, d in MemoryComponent.__tfs_actions__.items()
    }
    assert aliases == {
        "aget_docs": ("pageable", "doc", "get_list"),
        "aget_docs_by_cursor": ("pageable", "doc", "get_list"),
        "aget_doc": ("pageable", "doc", "get_one"),
        "aupdate_doc": ("pageable", "doc", "update"),
        "adelete_doc": ("pageable", "doc", "delete"),
        "adelete_docs": ("pageable", "doc", "delete"),
        "aget_current_user": (None, "user", "get"),
        "aget_doc_types": (None, "doc_type", "get"),
        "acreate_doc": ("pageable", "doc", "create"),
        "aingest_file": ("pageable", "doc", "create"),
        "aset_file_types": (None, "doc_type", "config"),
        "aget_config_changes": ("pageable", "config_change", "get_list"),
        "aget_config_provenance": (None, "config_provenance", "get"),
        "arevert_config": (None, "config_provenance", "config"),
        "asearch_docs": ("pageable", "doc", "get_list"),
    }
    assert {n: d.alias.resource_op_type for n, d in PromptComponent.__tfs_actions__.items()} == {
        "arender": "render",
        "arender_draft": "render",
        "aget_variables": "get",
        "aset_template": "config",
        "aget_config_changes": "get_list",
        "aget_config_provenance": "get",
        "arevert_config": "config",
    }


def test_mixin_typevars_are_substituted() -> None:
    bound = MemoryComponent.tfs_bound_actions()
    assert bound["aget_docs"].return_type is AIMemoryDocPage[AIMemoryDoc]
    assert bound["aupdate_doc"].return_type is AIMemoryDoc
    assert bound["aget_docs"].ret_schema["$defs"]["AIMemoryDoc"]["x-actions"] == ["aupdate_doc", "adelete_doc"]
    assert GraphComponent.tfs_bound_actions()["aget_graph"].return_type.__pydantic_generic_metadata__["origin"] is Graph


def test_seed_params_schemas_keep_protocol_keys() -> None:
    memory = MemoryComponent.tfs_bound_actions()
    assert memory["aupdate_doc"].params_schema["properties"] == {
        "doc_id": {"maximum": 2**31 - 1, "minimum": 1, "title": "Doc Id", "type": "integer", "x-ref": "docId"},
        "doc_version": {
            "description": "The document's version as you read it (docVersion); if it changed since, the update is "
            "refused with 409 and nothing is written.",
            "maximum": 2**31 - 1,
            "minimum": 1,
            "title": "Doc Version",
            "type": "integer",
            "x-default": "docVersion",
        },
        "keywords": {"items": {"type": "string"}, "title": "Keywords", "type": "array", "x-default": "keywords"},
        "metadata": {"additionalProperties": True, "title": "Metadata", "type": "object", "x-default": "docMetadata"},
    }
    assert memory["acreate_doc"].params_schema["properties"]["owner_id"] == {
        "anyOf": [{"type": "string"}, {"type": "null"}],
        "default": None,
        "description": "Who will own the document: always the caller (shown for confirmation; another user is "
        "refused).",
        "title": "Owner Id",
        "x-default": "userId",
        "x-fetch": "aget_current_user",
        "x-ref": "userId",
    }
    graph = GraphComponent.tfs_bound_actions()
    assert graph["aupdate_node"].params_schema["properties"]["label"] == {
        "anyOf": [
            {"maxLength": 512, "type": "string", "x-default": "nodeLabel", "x-ref": "nodeLabel"},
            {"type": "null"},
        ],
        "default": None,
        "title": "Label",
    }
    assert graph["adelete_edge"].params_schema["required"] == ["source", "target", "property"]


def test_injected_params_are_not_in_the_schema() -> None:
    memory = MemoryComponent.tfs_bound_actions()
    assert memory["aget_docs"].injected == {"async_session": "async_session"}
    assert "async_session" not in memory["aget_docs"].params_schema["properties"]
    assert memory["aget_current_user"].injected == {"principal": "principal"}
    assert memory["aget_current_user"].params_schema["properties"] == {}


def test_every_demo_schema_resolves_its_refs() -> None:
    for component in build_demo_robot().components.values():
        for action in type(component).tfs_bound_actions().values():
            assert unresolved_refs(action.params_schema) == [], action.name
            assert unresolved_refs(action.ret_schema) == [], action.name
