"""The console's chat: `POST /api/robots/{robot}/chat` runs one turn of the robot's agent loop.

Request: `{"message": str, "conversationId": str | null, "dryRun": bool}`. Response, as JSON:
`{"conversationId", "message", "trace", "request"}` — the final assistant message, the turn's trace
records in order (thinking, tool results, console results) and, for a dry run, the exact provider
request instead of a call (`message` is then null and nothing is stored). With
`Accept: text/event-stream` the same turn streams as server-sent events: `event` (every typed chain
event of `tfrobot.brain.chain.events`, as JSON), `delta` (`{"text"}` for each text token), one `trace`
(`{"record"}`) per trace record once the turn ends, then `done` with the JSON body above.

A turn runs in a task of its own (`turns.py`): a client that hangs up mid-stream does not stop it,
and it is stored, finished or failed with its partial trace. A failure is answered with the API's
error body (`errors.py`): typed for a provider failure (`provider_error`, its kind, the provider's
message, the fix, `retryAfter`, the conversation the failed turn is stored in) at a status that
says who must act, a 404 for a conversation of another robot. Over SSE, a failure before the first
event is that same HTTP answer; a failure after it is an `error` event carrying the body (with its
`status`). `GET` on the same path answers 200 when the robot can chat (the console hides its chat
otherwise: 404) and says whether it is ready (`chat.ready`, the problems otherwise).

Tools that need the user's confirmation: the stream sends a `confirm` event (`{"id", "call", "timeout"}`)
before such a call runs, and the turn waits until `POST /api/robots/{robot}/chat/confirmations/{id}`
with `{"approve": true|false}` (write scope, the principal that started the turn) answers, or the time-out
refuses it. The JSON chat cannot ask: such calls are refused with a result that says to use the stream.

No `from __future__ import annotations` here: FastAPI reads these signatures at run time.
"""

import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from pydantic import ValidationError

from tfrobot.brain.chain.events import ChainEvent, ConfirmationRequested, FinalMessage, TokenDelta
from tfrobot.schema.message import AssistantTextMessage, UserMessage
from tfrobotserver.actions.injected import Principal
from tfrobotserver.app.auth import Authenticator
from tfrobotserver.app.bodies import ChatInfo, ChatReply, ChatRequest, ConfirmationAnswer
from tfrobotserver.app.confirmations import CONFIRM_ID_PATTERN, TurnConfirmations, answer_confirmation
from tfrobotserver.app.errors import ApiError, error_for, field_errors
from tfrobotserver.app.invoke import find_robot
from tfrobotserver.app.readiness import chat_readiness
from tfrobotserver.app.routes import RuntimeDep, get_principal
from tfrobotserver.app.runtime import Runtime
from tfrobotserver.app.turns import RunningTurn
from tfrobotserver.redaction import redact
from tfrobotserver.robot.agent import build_brain, dry_run_request, new_input, tools_component
from tfrobotserver.robot.base import Robot

router = APIRouter(prefix="/api")


def _chatting_robot(runtime: Runtime, robot: str) -> Robot:
    found = find_robot(runtime, robot)
    if found.agent is None:
        raise ApiError(404, "not_found", f"robot {robot!r} has no agent (LLM and memory): it cannot chat")
    return found


def _reply(user_input: UserMessage, final: AssistantTextMessage | None) -> ChatReply:
    return ChatReply(
        conversation_id=user_input.conversation_id or "",
        message=final.model_dump(mode="json") if final is not None else None,
        trace=[r.model_dump(mode="json") for r in user_input.intermediate_trace.ordered()],
    )


def _sse(event: str, data: Any) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


@router.get("/robots/{robot}/chat", response_model=ChatInfo)
async def chat_info(
    robot: str, runtime: RuntimeDep, principal: Annotated[Principal, Depends(get_principal)]
) -> ChatInfo:
    """Whether and how the robot chats (404: it cannot)."""
    Authenticator.require(principal, "read", "chat info")
    found = _chatting_robot(runtime, robot)
    agent = found.agent
    assert agent is not None  # checked by _chatting_robot
    tools = tools_component(found)
    names = [t.name for t in tools.catalog.tools()] if tools is not None else []
    return ChatInfo(
        robot=found.name,
        llm=agent.llm,
        conversations=agent.conversations,
        prompt=agent.prompt,
        tools=names,
        chat=chat_readiness(found),
    )


@router.post("/robots/{robot}/chat", response_model=ChatReply)
async def chat(
    robot: str, runtime: RuntimeDep, principal: Annotated[Principal, Depends(get_principal)], request: Request
) -> Response:
    """One turn: the final message and its trace, as JSON or as server-sent events."""
    found = _chatting_robot(runtime, robot)
    try:
        body = ChatRequest.model_validate_json((await request.body()).strip() or b"{}")
    except ValidationError as exc:
        errors = field_errors(exc.errors(include_url=False))
        raise ApiError(422, "invalid_params", f"{len(errors)} invalid field(s) in the chat request", errors) from None
    where = f"{robot}/chat"
    if body.dry_run:
        Authenticator.require(principal, "read", "a chat dry run")
        try:
            provider_request = await dry_run_request(found, body.message, body.conversation_id)
        except Exception as exc:
            raise error_for(exc, f"{where} (dry run)") from None
        reply = ChatReply(conversation_id=body.conversation_id or "", request=redact(provider_request))
        return JSONResponse(reply.model_dump(mode="json"))
    Authenticator.require(principal, "write", "chatting (it stores the conversation)")
    user_input = new_input(body.message, body.conversation_id)
    if "text/event-stream" in request.headers.get("accept", ""):
        confirm = TurnConfirmations(runtime.sessions, found.name, principal, user_input)
        brain = build_brain(found, confirm)
        turn = runtime.turns.start(brain.astream(user_input))
        try:
            first = await turn.next()  # before the first event, a failure is a plain HTTP error
        except Exception as exc:
            raise _failed(exc, where, user_input) from None
        events = _stream(turn, first, user_input, where, confirm, brain.chain.drive.confirm_timeout)
        return StreamingResponse(events, media_type="text/event-stream")
    final = await run_turn(runtime, found, user_input, where)
    return JSONResponse(_reply(user_input, final).model_dump(mode="json"))


async def run_turn(runtime: Runtime, robot: Robot, user_input: UserMessage, where: str) -> AssistantTextMessage | None:
    """Run one turn of `robot` to its end as a task of its own (stored whatever the caller does, a client
    that hangs up or an MCP call that is cancelled) and return its answer; a failure is the `ApiError` the
    chat endpoint answers with. Tools that need confirmation are refused: nobody can be asked here."""
    turn = runtime.turns.start(build_brain(robot).astream(user_input))
    final: AssistantTextMessage | None = None
    try:
        while (event := await turn.next()) is not None:
            if isinstance(event, FinalMessage):
                final = event.message
    except Exception as exc:
        raise _failed(exc, where, user_input) from None
    return final


@router.post("/robots/{robot}/chat/confirmations/{confirm_id}", status_code=204)
async def confirm_call(
    robot: str,
    confirm_id: Annotated[
        str, Path(pattern=CONFIRM_ID_PATTERN, description="The `confirm` event's id (32 hexadecimal digits).")
    ],
    runtime: RuntimeDep,
    principal: Annotated[Principal, Depends(get_principal)],
    request: Request,
) -> Response:
    """Approve or refuse a tool call a streaming turn asked about (its `confirm` event's id)."""
    _chatting_robot(runtime, robot)
    Authenticator.require(principal, "write", "answering a tool confirmation")
    try:
        body = ConfirmationAnswer.model_validate_json((await request.body()).strip() or b"{}")
    except ValidationError as exc:
        errors = field_errors(exc.errors(include_url=False))
        raise ApiError(422, "invalid_params", "the answer needs `approve`: true or false", errors) from None
    async with runtime.sessions.begin() as session:
        answered = await answer_confirmation(session, robot, confirm_id, body.approve, principal)
    if not answered:
        raise ApiError(
            404, "not_found", f"no pending confirmation {confirm_id!r} of robot {robot!r} for you: it was answered "
            "already, its turn ended, or another principal's turn asked it",
        )  # fmt: skip
    return Response(status_code=204)


def _failed(exc: BaseException, where: str, user_input: UserMessage) -> ApiError:
    """The answer to a failed turn; it names the conversation the turn is stored in (unless it is not ours)."""
    err = error_for(exc, where, user_input.conversation_id)
    if err.status != 404:
        err.body.conversation_id = user_input.conversation_id
    return err


async def _stream(
    turn: RunningTurn,
    first: ChainEvent | None,
    user_input: UserMessage,
    where: str,
    confirm: TurnConfirmations,
    timeout: float,
) -> AsyncIterator[bytes]:
    """The turn's events as SSE. A client that hangs up ends this generator, not the turn."""
    final: AssistantTextMessage | None = None
    event = first
    try:
        while event is not None:
            yield _sse("event", event.model_dump(mode="json"))
            if isinstance(event, ConfirmationRequested):
                confirm_id = await confirm.open(event.call)
                call = event.call.model_dump(mode="json")
                yield _sse("confirm", {"id": confirm_id, "call": call, "timeout": timeout})
            elif isinstance(event, TokenDelta):
                yield _sse("delta", {"text": event.text})
            elif isinstance(event, FinalMessage):
                final = event.message
            event = await turn.next()
    except Exception as exc:
        err = _failed(exc, where, user_input)  # the same body as the JSON path's error, with its status
        yield _sse(
            "error", err.body.model_copy(update={"status": err.status}).model_dump(mode="json", exclude_none=True)
        )
        return
    reply = _reply(user_input, final)
    for record in reply.trace:
        yield _sse("trace", {"record": record})
    yield _sse("done", reply.model_dump(mode="json"))
