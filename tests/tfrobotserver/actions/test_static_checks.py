"""Each static protocol check refuses a broken component at class creation, naming the fix."""

from __future__ import annotations

from typing import Annotated, ClassVar

import pytest
from pydantic import ConfigDict, Field

from tfrobotserver.actions.alias import ActionAlias
from tfrobotserver.actions.component import TFSComponent
from tfrobotserver.actions.decorator import tfs_action
from tfrobotserver.actions.errors import ActionProtocolError
from tfrobotserver.dtos.base import HttpModel
from tfrobotserver.dtos.factory.base import Edge, Node
from tfrobotserver.dtos.factory.user import CurrentUser
from tfrobotserver.dtos.graph import Graph
from tfrobotserver.dtos.pageable import PageableList

LIST = ActionAlias(category="pageable", resource="row", resource_op_type="get_list")
UPDATE = ActionAlias(category="pageable", resource="row", resource_op_type="update")
DELETE = ActionAlias(category="pageable", resource="row", resource_op_type="delete")


class Row(HttpModel):
    row_id: str

    model_config: ClassVar[ConfigDict] = ConfigDict(
        json_schema_extra={"x-namespace": {"rowId": "rowId"}, "x-actions": ["aupdate_row"]}
    )


class RowsWithRowVarOnContainer(PageableList[Row]):
    model_config: ClassVar[ConfigDict] = ConfigDict(json_schema_extra={"x-namespace": {"rowId": "rowId"}})


class RowsWithBatchVar(PageableList[Row]):
    model_config: ClassVar[ConfigDict] = ConfigDict(
        json_schema_extra={"x-namespace": {"allRowIds": "items[*].rowId", "rowPage": "page"}}
    )


class GraphWithNodeVar(Graph[Node, Edge]):
    model_config: ClassVar[ConfigDict] = ConfigDict(json_schema_extra={"x-namespace": {"nodeIri": "iri"}})


class Doc(HttpModel):
    doc_id: str

    model_config: ClassVar[ConfigDict] = ConfigDict(json_schema_extra={"x-namespace": {"id": "docId"}})


class Person(HttpModel):
    iri: str

    model_config: ClassVar[ConfigDict] = ConfigDict(json_schema_extra={"x-namespace": {"id": "iri"}})


class BadOptions(HttpModel):
    values: list[str]

    model_config: ClassVar[ConfigDict] = ConfigDict(
        json_schema_extra={"x-namespace": {"pick": {"Options": {"labels": "values[*]", "keys": "values[*]"}}}}
    )


class BadJmes(HttpModel):
    a: int

    model_config: ClassVar[ConfigDict] = ConfigDict(json_schema_extra={"x-namespace": {"a": "a[?"}})


class RowActions:
    """A correct base: a list whose rows offer aupdate_row."""

    @tfs_action(alias=LIST)
    async def aget_rows(self) -> PageableList[Row]:
        return PageableList[Row]()

    @tfs_action(alias=UPDATE)
    async def aupdate_row(self, row_id: Annotated[str, Field(json_schema_extra={"x-ref": "rowId"})]) -> None:
        return None


def test_a_correct_component_passes() -> None:
    class Fine(TFSComponent, RowActions):
        @tfs_action(alias=ActionAlias(resource="user", resource_op_type="get"))
        async def aget_me(self) -> CurrentUser:
            return CurrentUser(user_id="u", display_name="U")

        @tfs_action(alias=DELETE)
        async def adelete_rows(
            self,
            row_ids: Annotated[list[str], Field(json_schema_extra={"x-ref": "allRowIds"})],
            owner: Annotated[str, Field(json_schema_extra={"x-ref": "userId", "x-fetch": "aget_me"})],
        ) -> None:
            return None

        @tfs_action(alias=ActionAlias(category="pageable", resource="row", resource_op_type="get_list"))
        async def aget_rows_batch(self) -> RowsWithBatchVar:
            return RowsWithBatchVar()

    assert set(Fine.tfs_bound_actions()) == {"aget_rows", "aupdate_row", "aget_me", "adelete_rows", "aget_rows_batch"}


def test_x_actions_must_name_registered_actions() -> None:
    with pytest.raises(ActionProtocolError) as info:

        class NoUpdate(TFSComponent):
            @tfs_action(alias=LIST)
            async def aget_rows(self) -> PageableList[Row]:
                return PageableList[Row]()

    err = info.value
    assert err.action == "test_x_actions_must_name_registered_actions.<locals>.NoUpdate.aget_rows"
    assert err.field == "retSchema.$defs.Row.x-actions"
    assert err.value == "aupdate_row"
    assert "register 'aupdate_row' with @tfs_action" in err.fix


def test_x_fetch_target_must_exist() -> None:
    with pytest.raises(
        ActionProtocolError, match=r"x-fetch: 'aget_ghost' is not registered.*Fix: use one of \['aget_rows'\]"
    ):

        class Ghost(TFSComponent, RowActions):
            @tfs_action(alias=DELETE)
            async def adelete(
                self, row_id: Annotated[str, Field(json_schema_extra={"x-ref": "rowId", "x-fetch": "aget_ghost"})]
            ) -> None:
                return None


def test_x_fetch_target_must_be_a_read_operation() -> None:
    with pytest.raises(ActionProtocolError) as info:

        class Writes(TFSComponent, RowActions):
            @tfs_action(alias=DELETE)
            async def adelete(
                self, row_id: Annotated[str, Field(json_schema_extra={"x-ref": "rowId", "x-fetch": "aupdate_row"})]
            ) -> None:
                return None

    assert info.value.field == "paramsSchema.properties.row_id.x-fetch"
    assert info.value.value == "aupdate_row"
    assert "is not a read operation" in info.value.problem


def test_x_fetch_inside_an_anyof_branch_is_checked_too() -> None:
    with pytest.raises(ActionProtocolError, match="x-fetch"):

        class Optional1(TFSComponent, RowActions):
            @tfs_action(alias=DELETE)
            async def adelete(
                self, row_id: Annotated[str, Field(json_schema_extra={"x-fetch": "nope"})] | None = None
            ) -> None:
                return None


def test_x_ref_needs_a_namespace_provider() -> None:
    with pytest.raises(ActionProtocolError) as info:

        class Orphan(TFSComponent, RowActions):
            @tfs_action(alias=DELETE)
            async def adelete(self, doc_id: Annotated[str, Field(json_schema_extra={"x-ref": "docId"})]) -> None:
                return None

    assert info.value.field == "paramsSchema.properties.doc_id.x-ref"
    assert info.value.value == "docId"
    assert "use one of ['rowId']" in info.value.fix


def test_row_namespace_on_a_pageable_container_is_refused() -> None:
    with pytest.raises(ActionProtocolError) as info:

        class OnContainer(TFSComponent, RowActions):
            @tfs_action(alias=LIST)
            async def aget_rows2(self) -> RowsWithRowVarOnContainer:
                return RowsWithRowVarOnContainer()

    assert info.value.field == "retSchema.x-namespace.rowId"
    assert "seed 7.1" in info.value.problem
    assert "move the variable to the element DTO" in info.value.fix


def test_element_namespace_on_a_graph_container_is_refused() -> None:
    with pytest.raises(ActionProtocolError, match=r"x-namespace.nodeIri: sits on the container"):

        class OnGraph(TFSComponent):
            @tfs_action(alias=ActionAlias(category="graphical", resource="graph", resource_op_type="get_graph"))
            async def aget_graph(self) -> GraphWithNodeVar:
                return GraphWithNodeVar()

            @tfs_action(alias=ActionAlias(category="graphical", resource="node", resource_op_type="update"))
            async def aupdate_node(self) -> None:
                return None

            @tfs_action(alias=ActionAlias(category="graphical", resource="node", resource_op_type="delete"))
            async def adelete_node(self) -> None:
                return None

            @tfs_action(alias=ActionAlias(category="graphical", resource="edge", resource_op_type="update"))
            async def aupdate_edge(self) -> None:
                return None

            @tfs_action(alias=ActionAlias(category="graphical", resource="edge", resource_op_type="delete"))
            async def adelete_edge(self) -> None:
                return None


def test_one_variable_bound_by_two_resources_is_refused() -> None:
    with pytest.raises(ActionProtocolError) as info:

        class Collide(TFSComponent):
            @tfs_action(alias=ActionAlias(resource="doc", resource_op_type="get_one"))
            async def aget_doc(self) -> Doc:
                return Doc(doc_id="d")

            @tfs_action(alias=ActionAlias(resource="person", resource_op_type="get_one"))
            async def aget_person(self) -> Person:
                return Person(iri="p")

    assert info.value.field == "x-namespace.id"
    assert "seed 7.3" in info.value.problem
    assert "'doc'" in info.value.problem
    assert "'person'" in info.value.problem
    assert "prefix the variable with its resource" in info.value.fix


def test_same_element_type_under_two_resources_is_not_a_collision() -> None:
    class Shared(TFSComponent):
        @tfs_action(alias=ActionAlias(resource="a", resource_op_type="get_one"))
        async def aget_a(self) -> Doc:
            return Doc(doc_id="d")

        @tfs_action(alias=ActionAlias(resource="b", resource_op_type="get_one"))
        async def aget_b(self) -> Doc:
            return Doc(doc_id="d")

    assert set(Shared.tfs_bound_actions()) == {"aget_a", "aget_b"}


def test_malformed_options_and_jmespath_are_refused() -> None:
    with pytest.raises(ActionProtocolError, match=r"x-namespace.pick: an object value must be exactly"):

        class Opt(TFSComponent):
            @tfs_action(alias=ActionAlias(resource="x", resource_op_type="get"))
            async def aget(self) -> BadOptions:
                return BadOptions(values=[])

    with pytest.raises(ActionProtocolError, match=r"x-namespace.a: is not valid JMESPath"):

        class Jmes(TFSComponent):
            @tfs_action(alias=ActionAlias(resource="x", resource_op_type="get"))
            async def aget(self) -> BadJmes:
                return BadJmes(a=1)

    with pytest.raises(ActionProtocolError, match=r"x-default: is not valid JMESPath"):

        class Default(TFSComponent, RowActions):
            @tfs_action(alias=DELETE)
            async def adelete(self, x: Annotated[str, Field(json_schema_extra={"x-default": "]["})]) -> None:
                return None


class RefOnDto(HttpModel):
    owner: Annotated[str, Field(json_schema_extra={"x-ref": "userId"})]


class Filter(HttpModel):
    text: str

    model_config: ClassVar[ConfigDict] = ConfigDict(json_schema_extra={"x-actions": ["aget_rows"]})


def test_x_ref_on_a_dto_field_is_refused() -> None:
    with pytest.raises(ActionProtocolError) as info:

        class Misplaced(TFSComponent):
            @tfs_action(alias=ActionAlias(resource="x", resource_op_type="get"))
            async def aget(self) -> RefOnDto:
                return RefOnDto(owner="u")

    assert info.value.field == "retSchema.properties.owner.x-ref"
    assert "seed 7.2" in info.value.problem
    assert info.value.fix == "move x-ref to the parameter annotation"


def test_x_actions_in_a_params_schema_is_refused() -> None:
    with pytest.raises(ActionProtocolError) as info:

        class Misplaced2(TFSComponent, RowActions):
            @tfs_action(alias=DELETE)
            async def adelete(self, where: Filter) -> None:
                return None

    assert info.value.field == "paramsSchema.$defs.Filter.x-actions"
    assert info.value.fix == "move x-actions to the element DTO model_config"


class SnakeRow(HttpModel):
    row_id: str

    model_config: ClassVar[ConfigDict] = ConfigDict(json_schema_extra={"x-namespace": {"rowId": "row_id"}})


class RowsWithPage(PageableList[Row]):
    model_config: ClassVar[ConfigDict] = ConfigDict(
        json_schema_extra={"x-namespace": {"rowPage": "@.page", "rowLimit": "`50`", "rowIds": "@.items[*].rowId"}}
    )


class RowsReadingARowField(PageableList[Row]):
    model_config: ClassVar[ConfigDict] = ConfigDict(json_schema_extra={"x-namespace": {"rowPage": "[page, rowId]"}})


def test_element_namespace_must_read_wire_names() -> None:
    with pytest.raises(ActionProtocolError) as info:

        class Snake(TFSComponent):
            @tfs_action(alias=ActionAlias(resource="row", resource_op_type="get_one"))
            async def aget_row(self) -> SnakeRow:
                return SnakeRow(row_id="r")

    assert info.value.field == "retSchema.x-namespace.rowId"
    assert "reads 'row_id', which 'SnakeRow' does not have on the wire (its JSON fields are ['rowId'])" in (
        info.value.problem
    )
    assert info.value.fix == "read 'rowId', its name on the wire"


def test_container_namespace_may_read_its_own_fields_through_at_and_literals() -> None:
    class Paged(TFSComponent, RowActions):
        @tfs_action(alias=LIST)
        async def aget_paged(self) -> RowsWithPage:
            return RowsWithPage()

    assert "aget_paged" in Paged.tfs_bound_actions()


def test_container_namespace_reading_a_row_field_anywhere_is_refused() -> None:
    with pytest.raises(ActionProtocolError, match=r"whose 'rowId' is not one of its fields"):

        class Mixed(TFSComponent, RowActions):
            @tfs_action(alias=LIST)
            async def aget_mixed(self) -> RowsReadingARowField:
                return RowsReadingARowField()
