"""DTOs of the HTTP API itself (what /api/robots/... returns), camelCase like every DTO."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from tfrobotserver.actions.alias import Category, ResourceOpType
from tfrobotserver.dtos.base import HttpModel


class RobotInfo(HttpModel):
    """A served robot and the names of its components."""

    name: str
    description: str = ""
    components: list[str] = Field(default_factory=list)


class ComponentInfo(HttpModel):
    """A component: its name in the robot, its class, and its configuration."""

    name: str
    type: str
    config: dict[str, Any]


class ActionAliasInfo(HttpModel):
    """The action's protocol identity; the console picks table, graph or form from it."""

    category: Category | None
    resource: str
    resource_op_type: ResourceOpType


class ActionInfo(HttpModel):
    """Everything a console needs to render and call one action."""

    name: str
    alias: ActionAliasInfo
    description: str
    params_schema: dict[str, Any]
    ret_schema: dict[str, Any]


class FieldError(HttpModel):
    """One invalid parameter: where, what is wrong, and the value that was sent."""

    path: str
    message: str
    type: str
    value: Any = None


class ErrorBody(HttpModel):
    """Every error response: a stable code, a sentence with the fix, and details where useful."""

    error: str
    message: str
    errors: list[FieldError] | None = None
    error_id: str | None = None
    current: Any = None
    """409 on a stale update: the element as it is stored now (what changed since it was read)."""
    overwrite: dict[str, Any] | None = None
    """409 on a stale update: the parameters that, sent with the others unchanged, overwrite it anyway."""
