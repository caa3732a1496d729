"""Registering actions: decorator, inheritance through mixins, overrides, removal, return contracts."""

from __future__ import annotations

import re
from typing import Annotated, Any, Generic, TypeVar

import pytest
from pydantic import Field
from sqlalchemy.ext.asyncio import AsyncSession

from tfrobotserver.actions.alias import ActionAlias
from tfrobotserver.actions.component import TFSComponent
from tfrobotserver.actions.decorator import _validate_get_list_return_type, action_title, tfs_action
from tfrobotserver.actions.errors import ActionProtocolError
from tfrobotserver.actions.injected import Injected, Principal
from tfrobotserver.dtos.base import HttpModel
from tfrobotserver.dtos.factory.base import Edge, Node
from tfrobotserver.dtos.graph import Graph
from tfrobotserver.dtos.pageable import CursorPageableList, PageableList
from tfrobotserver.robot.base import Robot

T = TypeVar("T")
LIST = ActionAlias(category="pageable", resource="item", resource_op_type="get_list")
GRAPH = ActionAlias(category="graphical", resource="graph", resource_op_type="get_graph")
UPDATE = ActionAlias(category="pageable", resource="item", resource_op_type="update")


class Item(HttpModel):
    item_id: int


class ListMixin(Generic[T]):
    @tfs_action(alias=LIST, description="rows")
    async def aget_items(self, page: int = 1) -> PageableList[T]:
        return PageableList[T](items=[], page=page)

    @tfs_action(alias=ActionAlias(category="pageable", resource="item", resource_op_type="get_one"))
    async def aget_item(self, item_id: int) -> T:
        raise LookupError(item_id)


class Base(TFSComponent, ListMixin[Item]):
    @tfs_action(alias=UPDATE)
    async def aupdate_item(self, item_id: int) -> None:
        """Docstring becomes the description."""


def test_alias_model() -> None:
    alias = ActionAlias(category="pageable", resource="doc", resource_op_type="get_list")
    assert alias.is_read
    assert not UPDATE.is_read
    assert ActionAlias(resource="prompt", resource_op_type="render").category is None
    with pytest.raises(ValueError, match="category"):
        ActionAlias.model_validate({"category": "tabular", "resource": "x", "resource_op_type": "get"})
    with pytest.raises(ValueError, match="resource_op_type"):
        ActionAlias.model_validate({"resource": "x", "resource_op_type": "upsert"})


@pytest.mark.parametrize(
    ("category", "op", "message"),
    [
        ("graphical", "get_list", "resource_op_type='get_list' needs category='pageable', got category='graphical'"),
        (None, "get_list", "needs category='pageable', got category=None"),
        ("pageable", "get_graph", "resource_op_type='get_graph' needs category='graphical'"),
        ("pageable", "render", "resource_op_type='render' needs no category (None), got category='pageable'"),
        ("graphical", "config", "needs no category (None)"),
    ],
)
def test_category_must_fit_the_operation(category: str | None, op: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        ActionAlias.model_validate({"category": category, "resource": "x", "resource_op_type": op})


def test_every_action_has_a_title_in_words() -> None:
    """The console shows titles, not method names: given, or the name without the async `a`."""

    class Titled(TFSComponent):
        @tfs_action(alias=UPDATE, title="Rename the item")
        async def arename(self, item_id: int) -> None:
            """Rename."""

        @tfs_action(alias=UPDATE)
        def add_tag(self, item_id: int) -> None:
            """A plain method keeps its leading a."""

    actions = Titled.tfs_bound_actions()
    assert actions["arename"].title == "Rename the item"
    assert actions["add_tag"].title == "Add tag"
    assert Base.tfs_bound_actions()["aupdate_item"].title == "Update item"
    assert (action_title("aget_docs", is_async=True), action_title("a", is_async=True)) == ("Get docs", "A")


def test_mixin_actions_are_inherited_with_typevars_substituted() -> None:
    assert list(Base.__tfs_actions__) == ["aget_items", "aget_item", "aupdate_item"]
    bound = Base.tfs_bound_actions()
    assert bound["aget_items"].return_type is PageableList[Item]
    assert bound["aget_item"].return_type is Item
    assert bound["aget_items"].description == "rows"
    assert bound["aupdate_item"].description == "Docstring becomes the description."


def test_subclass_overrides_removes_and_reimplements() -> None:
    class Child(Base):
        __tfs_removed_actions__ = ("aget_item",)

        @tfs_action(alias=ActionAlias(category="pageable", resource="item", resource_op_type="delete"))
        async def aupdate_item(self, item_id: int, hard: bool = False) -> None:
            """Now a delete."""

        async def aget_items(self, page: int = 1, page_size: int = 5) -> PageableList[Item]:
            return PageableList[Item](items=[Item(item_id=1)], page=page, page_size=page_size)

    assert list(Child.__tfs_actions__) == ["aget_items", "aupdate_item"]
    bound = Child.tfs_bound_actions()
    assert bound["aupdate_item"].alias.resource_op_type == "delete"
    assert list(bound["aupdate_item"].params_schema["properties"]) == ["item_id", "hard"]
    assert bound["aget_items"].alias == LIST  # declaration inherited, new signature used
    assert list(bound["aget_items"].params_schema["properties"]) == ["page", "page_size"]
    assert "aget_item" in Base.__tfs_actions__  # the base keeps it

    class GrandChild(Child):
        @tfs_action(alias=ActionAlias(category="pageable", resource="item", resource_op_type="get_one"))
        async def aget_item(self, item_id: int) -> Item:
            return Item(item_id=item_id)

    assert set(GrandChild.__tfs_actions__) == {"aget_items", "aupdate_item", "aget_item"}


def test_removing_an_unknown_action_names_it() -> None:
    with pytest.raises(ActionProtocolError, match=r"aget_itemz.*removes an action that no base class registers"):

        class Typo(Base):
            __tfs_removed_actions__ = ("aget_itemz",)


def test_generic_component_is_not_servable_until_parametrized() -> None:
    class Generic1(TFSComponent, ListMixin[T], Generic[T]):
        pass

    assert Generic1.__tfs_bound_actions__ is None
    assert "aget_items" in Generic1.__tfs_actions__
    with pytest.raises(ActionProtocolError, match="still use TypeVars"):
        Robot("r", {"c": Generic1()})

    class Concrete(Generic1[Item]):
        pass

    assert Concrete.tfs_bound_actions()["aget_items"].return_type is PageableList[Item]


def test_injected_parameters_are_excluded() -> None:
    class Injecting(TFSComponent):
        @tfs_action(alias=ActionAlias(resource="x", resource_op_type="get"))
        async def aget_x(
            self,
            session: AsyncSession,
            who: Principal,
            clock: Annotated[float, Injected("clock")],
            limit: Annotated[int, Field(ge=1, json_schema_extra={"x-default": "limit"})] = 3,
        ) -> int:
            return limit

    bound = Injecting.tfs_bound_actions()["aget_x"]
    assert bound.injected == {"session": "async_session", "who": "principal", "clock": "clock"}
    assert bound.params_schema == {
        "additionalProperties": False,
        "properties": {
            "limit": {"default": 3, "minimum": 1, "title": "Limit", "type": "integer", "x-default": "limit"}
        },
        "title": "aget_x params",
        "type": "object",
    }
    assert bound.ret_schema == {"type": "integer"}


@pytest.mark.parametrize(
    ("alias", "ret", "ok"),
    [
        (LIST, PageableList[Item], True),
        (LIST, CursorPageableList[Item], True),
        (LIST, Annotated[PageableList[Item], "meta"], True),
        (LIST, list[Item], False),
        (LIST, PageableList[Item] | None, False),
        (LIST, Graph[Node, Edge], False),
        (GRAPH, Graph[Node, Edge], True),
        (GRAPH, PageableList[Node], False),
        (GRAPH, dict[str, Any], False),
        (UPDATE, list[Item], True),
    ],
)
def test_validate_get_list_return_type(alias: ActionAlias, ret: Any, ok: bool) -> None:
    if ok:
        _validate_get_list_return_type("act", alias, ret)
    else:
        with pytest.raises(ActionProtocolError, match=r"'act', return type: a get_(list|graph) action must return"):
            _validate_get_list_return_type("act", alias, ret)


def test_get_list_with_wrong_return_type_fails_at_the_decorator() -> None:
    with pytest.raises(ActionProtocolError, match=r"aget_rows.*BasePageableList subclass.*Fix: annotate"):

        class Bad(TFSComponent):
            @tfs_action(alias=LIST)
            async def aget_rows(self) -> list[Item]:
                return []


def test_get_list_typevar_resolved_to_a_non_list_fails_at_the_component() -> None:
    class Rows(Generic[T]):
        @tfs_action(alias=LIST)
        async def aget_rows(self) -> T:
            raise NotImplementedError

    with pytest.raises(ActionProtocolError, match=r"Bad2.aget_rows.*BasePageableList subclass, got <class"):

        class Bad2(TFSComponent, Rows[Item]):
            pass


def test_missing_annotations_are_refused() -> None:
    with pytest.raises(ActionProtocolError, match="return annotation is missing"):

        @tfs_action(alias=UPDATE)
        async def aupdate(self: Any):  # type: ignore[no-untyped-def]
            return None

    with pytest.raises(ActionProtocolError, match=r"parameter 'x'.*has no annotation"):

        class NoAnn(TFSComponent):
            @tfs_action(alias=UPDATE)
            async def aupdate(self, x) -> None:  # type: ignore[no-untyped-def]
                return None

    with pytest.raises(ActionProtocolError, match=r"\*args"):

        class Star(TFSComponent):
            @tfs_action(alias=UPDATE)
            async def aupdate(self, *xs: int) -> None:
                return None


def test_an_action_aliased_under_a_second_name_is_refused() -> None:
    with pytest.raises(ActionProtocolError, match=r"Twice.aget_again', name: the action 'aget_items' is assigned"):

        class Twice(Base):
            aget_again = ListMixin.aget_items


class DeleteMixin:
    @tfs_action(alias=ActionAlias(category="pageable", resource="item", resource_op_type="delete"))
    async def aget_items(self, item_id: int) -> None:
        """A delete that happens to reuse the list's name."""


def test_two_mixins_registering_one_name_are_refused_naming_both() -> None:
    with pytest.raises(ActionProtocolError) as info:

        class Both(TFSComponent, DeleteMixin, ListMixin[Item]):
            pass

    assert info.value.action == "test_two_mixins_registering_one_name_are_refused_naming_both.<locals>.Both.aget_items"
    assert "DeleteMixin (delete) and ListMixin (get_list) both register 'aget_items'" in info.value.problem
    assert "re-decorate 'aget_items' with @tfs_action in" in info.value.fix


def test_the_combining_class_may_choose_by_re_decorating() -> None:
    class Chosen(TFSComponent, DeleteMixin, ListMixin[Item]):
        @tfs_action(alias=LIST)
        async def aget_items(self, page: int = 1) -> PageableList[Item]:
            return PageableList[Item](items=[], page=page)

    assert Chosen.tfs_bound_actions()["aget_items"].alias == LIST


def test_an_override_without_the_decorator_does_not_settle_a_clash() -> None:
    with pytest.raises(ActionProtocolError, match="both register 'aget_items'"):

        class Plain(TFSComponent, DeleteMixin, ListMixin[Item]):
            async def aget_items(self, page: int = 1) -> PageableList[Item]:
                return PageableList[Item](items=[], page=page)
