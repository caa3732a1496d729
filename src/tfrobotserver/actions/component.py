"""`TFSComponent`: the base of every robot component that exposes TFSActions.

A component is a pydantic model because it is built from configuration (its fields are the
config the console shows); its `__tfs_actions__` registry is filled when the class is created,
from the class and every base and mixin, and the static protocol checks run right then, so a
protocol mistake fails at import rather than in front of a console user.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, PrivateAttr
from sqlalchemy.ext.asyncio import AsyncSession

from tfrobotserver.actions.checks import check_component
from tfrobotserver.actions.decorator import ActionDecl
from tfrobotserver.actions.errors import ActionProtocolError
from tfrobotserver.actions.registry import BoundAction, bind_actions, collect_actions


class TFSComponent(BaseModel):
    """A configurable component; subclasses declare actions with `@tfs_action` (or via mixins)."""

    model_config = ConfigDict(extra="forbid")

    __tfs_actions__: ClassVar[Mapping[str, ActionDecl]] = {}
    """action name → declaration, inherited over the MRO (the seed's registry)."""
    __tfs_bound_actions__: ClassVar[Mapping[str, BoundAction] | None] = {}
    """action name → bound action; None while the class is generic (not servable)."""
    __tfs_removed_actions__: ClassVar[tuple[str, ...]] = ()
    """Names of inherited actions this class does not expose."""
    _tfs_robot: str = PrivateAttr(default="")
    """The robot serving this component (set by `Robot`); with `_tfs_name`, the key of its stored config."""
    _tfs_name: str = PrivateAttr(default="")
    """The component's name in its robot (set by `Robot`)."""

    @property
    def tfs_path(self) -> str:
        """`robot/component`: where this component is addressed and its configuration stored."""
        return f"{self._tfs_robot}/{self._tfs_name}"

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls.__tfs_actions__ = collect_actions(cls)
        bound = bind_actions(cls, cls.__tfs_actions__)
        if bound is not None:
            check_component(cls.__qualname__, bound)
        cls.__tfs_bound_actions__ = bound

    @classmethod
    def tfs_bound_actions(cls) -> Mapping[str, BoundAction]:
        """The servable actions; refuses a generic class whose TypeVars are still open."""
        bound = cls.__tfs_bound_actions__
        if bound is None:
            raise ActionProtocolError(
                action=cls.__qualname__,
                field="class",
                problem="its actions still use TypeVars of a generic base or mixin",
                fix=f"serve a parametrized subclass, e.g. class Mine({cls.__name__}, SomeMixin[AIMemoryDoc])",
            )
        return bound

    async def aon_startup(self, session: AsyncSession) -> None:
        """Called once when the server starts (create seed rows, warm caches); no-op by default."""

    async def aclose(self) -> None:
        """Called when the server stops (close own connections); no-op by default."""
