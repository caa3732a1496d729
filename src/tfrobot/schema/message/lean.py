"""Messages keep in their `__dict__` only the fields that carry information (issue 18: peak heap).

A message class has 14 to 22 fields and most hold their default in most messages (a tool result has no
`tool_calls`, a reply no `creator`). Pydantic stores every field in the instance's `__dict__`, and a dict's
table doubles past 5, 10 and 21 entries: a 22-field reply cost 832 bytes of dict where its 10 informative
fields fit in 272, plus a new empty list for every empty list field. Those fields are exactly the ones the
`exclude_if` tests leave out of a dump (`omission.py`), and pydantic-core writes a model from its `__dict__`
(the fields it finds there, in that order), so leaving them out of the dict changes no dump.

After validation (`model_post_init`, every way an instance is made: JSON, Python, `__init__`,
`model_construct`), the fields whose value is their omitted default are dropped from `__dict__`; reading one
goes to the class's `_Omitted` descriptor, which answers the default. A mutable default (an empty list or
dict) is created on the first read and put back into `__dict__` in its field's place, so mutating it works as
before. Equality compares fields by value, so an instance with an explicit default equals a lean one.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress
from operator import ne
from typing import Any, Final

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from tfrobot.schema.omission import IS_EMPTY, IS_NONE

_KEPT: Final = object()
"""Compared with the value of a field that is never dropped: equal to nothing, so the field stays."""

_EMPTY_FACTORIES: Final[tuple[Callable[[], Any], ...]] = (list, dict)


class _Omitted:
    """The value of a field left out of an instance's `__dict__`: its default.

    A non-data descriptor, so a value in `__dict__` always wins. Read on the class it raises AttributeError,
    as pydantic's fields do: pydantic's field collection of a subclass that re-declares the field without a
    default must not take the descriptor for one."""

    __slots__ = ("_default", "_factory", "_name")

    def __init__(self, name: str, default: Any, factory: Callable[[], Any] | None) -> None:
        self._name, self._default, self._factory = name, default, factory

    def __get__(self, obj: BaseModel | None, owner: type[Any] | None = None) -> Any:
        if obj is None:
            raise AttributeError(self._name)
        if self._factory is None:
            return self._default
        value = self._factory()
        fields = obj.__dict__
        fields[self._name] = value
        order = type(obj).__pydantic_fields__
        object.__setattr__(obj, "__dict__", {name: fields[name] for name in order if name in fields})
        return value


def _dropped_default(name: str, info: Any) -> tuple[bool, Any, Callable[[], Any] | None]:
    """Whether field `name` is dropped when it holds its default, that default, and its factory if mutable."""
    test = info.exclude_if
    factory = info.default_factory
    if test is IS_NONE and info.default is None:
        return True, None, None
    if test is IS_EMPTY:
        if factory in _EMPTY_FACTORIES:
            return True, factory(), factory
        if info.default is not PydanticUndefined and factory is None and not info.default:
            return True, info.default, None
    return False, _KEPT, None


_PLANS: dict[type[BaseModel], tuple[int, tuple[Any, ...]]] = {}
"""class -> (its field count, the value of each field, in order, that is dropped from `__dict__`)."""


def make_lean(cls: type[BaseModel]) -> None:
    """Give `cls` its plan and an `_Omitted` descriptor for every field it may drop (called once per class)."""
    defaults: list[Any] = []
    for name, info in cls.__pydantic_fields__.items():
        dropped, default, factory = _dropped_default(name, info)
        defaults.append(default)
        if dropped:
            type.__setattr__(cls, name, _Omitted(name, default, factory))
    _PLANS[cls] = (len(defaults), tuple(defaults))


def drop_defaults(model: BaseModel) -> None:
    """Rebuild `model.__dict__` without the fields that hold their dropped default (C loops only: this runs
    for every message made), and drop an empty extra-fields dict (pydantic reads None as none). A `__dict__`
    not holding exactly the class's fields is left as it is."""
    if not model.__pydantic_extra__:
        _set(model, "__pydantic_extra__", None)  # (pydantic keeps a new empty dict: 64 bytes)
    plan = _PLANS.get(type(model))
    fields = model.__dict__
    if plan is not None and len(fields) == plan[0]:
        _set(model, "__dict__", dict(compress(fields.items(), map(ne, fields.values(), plan[1]))))


_set: Final = object.__setattr__


def extra_for(model: BaseModel, name: str) -> None:
    """Give `model` back an extra-fields dict before pydantic stores the unknown attribute `name` in it."""
    if model.__pydantic_extra__ is None and name not in type(model).__pydantic_fields__:
        object.__setattr__(model, "__pydantic_extra__", {})


def same_fields(left: BaseModel, right: BaseModel) -> bool:
    """Whether two instances of one class hold equal fields and extra fields, read as attributes (a field
    missing from one `__dict__` reads as its default)."""
    if (left.__pydantic_extra__ or {}) != (right.__pydantic_extra__ or {}):
        return False
    if getattr(left, "__pydantic_private__", None) != getattr(right, "__pydantic_private__", None):
        return False
    return all(getattr(left, name) == getattr(right, name) for name in type(left).__pydantic_fields__)
