"""Calling one action: look it up, check scope, validate params, inject, run, serialize.

Kept out of the route module so that the bench and tests exercise exactly what the route does.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from tfrobotserver.actions.component import TFSComponent
from tfrobotserver.actions.errors import ActionInputError
from tfrobotserver.actions.injected import ASYNC_SESSION, PRINCIPAL, ROBOT, Principal
from tfrobotserver.actions.registry import BoundAction
from tfrobotserver.app.auth import Authenticator
from tfrobotserver.app.errors import ApiError, error_for, field_errors, internal_error
from tfrobotserver.app.runtime import Runtime
from tfrobotserver.dtos.api import FieldError
from tfrobotserver.robot.base import Robot


def find_robot(runtime: Runtime, robot: str) -> Robot:
    """The robot or a 404 listing the known names."""
    found = runtime.robots.get(robot)
    if found is None:
        raise ApiError(404, "not_found", f"no robot {robot!r}; known robots: {sorted(runtime.robots)}")
    return found


def find_component(runtime: Runtime, robot: str, component: str) -> TFSComponent:
    """The component or a 404 listing the robot's components."""
    owner = find_robot(runtime, robot)
    found = owner.components.get(component)
    if found is None:
        raise ApiError(
            404, "not_found", f"robot {robot!r} has no component {component!r}; it has {sorted(owner.components)}"
        )
    return found


def find_action(runtime: Runtime, robot: str, component: str, action: str) -> tuple[TFSComponent, BoundAction]:
    """The component and its bound action, or a 404 listing the component's actions."""
    comp = find_component(runtime, robot, component)
    actions = type(comp).tfs_bound_actions()
    bound = actions.get(action)
    if bound is None:
        raise ApiError(404, "not_found", f"component {component!r} has no action {action!r}; it has {sorted(actions)}")
    return comp, bound


async def invoke(runtime: Runtime, principal: Principal, robot: str, component: str, action: str, body: bytes) -> bytes:
    """Run the action on the JSON object `body` (empty means `{}`) and return its result as JSON.

    The body is validated straight from JSON by the action's params model, whatever the request's
    content type, so that `curl -d '{...}'` works and every invalid field is reported at once.
    """
    comp, bound = find_action(runtime, robot, component, action)
    owner = runtime.robots[robot]
    Authenticator.require(
        principal, "read" if bound.is_read else "write", f"{bound.alias.resource_op_type} action {action!r}"
    )
    try:
        validated = bound.params_model.model_validate_json(body.strip() or b"{}")
    except ValidationError as exc:
        errors = field_errors(exc.errors(include_url=False))
        raise ApiError(
            422, "invalid_params", f"{len(errors)} invalid parameter(s) for {action!r}; see `errors`", errors
        ) from None
    kwargs: dict[str, Any] = dict(validated)
    where = f"{robot}/{component}/{action}"
    try:
        if ASYNC_SESSION in bound.injected.values():
            async with runtime.sessions.begin() as session:
                result = await _call(comp, bound, kwargs, {ASYNC_SESSION: session, PRINCIPAL: principal, ROBOT: owner})
        else:
            result = await _call(comp, bound, kwargs, {PRINCIPAL: principal, ROBOT: owner})
    except ActionInputError as exc:
        error = FieldError(path=exc.path, message=exc.message, type="action_input", value=exc.value)
        raise ApiError(exc.status, exc.error, f"{action!r} refused its parameters: {exc}", [error]) from None
    except Exception as exc:
        raise error_for(exc, where) from None
    try:
        return bound.return_adapter.dump_json(result, by_alias=True, warnings="error")  # a wrong type is a bug: 500
    except Exception as exc:
        raise internal_error(exc, f"{where} (serializing the result as {bound.return_type!r})") from None


async def _call(comp: TFSComponent, bound: BoundAction, kwargs: dict[str, Any], context: Mapping[str, Any]) -> Any:
    for param, key in bound.injected.items():  # every key is one the server provides (`Runtime` checked)
        kwargs[param] = context[key]
    method = getattr(comp, bound.name)
    if inspect.iscoroutinefunction(method):
        return await method(**kwargs)
    return await run_in_threadpool(method, **kwargs)  # like FastAPI's sync routes: never block the loop
