"""The HTTP routes of the TFSAction API.

No `from __future__ import annotations` here: FastAPI reads these signatures at run time.
"""

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Request
from fastapi.responses import Response

from tfrobotserver.actions.injected import Principal
from tfrobotserver.app.auth import Authenticator
from tfrobotserver.app.bodies import ActionAliasInfo, ActionInfo, ComponentInfo, ErrorBody, RobotInfo
from tfrobotserver.app.invoke import find_component, find_robot, invoke
from tfrobotserver.app.readiness import chat_readiness
from tfrobotserver.app.runtime import Runtime
from tfrobotserver.redaction import redact

_ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorBody, "description": "missing or unknown bearer token"},
    403: {"model": ErrorBody, "description": "the token lacks the needed scope"},
    404: {"model": ErrorBody, "description": "unknown robot, component or action"},
}

router = APIRouter(prefix="/api", responses=_ERRORS)


async def get_runtime(request: Request) -> Runtime:
    """The app's runtime, started on first use."""
    runtime: Runtime = request.app.state.runtime
    await runtime.ensure_started()
    return runtime


async def get_principal(request: Request, authorization: Annotated[str | None, Header()] = None) -> Principal:
    """The authenticated caller (401 otherwise)."""
    auth: Authenticator = request.app.state.authenticator
    return auth.authenticate(authorization)


async def reader(principal: Annotated[Principal, Depends(get_principal)]) -> Principal:
    """A caller allowed to read (403 otherwise)."""
    Authenticator.require(principal, "read", "listing")
    return principal


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]
ReaderDep = Annotated[Principal, Depends(reader)]


@router.get("/robots", response_model=list[RobotInfo])
async def list_robots(runtime: RuntimeDep, _: ReaderDep) -> list[RobotInfo]:
    """Every robot this server hosts, and whether each can chat now (`chat.ready`, else its `problems`)."""
    return [
        RobotInfo(name=r.name, description=r.description, components=list(r.components), chat=chat_readiness(r))
        for r in runtime.robots.values()
    ]


@router.get("/robots/{robot}/components", response_model=list[ComponentInfo])
async def list_components(robot: str, runtime: RuntimeDep, _: ReaderDep) -> list[ComponentInfo]:
    """A robot's components with their class and configuration (credentials masked: `redaction`)."""
    return [
        ComponentInfo(name=name, type=type(comp).__name__, config=redact(comp.model_dump(mode="json")))
        for name, comp in find_robot(runtime, robot).components.items()
    ]


@router.get("/robots/{robot}/components/{component}/actions", response_model=list[ActionInfo])
async def list_actions(robot: str, component: str, runtime: RuntimeDep, _: ReaderDep) -> list[ActionInfo]:
    """A component's actions with alias, description and both JSON Schemas."""
    comp = find_component(runtime, robot, component)
    return [
        ActionInfo(
            name=a.name,
            title=a.title,
            alias=ActionAliasInfo(
                category=a.alias.category, resource=a.alias.resource, resource_op_type=a.alias.resource_op_type
            ),
            description=a.description,
            params_schema=a.params_schema,
            ret_schema=a.ret_schema,
        )
        for a in type(comp).tfs_bound_actions().values()
    ]


_PARAMS_BODY = {
    "requestBody": {
        "required": False,
        "description": "the action's parameters as a JSON object (see paramsSchema); empty means {}",
        "content": {"application/json": {"schema": {"type": "object", "additionalProperties": True}}},
    }
}


@router.post(
    "/robots/{robot}/components/{component}/actions/{action}",
    openapi_extra=_PARAMS_BODY,
    responses={
        200: {"description": "the action's result, serialized by its return type (see retSchema)"},
        409: {
            "model": ErrorBody,
            "description": "a conflicting write: the key exists, or the element changed since it was read "
            "(`current` is it now; resend with `overwrite` to replace it anyway)",
        },
        422: {"model": ErrorBody, "description": "invalid parameters: every field's path and message"},
        500: {"model": ErrorBody, "description": "the component failed; quote errorId"},
        503: {"model": ErrorBody, "description": "the database is unavailable right now; retry (Retry-After)"},
    },
)
async def call_action(
    robot: str,
    component: str,
    action: str,
    runtime: RuntimeDep,
    principal: Annotated[Principal, Depends(get_principal)],
    request: Request,
) -> Response:
    """Call one action with its parameters as a JSON object."""
    result = await invoke(runtime, principal, robot, component, action, await request.body())
    return Response(content=result, media_type="application/json")
