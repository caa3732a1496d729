"""Calling one action: look it up, check scope, validate params, inject, run, serialize.

Kept out of the route module so that the bench and tests exercise exactly what the route does.

Checking, validating and serializing a large body is CPU work that grows with it (a playground draft of
20,000 messages, 0.9 MB: about a second): above `_OFF_LOOP_BYTES` it runs on a worker thread
(`worker.off_loop`), so other clients keep their latency; small bodies stay on the loop (no thread hop).
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from functools import partial
from typing import Any

from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from tfrobotserver.actions.component import TFSComponent
from tfrobotserver.actions.errors import ActionConflictError, ActionInputError
from tfrobotserver.actions.injected import (
    ASYNC_SESSION,
    PRINCIPAL,
    ROBOT,
    STEP_PREPARER,
    TURN_PREPARER,
    Principal,
)
from tfrobotserver.actions.registry import BoundAction
from tfrobotserver.app.auth import Authenticator
from tfrobotserver.app.bodies import FieldError
from tfrobotserver.app.errors import ApiError, error_for, field_errors, internal_error
from tfrobotserver.app.runtime import Runtime
from tfrobotserver.app.storable_json import unstorable_body
from tfrobotserver.redaction import redact, redact_text
from tfrobotserver.robot.agent import prepared_step, prepared_turn
from tfrobotserver.robot.base import Robot
from tfrobotserver.robot.factory.worker import off_loop

_OFF_LOOP_BYTES = 64 << 10
"""Bodies above this size are checked, validated and their results serialized off the event loop."""


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

    The body is validated straight from JSON by the action's params model, so that every invalid field
    is reported at once. It is JSON by its content type too: the browser guard (`guard.py`) refused any
    other, which is what a foreign page could send without a CORS preflight. Before validation, text
    holding NUL and numbers that are not finite are refused (`storable_json`), whatever the action. A
    component's refusal is a 422 (`ActionInputError`, its value and message redacted: they may quote
    the component's configuration) or a 409 (`ActionConflictError`).
    """
    comp, bound = find_action(runtime, robot, component, action)
    owner = runtime.robots[robot]
    Authenticator.require(
        principal, "read" if bound.is_read else "write", f"{bound.alias.resource_op_type} action {action!r}"
    )
    body = body.strip() or b"{}"
    large = len(body) > _OFF_LOOP_BYTES
    kwargs = await off_loop(_validated, bound, action, body) if large else _validated(bound, action, body)
    where = f"{robot}/{component}/{action}"
    context: dict[str, Any] = {
        PRINCIPAL: principal,
        ROBOT: owner,
        TURN_PREPARER: partial(prepared_turn, owner),
        STEP_PREPARER: partial(prepared_step, owner),
    }
    try:
        if ASYNC_SESSION in bound.injected.values():
            async with runtime.sessions.begin() as session:
                result = await _call(comp, bound, kwargs, {**context, ASYNC_SESSION: session})
        else:
            result = await _call(comp, bound, kwargs, context)
    except ActionInputError as exc:
        message = redact_text(exc.message)
        error = FieldError(path=exc.path, message=message, type="action_input", value=redact(exc.value))
        raise ApiError(
            exc.status, exc.error, f"{action!r} refused its parameters: {exc.path}: {message}", [error]
        ) from None
    except ActionConflictError as exc:
        error = FieldError(path=exc.path, message=exc.message, type="conflict", value=exc.value)
        raise ApiError(
            409, "conflict", f"{action!r}: {exc}", [error], current=exc.current, overwrite=exc.overwrite
        ) from None
    except Exception as exc:
        raise error_for(exc, where) from None
    dump = partial(bound.return_adapter.dump_json, result, by_alias=True, warnings="error")
    try:
        return await off_loop(dump) if large else dump()  # a wrong type is a bug: 500
    except Exception as exc:
        raise internal_error(exc, f"{where} (serializing the result as {bound.return_type!r})") from None


def _validated(bound: BoundAction, action: str, body: bytes) -> dict[str, Any]:
    """The action's keyword arguments from the JSON `body`, or the 422 naming every invalid value (CPU work
    that grows with the body: a large one is checked off the loop)."""
    unstorable = unstorable_body(body)
    if unstorable:
        raise ApiError(
            422, "invalid_params", f"{len(unstorable)} invalid value(s) for {action!r}; see `errors`", unstorable
        )
    try:
        validated = bound.params_model.model_validate_json(body)
    except ValidationError as exc:
        errors = field_errors(exc.errors(include_url=False))
        raise ApiError(
            422, "invalid_params", f"{len(errors)} invalid parameter(s) for {action!r}; see `errors`", errors
        ) from None
    return dict(validated)


async def _call(comp: TFSComponent, bound: BoundAction, kwargs: dict[str, Any], context: Mapping[str, Any]) -> Any:
    for param, key in bound.injected.items():  # every key is one the server provides (`Runtime` checked)
        kwargs[param] = context[key]
    method = getattr(comp, bound.name)
    if inspect.iscoroutinefunction(method):
        return await method(**kwargs)
    return await run_in_threadpool(method, **kwargs)  # like FastAPI's sync routes: never block the loop
