"""The paging declaration: the container says its mode, registration marks the parameters that drive it."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

import pytest
from pydantic import ConfigDict, Field

from tfrobotserver.actions.alias import ActionAlias
from tfrobotserver.actions.component import TFSComponent
from tfrobotserver.actions.decorator import tfs_action
from tfrobotserver.actions.errors import ActionProtocolError
from tfrobotserver.dtos.base import HttpModel
from tfrobotserver.dtos.pageable import BasePageableList, CursorPageableList, PageableList, PageSize

LIST = ActionAlias(category="pageable", resource="item", resource_op_type="get_list")


class Item(HttpModel):
    item_id: int


class ItemPage(PageableList[Item]):
    """A subclass with its own schema extras keeps the mode its base declares."""

    model_config: ClassVar[ConfigDict] = ConfigDict(json_schema_extra={"x-namespace": {"page": "page"}})


def _paging(schema: dict[str, Any]) -> dict[str, Any]:
    return {name: prop.get("x-paging") for name, prop in schema["properties"].items()}


def test_page_and_cursor_lists_declare_their_mode_and_parameters() -> None:
    class Lists(TFSComponent):
        @tfs_action(alias=LIST)
        async def aget_items(self, query: str = "", page: int = 1, page_size: PageSize = 20) -> PageableList[Item]:
            return PageableList[Item]()

        @tfs_action(alias=LIST)
        async def aget_items_by_cursor(self, cursor: str | None = None, page_size: int = 9) -> CursorPageableList[Item]:
            return CursorPageableList[Item]()

        @tfs_action(alias=LIST)
        async def aget_item_page(self, page: int = 1) -> ItemPage:
            return ItemPage()

    bound = Lists.tfs_bound_actions()
    by_page, by_cursor, sub = bound["aget_items"], bound["aget_items_by_cursor"], bound["aget_item_page"]
    assert by_page.ret_schema["x-paging"] == {"mode": "page"}
    assert _paging(by_page.params_schema) == {"query": None, "page": "page", "page_size": "pageSize"}
    assert by_page.params_schema["properties"]["page"] == {
        "default": 1,
        "title": "Page",
        "type": "integer",
        "x-paging": "page",
    }
    assert by_cursor.ret_schema["x-paging"] == {"mode": "cursor"}
    assert _paging(by_cursor.params_schema) == {"cursor": "cursor", "page_size": "pageSize"}
    assert sub.ret_schema["x-paging"] == {"mode": "page"}
    assert sub.ret_schema["x-namespace"] == {"page": "page"}


def test_a_parameter_of_another_name_declares_its_role() -> None:
    class Lists(TFSComponent):
        @tfs_action(alias=LIST)
        async def aget_items(
            self,
            number: Annotated[int, Field(json_schema_extra={"x-paging": "page"})] = 1,
            limit: Annotated[int, Field(json_schema_extra={"x-paging": "pageSize"})] = 20,
        ) -> PageableList[Item]:
            return PageableList[Item]()

    assert _paging(Lists.tfs_bound_actions()["aget_items"].params_schema) == {"number": "page", "limit": "pageSize"}


def test_a_list_without_paging_declares_no_mode() -> None:
    class Lists(TFSComponent):
        @tfs_action(alias=LIST)
        async def aget_items(self, page: int = 1) -> BasePageableList[Item]:
            return BasePageableList[Item]()

    action = Lists.tfs_bound_actions()["aget_items"]
    assert "x-paging" not in action.ret_schema
    assert _paging(action.params_schema) == {"page": None}


def test_a_cursor_parameter_on_a_page_list_is_refused() -> None:
    with pytest.raises(ActionProtocolError, match=r"aget_items.*x-paging: PageableList\[Item\] pages by page") as err:

        class Lists(TFSComponent):
            @tfs_action(alias=LIST)
            async def aget_items(
                self, after: Annotated[str, Field(json_schema_extra={"x-paging": "cursor"})] = ""
            ) -> PageableList[Item]:
                return PageableList[Item]()

    assert err.value.field == "paramsSchema.properties.after.x-paging"
    assert "CursorPageableList" in err.value.fix


def test_two_parameters_for_one_role_and_unknown_roles_are_refused() -> None:
    with pytest.raises(ActionProtocolError, match="parameter 'page' already drives 'page'"):

        class Twice(TFSComponent):
            @tfs_action(alias=LIST)
            async def aget_items(
                self, page: int = 1, number: Annotated[int, Field(json_schema_extra={"x-paging": "page"})] = 1
            ) -> PageableList[Item]:
                return PageableList[Item]()

    with pytest.raises(ActionProtocolError, match=r"is not a paging role.*'offset'"):

        class Unknown(TFSComponent):
            @tfs_action(alias=LIST)
            async def aget_items(
                self, skip: Annotated[int, Field(json_schema_extra={"x-paging": "offset"})] = 0
            ) -> PageableList[Item]:
                return PageableList[Item]()
