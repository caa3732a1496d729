"""`@tfs_action`: marks a component method as a TFSAction.

The decorator only records the declaration on the function; the component class collects the
declarations of its whole MRO when it is created (see `registry`), because the concrete
return type of a mixin method is known only there. Checks that need nothing but the function
(the get_list / get_graph return contract) still run here, so most mistakes fail at the line
that makes them.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from tfrobotserver.actions.alias import ActionAlias
from tfrobotserver.actions.errors import ActionProtocolError
from tfrobotserver.actions.typing_tools import free_typevars, unwrap_annotated
from tfrobotserver.dtos.graph import BaseGraph
from tfrobotserver.dtos.pageable import BasePageableList

F = TypeVar("F", bound=Callable[..., Any])

DECL_ATTR = "__tfs_action__"


@dataclass(frozen=True)
class ActionDecl:
    """What `@tfs_action` recorded: protocol alias, human title and description."""

    name: str
    alias: ActionAlias
    description: str
    title: str = ""


def _validate_get_list_return_type(action: str, alias: ActionAlias, return_type: Any) -> None:
    """Refuse a get_list that does not return a pageable list, or a get_graph without a graph.

    `return_type` must already have the TypeVars of generic mixins substituted; Annotated
    metadata is ignored. `Optional[...]` is refused: the console always needs the container.
    """
    op = alias.resource_op_type
    if op not in ("get_list", "get_graph"):
        return
    base: type = BasePageableList if op == "get_list" else BaseGraph
    example = (
        "PageableList[AIMemoryDoc] or CursorPageableList[AIMemoryDoc]" if op == "get_list" else "Graph[Node, Edge]"
    )
    bare = unwrap_annotated(return_type)
    if not (isinstance(bare, type) and issubclass(bare, base)):
        raise ActionProtocolError(
            action=action,
            field="return type",
            problem=f"a {op} action must return a {base.__name__} subclass, got {return_type!r}",
            fix=f"annotate the return type as {example} (or a subclass of {base.__name__})",
        )


def action_title(name: str, is_async: bool) -> str:
    """An action's title when none is given: its name in words, without the `a` that marks an async
    method (`aupdate_doc` → "Update doc"), so that the console need not show raw method names."""
    words = name[1:] if is_async and name.startswith("a") and len(name) > 1 else name
    text = words.replace("_", " ").strip()
    return text[:1].upper() + text[1:]


def tfs_action(*, alias: ActionAlias, description: str = "", title: str = "") -> Callable[[F], F]:
    """Declare a component method as a TFSAction with its protocol alias.

    `title` is what the console calls it (default: the name in words, see `action_title`);
    `description` says what it does (default: the method's docstring).

    The method must be `async def` (or plain `def`) with every parameter annotated; server-supplied
    parameters (`AsyncSession`, `Principal`, `Annotated[..., Injected(...)]`) are excluded from
    its params schema.
    """

    def decorate(func: F) -> F:
        name = func.__name__
        if not callable(func) or isinstance(func, staticmethod | classmethod):
            raise ActionProtocolError(
                action=name, field="decorator", problem="only instance methods can be TFSActions", fix="use a method"
            )
        try:
            hints = typing.get_type_hints(func, include_extras=True)
        except NameError:
            hints = {}  # names defined later in the module: the component class checks it instead
        if "return" in hints and not free_typevars(hints["return"]):
            _validate_get_list_return_type(name, alias, hints["return"])
        if inspect.signature(func).return_annotation is inspect.Signature.empty:
            raise ActionProtocolError(
                action=name,
                field="return type",
                problem="the return annotation is missing, so no retSchema can be generated",
                fix="annotate the return type (-> None for actions that return nothing)",
            )
        decl = ActionDecl(
            name=name,
            alias=alias,
            description=description or (inspect.getdoc(func) or ""),
            title=title or action_title(name, inspect.iscoroutinefunction(func)),
        )
        setattr(func, DECL_ATTR, decl)
        return func

    return decorate
