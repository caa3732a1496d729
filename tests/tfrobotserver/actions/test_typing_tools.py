"""An action declared on a generic mixin is checked and described with the type its component binds."""

from __future__ import annotations

from typing import Annotated, Generic, TypeVar

from pydantic import BaseModel

from tfrobotserver.actions.typing_tools import class_bindings, free_typevars, substitute, unwrap_annotated
from tfrobotserver.dtos.factory.brain.memory.ai_memory import AIMemoryDoc
from tfrobotserver.dtos.pageable import PageableList

T = TypeVar("T")
U = TypeVar("U")


class Mixin(Generic[T]):
    """Like `DpeManageMixin[TDoc]`: its actions return `T`, which only the component knows."""


class Middle(Mixin[U], Generic[U]):
    """A generic class between the mixin and the component."""


class Component(Middle[AIMemoryDoc]):
    """Binds the chain's TypeVar to a concrete row type."""


class Box(BaseModel, Generic[T]):
    """A pydantic generic: pydantic records its parameters in its own metadata, not in `__orig_bases__`."""

    item: T


class IntBox(Box[int]):
    """A pydantic subclass that binds the parameter."""


def test_substitute_replaces_typevars_inside_every_form_of_annotation() -> None:
    binds = {T: AIMemoryDoc}
    assert substitute(T, binds) is AIMemoryDoc
    assert substitute(list[T], binds) == list[AIMemoryDoc]
    assert substitute(dict[str, T | None], binds) == dict[str, AIMemoryDoc | None]
    assert substitute(PageableList[T], binds) is PageableList[AIMemoryDoc]
    annotated = substitute(Annotated[T, "meta"], binds)
    assert unwrap_annotated(annotated) is AIMemoryDoc
    assert annotated.__metadata__ == ("meta",)


def test_substitute_leaves_unknown_typevars_and_plain_types_alone() -> None:
    assert substitute(U, {T: int}) is U
    assert substitute(list[int], {T: str}) == list[int]
    assert substitute(int, {T: str}) is int


def test_free_typevars_lists_what_is_still_open_once_each() -> None:
    assert free_typevars(dict[T, list[T | U]]) == [T, U]
    assert free_typevars(PageableList[T]) == [T]
    assert free_typevars(Annotated[list[U], T]) == [U]  # metadata is not a type
    assert free_typevars(PageableList[AIMemoryDoc]) == []


def test_class_bindings_follow_the_bases_down_to_the_mixin() -> None:
    binds = class_bindings(Component)
    assert binds[Middle] == {U: AIMemoryDoc}
    assert binds[Mixin] == {T: AIMemoryDoc}
    assert substitute(list[T], binds[Mixin]) == list[AIMemoryDoc]


def test_class_bindings_read_pydantic_generic_bases() -> None:
    assert class_bindings(IntBox)[Box] == {T: int}


def test_an_unparametrized_mixin_leaves_its_typevar_free() -> None:
    class Open(Mixin[U], Generic[U]):
        pass

    assert class_bindings(Open)[Mixin] == {T: U}
    assert free_typevars(substitute(T, class_bindings(Open)[Mixin])) == [U]


def test_unwrap_annotated_strips_nested_metadata() -> None:
    assert unwrap_annotated(Annotated[Annotated[int, "a"], "b"]) is int
    assert unwrap_annotated(int) is int
