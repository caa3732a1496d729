"""`ActionAlias`: what an action is, so that a console can pick its renderer before calling it.

`category` selects the data protocol (and so the base return format): "pageable" actions work on a
list container, "graphical" ones on a graph container; one-off debug/config actions have none.
`resource_op_type` says what the action does to `resource`; the read kinds are the only legal
x-fetch targets and the only actions a read-scoped token may call.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

from pydantic import BaseModel, ConfigDict, model_validator

Category = Literal["pageable", "graphical"]
ResourceOpType = Literal["get", "get_one", "get_list", "get_graph", "create", "update", "delete", "render", "config"]

READ_OPS: Final[frozenset[str]] = frozenset({"get", "get_one", "get_list", "get_graph"})
"""Operations without side effects: x-fetch may target them, a read token may call them."""

RESOURCE_OP_TYPES: Final[tuple[str, ...]] = get_args(ResourceOpType)

_REQUIRED_CATEGORY: Final[dict[str, str | None]] = {
    "get_list": "pageable",
    "get_graph": "graphical",
    "render": None,
    "config": None,
}


class ActionAlias(BaseModel):
    """The protocol identity of an action: data protocol, resource and operation."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    category: Category | None = None
    """"pageable" / "graphical" for data protocols; None for one-off actions (render, config …)."""
    resource: str
    """The resource the action operates on, e.g. "doc", "node"; actions of one resource share it."""
    resource_op_type: ResourceOpType
    """What the action does; get_list must return a pageable list, get_graph a graph container."""

    @model_validator(mode="after")
    def _category_fits_operation(self) -> ActionAlias:
        """get_list is pageable, get_graph graphical, render/config one-off: the console relies on it."""
        op = self.resource_op_type
        if op in _REQUIRED_CATEGORY and self.category != _REQUIRED_CATEGORY[op]:
            want = _REQUIRED_CATEGORY[op]
            shown = "no category (None)" if want is None else f"category={want!r}"
            raise ValueError(f"resource_op_type={op!r} needs {shown}, got category={self.category!r}")
        return self

    @property
    def is_read(self) -> bool:
        """True for get / get_one / get_list / get_graph."""
        return self.resource_op_type in READ_OPS
