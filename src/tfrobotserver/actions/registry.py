"""Collecting a class's TFSActions over its MRO and binding them to concrete types.

`collect_actions` implements inheritance: a subclass inherits every action of its bases and
mixins, re-decorating a method overrides its declaration, overriding it without the decorator
keeps the declaration but uses the new implementation, and listing a name in
`__tfs_removed_actions__` removes it from that class down. Two unrelated bases (say two
mixins) that both declare one name are an error: the MRO would pick one silently (a delete
could shadow a get_list); the class that combines them re-decorates the name to choose.

`bind_actions` turns each declaration into a `BoundAction` for one concrete class: the params
model (signature minus server-injected parameters), the return adapter with mixin TypeVars
substituted, and both JSON Schemas (a list's paging parameters marked, see `paging`). It returns
None for a class whose actions still have free TypeVars (a generic base component): such a class
cannot be served until it is parametrized.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, TypeAdapter, create_model

from tfrobotserver.actions.alias import ActionAlias
from tfrobotserver.actions.decorator import DECL_ATTR, ActionDecl, _validate_get_list_return_type
from tfrobotserver.actions.errors import ActionProtocolError
from tfrobotserver.actions.injected import injection_key
from tfrobotserver.actions.paging import declare_paging
from tfrobotserver.actions.typing_tools import class_bindings, free_typevars, substitute

REMOVED_ATTR = "__tfs_removed_actions__"


@dataclass(frozen=True)
class BoundAction:
    """One action of one concrete component class, ready to validate, call and serialize."""

    name: str
    alias: ActionAlias
    description: str
    title: str
    params_model: type[BaseModel]
    injected: Mapping[str, str]
    """parameter name → context key (see `injected`)."""
    return_type: Any
    return_adapter: TypeAdapter[Any]
    params_schema: dict[str, Any]
    ret_schema: dict[str, Any]

    @property
    def is_read(self) -> bool:
        """A read action: no side effects, callable with a read token, a legal x-fetch target."""
        return self.alias.is_read


def collect_actions(cls: type) -> dict[str, ActionDecl]:
    """name → declaration for `cls`, walking its MRO from the most basic class down."""
    registry: dict[str, ActionDecl] = {}
    for klass in reversed(cls.__mro__):
        for attr, value in vars(klass).items():
            decl = getattr(value, DECL_ATTR, None)
            if isinstance(decl, ActionDecl):
                if decl.name != attr:
                    raise ActionProtocolError(
                        action=f"{klass.__qualname__}.{attr}",
                        field="name",
                        problem=f"the action {decl.name!r} is assigned to a second attribute",
                        fix=f"decorate a method named {attr!r} instead of aliasing {decl.name!r}",
                        value=attr,
                    )
                registry[attr] = decl
        for removed in vars(klass).get(REMOVED_ATTR, ()):
            if removed not in registry:
                raise ActionProtocolError(
                    action=f"{klass.__qualname__}.{removed}",
                    field=REMOVED_ATTR,
                    problem="removes an action that no base class registers",
                    fix=f"remove the name or use one of {sorted(registry)}",
                    value=removed,
                )
            del registry[removed]
    for attr in registry:
        _refuse_ambiguous(cls, attr)
    return registry


def _refuse_ambiguous(cls: type, attr: str) -> None:
    """The declaring class that wins must derive from every other class that declares `attr`."""
    declaring = [k for k in cls.__mro__ if isinstance(getattr(vars(k).get(attr), DECL_ATTR, None), ActionDecl)]
    winner = declaring[0]
    rival = next((k for k in declaring[1:] if not issubclass(winner, k)), None)
    if rival is None:
        return
    ops = {k: getattr(vars(k)[attr], DECL_ATTR).alias.resource_op_type for k in (winner, rival)}
    raise ActionProtocolError(
        action=f"{cls.__qualname__}.{attr}",
        field="bases",
        problem=f"{winner.__qualname__} ({ops[winner]}) and {rival.__qualname__} ({ops[rival]}) both register "
        f"{attr!r}; the MRO would silently expose {winner.__qualname__}'s",
        fix=f"rename one of them, or re-decorate {attr!r} with @tfs_action in {cls.__qualname__} to choose",
        value=attr,
    )


def _owner(cls: type, attr: str) -> type:
    return next(k for k in cls.__mro__ if attr in vars(k))


def _bind_one(cls: type, attr: str, decl: ActionDecl, bindings: Mapping[type, Mapping[Any, Any]]) -> BoundAction | None:
    qualname = f"{cls.__qualname__}.{attr}"
    func: Callable[..., Any] = getattr(cls, attr)
    try:
        hints = typing.get_type_hints(func, include_extras=True)
    except NameError as exc:
        raise ActionProtocolError(
            action=qualname,
            field="annotations",
            problem=f"an annotation cannot be resolved ({exc})",
            fix="import the annotated names at module level (not under TYPE_CHECKING)",
        ) from exc
    local = bindings.get(_owner(cls, attr), {})
    hints = {k: substitute(v, local) for k, v in hints.items()}
    if any(free_typevars(tp) for tp in hints.values()):
        return None
    fields: dict[str, Any] = {}
    injected: dict[str, str] = {}
    for i, param in enumerate(inspect.signature(func).parameters.values()):
        if i == 0:
            continue  # self
        if param.kind not in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
            raise ActionProtocolError(
                action=qualname,
                field=f"parameter {param.name!r}",
                problem="*args, **kwargs and positional-only parameters cannot be described by a params schema",
                fix="declare each parameter by name",
            )
        if param.name not in hints:
            raise ActionProtocolError(
                action=qualname, field=f"parameter {param.name!r}", problem="has no annotation", fix="annotate it"
            )
        key = injection_key(hints[param.name])
        if key is not None:
            injected[param.name] = key
            continue
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[param.name] = (hints[param.name], default)
    ret = hints["return"]
    _validate_get_list_return_type(qualname, decl.alias, ret)
    params_model: type[BaseModel] = create_model(
        f"{cls.__name__}_{attr}_params", __config__=ConfigDict(extra="forbid", title=f"{attr} params"), **fields
    )
    adapter: TypeAdapter[Any] = TypeAdapter(ret)
    params_schema = params_model.model_json_schema(mode="validation")
    declare_paging(qualname, ret, params_schema)
    return BoundAction(
        name=attr,
        alias=decl.alias,
        description=decl.description,
        title=decl.title,
        params_model=params_model,
        injected=injected,
        return_type=ret,
        return_adapter=adapter,
        params_schema=params_schema,
        ret_schema=adapter.json_schema(mode="serialization"),
    )


def bind_actions(cls: type, registry: Mapping[str, ActionDecl]) -> dict[str, BoundAction] | None:
    """Bound actions of a concrete class, or None while any action still has free TypeVars."""
    bindings = class_bindings(cls)
    bound: dict[str, BoundAction] = {}
    for attr, decl in registry.items():
        one = _bind_one(cls, attr, decl, bindings)
        if one is None:
            return None
        bound[attr] = one
    return bound
