"""Resolving the real return type of an action declared on a generic mixin.

A mixin such as `DpeManageMixin[TDoc]` declares `aupdate_doc(...) -> TDoc`; only the component that
mixes it in (`class DocStore(TFSComponent, DpeManageMixin[AIMemoryDoc])`) knows what `TDoc` is.
Schemas and the get_list/get_graph return checks must see `AIMemoryDoc`, so we follow the
class's generic bases down to the class that defines the method and substitute its TypeVars.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel

TypeVarMap = Mapping[Any, Any]


def _pydantic_generic(tp: Any) -> tuple[Any, tuple[Any, ...]] | None:
    """(origin, args) of a parametrized pydantic model such as `PageableList[T]`, else None."""
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        meta = getattr(tp, "__pydantic_generic_metadata__", None)
        if meta is not None and meta["origin"] is not None:
            return meta["origin"], tuple(meta["args"])
        if meta is not None and meta["parameters"]:
            # pydantic returns the class itself for `Model[T]` with its own T: still generic.
            return tp, tuple(meta["parameters"])
    return None


def substitute(tp: Any, mapping: TypeVarMap) -> Any:
    """`tp` with every TypeVar found in `mapping` replaced; unknown TypeVars are left in place."""
    if isinstance(tp, TypeVar):
        return mapping.get(tp, tp)
    pyd = _pydantic_generic(tp)
    if pyd is not None:
        origin, args = pyd
        new = tuple(substitute(a, mapping) for a in args)
        return tp if new == args else origin[new[0] if len(new) == 1 else new]
    origin = get_origin(tp)
    if origin is None:
        return tp
    args = get_args(tp)
    if origin is Annotated:
        return Annotated[(substitute(args[0], mapping), *tp.__metadata__)]
    new_args = tuple(substitute(a, mapping) for a in args)
    if new_args == args:
        return tp
    if origin is Union or origin is types.UnionType:
        return Union[new_args]  # noqa: UP007 - the runtime form accepts a tuple of members
    if isinstance(tp, types.GenericAlias):
        return types.GenericAlias(origin, new_args)
    copy_with = getattr(tp, "copy_with", None)
    return copy_with(new_args) if copy_with is not None else tp


def free_typevars(tp: Any) -> list[Any]:
    """TypeVars still present in `tp` (an action on an unparametrized generic class has some)."""
    if isinstance(tp, TypeVar):
        return [tp]
    pyd = _pydantic_generic(tp)
    args = pyd[1] if pyd is not None else get_args(tp)
    if get_origin(tp) is Annotated:
        args = args[:1]
    found: list[Any] = []
    for arg in args:
        found.extend(v for v in free_typevars(arg) if v not in found)
    return found


def class_bindings(cls: type) -> dict[type, dict[Any, Any]]:
    """For every class in `cls`'s hierarchy, the values its own TypeVars take as seen from `cls`.

    The closest parametrization wins, exactly like attribute lookup; TypeVars the chain leaves
    open map to themselves and show up later as free TypeVars.
    """
    maps: dict[type, dict[Any, Any]] = {}

    def visit(klass: type, local: dict[Any, Any]) -> None:
        if klass in maps:
            return
        maps[klass] = local
        seen_origins: set[type] = set()
        for base in vars(klass).get("__orig_bases__", ()):
            origin = get_origin(base)
            if isinstance(origin, type) and origin is not typing.Generic:
                params = getattr(origin, "__parameters__", ())
                bound_args = [substitute(a, local) for a in get_args(base)]
                seen_origins.add(origin)
                visit(origin, dict(zip(params, bound_args, strict=False)))
        for base in klass.__bases__:
            pyd = _pydantic_generic(base)
            if pyd is not None and pyd[0] is not base:
                origin, pyd_args = pyd
                params = origin.__pydantic_generic_metadata__["parameters"]
                visit(origin, dict(zip(params, [substitute(a, local) for a in pyd_args], strict=False)))
                visit(base, {})
            elif base not in seen_origins:
                visit(base, {})

    visit(cls, {})
    return maps


def unwrap_annotated(tp: Any) -> Any:
    """The bare type of `Annotated[X, ...]` (metadata does not change what is returned)."""
    while get_origin(tp) is Annotated:
        tp = get_args(tp)[0]
    return tp
