"""TFSActions as MCP tools: portable names, x-free input schemas, object output schemas, annotations."""

from __future__ import annotations

import re
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tfrobot.brain.chain.llms import SchemaCleaner
from tfrobotserver.actions.alias import ActionAlias
from tfrobotserver.actions.component import TFSComponent
from tfrobotserver.actions.decorator import tfs_action
from tfrobotserver.mcp import action_tools, output_schema, tool_name
from tfrobotserver.mcp.tools import ActionTool
from tfrobotserver.robot.base import Robot
from tfrobotserver.robot.demo import build_demo_robot

PORTABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
"""What the Anthropic, OpenAI and Gemini APIs all accept as a tool name (and the MCP spec allows)."""


def _x_keys(node: Any, path: str = "") -> list[str]:
    """Every `x-*` keyword in a schema (property names that start with x- are names, not keywords)."""
    found: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key.startswith("x-"):
                found.append(f"{path}/{key}")
            if key == "properties" and isinstance(value, dict):
                for name, sub in value.items():
                    found += _x_keys(sub, f"{path}/properties/{name}")
            else:
                found += _x_keys(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, item in enumerate(node):
            found += _x_keys(item, f"{path}/{i}")
    return found


@pytest.fixture(scope="module")
def tools() -> dict[str, ActionTool]:
    return action_tools(build_demo_robot())


def test_every_action_of_the_demo_robot_is_a_tool_with_a_portable_name(tools: dict[str, ActionTool]) -> None:
    robot = build_demo_robot()
    expected = [f"{c}__{a}" for c, comp in robot.components.items() for a in type(comp).tfs_bound_actions()]
    assert list(tools) == expected
    assert all(PORTABLE.match(name) for name in tools)
    assert len(tools) >= 32  # the demo's components have at least the actions they had when this was written
    print(f"{len(tools)} actions of the demo robot as MCP tools")


def test_input_schemas_are_the_params_schemas_without_x_keys(tools: dict[str, ActionTool]) -> None:
    with_x = [name for name, t in tools.items() if _x_keys(t.action.params_schema)]
    assert "memory__acreate_doc" in with_x  # the demo's x-ref/x-default/x-fetch parameters
    for tool in tools.values():
        assert _x_keys(tool.tool.inputSchema) == []
        assert tool.tool.inputSchema == SchemaCleaner().clean(tool.action.params_schema)
        assert tool.tool.inputSchema["type"] == "object"
        Draft202012Validator.check_schema(tool.tool.inputSchema)
    schema = tools["memory__acreate_doc"].tool.inputSchema
    owner = schema["properties"]["owner_id"]
    assert owner["anyOf"] == [{"type": "string"}, {"type": "null"}]  # the x-ref / x-fetch keys are gone
    assert not [key for key in owner if key.startswith("x-")]


def test_output_schemas_are_objects_and_wrap_other_returns(tools: dict[str, ActionTool]) -> None:
    for tool in tools.values():
        schema = tool.tool.outputSchema
        assert schema is not None
        assert schema["type"] == "object"
        assert _x_keys(schema) == []
        Draft202012Validator.check_schema(schema)
    docs = tools["memory__aget_docs"]
    assert not docs.wrapped
    assert docs.tool.outputSchema == SchemaCleaner().clean(docs.action.ret_schema)
    deleted = tools["memory__adelete_doc"]
    assert deleted.wrapped
    assert deleted.tool.outputSchema == {
        "type": "object",
        "properties": {"result": {"type": "null"}},
        "required": ["result"],
    }
    assert tools["memory__adelete_docs"].tool.outputSchema == {
        "type": "object",
        "properties": {"result": {"type": "integer"}},
        "required": ["result"],
    }


def test_a_wrapped_return_keeps_its_definitions_at_the_root() -> None:
    ret = {"anyOf": [{"$ref": "#/$defs/Doc"}, {"type": "null"}], "$defs": {"Doc": {"type": "object", "x-actions": []}}}
    schema, wrapped = output_schema(ret)
    assert wrapped
    assert schema == {
        "type": "object",
        "properties": {"result": {"anyOf": [{"$ref": "#/$defs/Doc"}, {"type": "null"}]}},
        "required": ["result"],
        "$defs": {"Doc": {"type": "object"}},
    }
    validator = Draft202012Validator(schema)
    assert validator.is_valid({"result": None})
    assert validator.is_valid({"result": {"docId": 1}})
    assert not validator.is_valid({"result": 3})
    assert "x-actions" in ret["$defs"]["Doc"]  # the action's own schema is left as it was


def test_annotations_follow_the_alias(tools: dict[str, ActionTool]) -> None:
    def hints(name: str) -> tuple[bool | None, bool | None]:
        annotations = tools[name].tool.annotations
        assert annotations is not None
        return annotations.readOnlyHint, annotations.destructiveHint

    for name, tool in tools.items():
        assert hints(name)[0] is tool.action.is_read
        assert tool.scope == ("read" if tool.action.is_read else "write")
    assert hints("memory__aget_docs") == (True, None)
    assert hints("graph__aget_graph") == (True, None)
    assert hints("memory__adelete_doc") == (False, True)
    assert hints("memory__aupdate_doc") == (False, True)
    assert hints("prompt__aset_template") == (False, True)
    assert hints("memory__acreate_doc") == (False, False)
    assert hints("prompt__arender") == (False, False)
    assert tools["memory__aget_docs"].tool.title == "memory.aget_docs"
    assert tools["memory__aget_docs"].tool.description == "Documents, one page at a time (page numbers)."


def test_names_that_do_not_fit_every_client_are_rewritten_distinctly() -> None:
    assert tool_name("memory", "aget_docs") == "memory__aget_docs"
    odd = tool_name("my memory.v2", "aget_docs")
    assert re.fullmatch(r"my_memory_v2__aget_docs_[0-9a-f]{8}", odd)
    assert odd != tool_name("my_memory.v2", "aget_docs") != tool_name("my memory_v2", "aget_docs")
    assert tool_name("my memory.v2", "aget_docs") == odd  # stable across restarts: clients keep their config
    long = tool_name("c" * 80, "aget_docs")
    assert len(long) == 64
    assert PORTABLE.match(long)
    assert PORTABLE.match(tool_name("2nd", "aget_docs"))
    assert tool_name("2nd", "aget_docs").startswith("_2nd__aget_docs_")


def test_two_actions_that_would_share_a_name_are_refused() -> None:
    clash = tool_name("a.b", "go")  # a_b__go_<hash>: the name a component `a_b` with an action `go_<hash>` has

    def go(self: TFSComponent) -> int:
        """Go."""
        return 1

    decorated = tfs_action(alias=ActionAlias(resource="thing", resource_op_type="get"))
    first = type("First", (TFSComponent,), {"go": decorated(go)})
    method = clash.removeprefix("a_b__")
    second = type("Second", (TFSComponent,), {method: decorated(_renamed(go, method))})
    robot = Robot("clash", {"a.b": first(), "a_b": second()})
    with pytest.raises(ValueError, match=r"a_b\.go_[0-9a-f]{8} and a\.b\.go would both be the MCP tool"):
        action_tools(robot)


def _renamed(func: Any, name: str) -> Any:
    def renamed(self: TFSComponent) -> int:
        return int(func(self))

    renamed.__name__ = renamed.__qualname__ = name
    renamed.__doc__ = func.__doc__
    return renamed
