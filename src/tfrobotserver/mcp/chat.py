"""The `chat` tool: one turn of the robot's agent loop, the way `POST /api/robots/{robot}/chat` runs it.

The turn is run by the function the chat endpoint's JSON path calls (`run_turn`: a task of its own, so a
cancelled call still stores its turn), needs the `write` scope (it stores the conversation), and fails
with the endpoint's error bodies (422 for bad arguments, a typed provider error, 500/503 with an error
id). The result is the answer text, the conversation id (pass it back to continue the conversation) and
the turn's trace records in order.
"""

from __future__ import annotations

import json
from typing import Any

from mcp import types
from pydantic import Field, ValidationError

from tfrobot.schema.message.base import content_text
from tfrobotserver.actions.injected import Principal
from tfrobotserver.app.auth import Authenticator
from tfrobotserver.app.bodies import ChatTurn
from tfrobotserver.app.chat import run_turn
from tfrobotserver.app.errors import ApiError, field_errors
from tfrobotserver.app.invoke import find_robot
from tfrobotserver.app.runtime import Runtime
from tfrobotserver.dtos.base import HttpModel
from tfrobotserver.mcp.tools import arguments_json, error_result
from tfrobotserver.robot.agent import new_input

CHAT_TOOL = "chat"


class ChatArguments(ChatTurn):
    """One user turn: the HTTP chat's body without `dryRun`, validated by the same types."""


class ChatAnswer(HttpModel):
    """The robot's answer to one turn."""

    answer: str = Field(description="The final assistant message as text.")
    conversation_id: str = Field(description="The conversation the turn was stored in.")
    trace: list[dict[str, Any]] = Field(
        description="The turn's thinking, tool calls, tool results and console results, in order."
    )


def chat_tool(robot: str) -> types.Tool:
    """The tool description of chatting with `robot`."""
    return types.Tool(
        name=CHAT_TOOL,
        title=f"Chat with {robot}",
        description=f"Send one message to the robot {robot!r} and get its answer; the turn is stored in the "
        "conversation (give conversationId to continue one).",
        inputSchema=ChatArguments.model_json_schema(mode="validation"),
        outputSchema=ChatAnswer.model_json_schema(mode="serialization"),
        annotations=types.ToolAnnotations(title=f"Chat with {robot}", readOnlyHint=False, destructiveHint=False),
    )


async def call_chat(runtime: Runtime, principal: Principal, robot: str, arguments: Any) -> types.CallToolResult:
    """Run one turn; errors are tool results with the chat endpoint's error body."""
    where = f"{robot}/chat"
    try:
        found = find_robot(runtime, robot)
        try:
            params = ChatArguments.model_validate_json(arguments_json(arguments, "the chat request"))
        except ValidationError as exc:
            errors = field_errors(exc.errors(include_url=False))
            raise ApiError(
                422, "invalid_params", f"{len(errors)} invalid field(s) in the chat request", errors
            ) from None
        Authenticator.require(principal, "write", "chatting (it stores the conversation)")
        user_input = new_input(params.message, params.conversation_id)
        final = await run_turn(runtime, found, user_input, where)
    except ApiError as err:
        return error_result(err)
    answer = ChatAnswer(
        answer=content_text(final.content) if final is not None else "",
        conversation_id=user_input.conversation_id or "",
        trace=[r.model_dump(mode="json") for r in user_input.intermediate_trace.ordered()],
    ).model_dump(mode="json")
    text = types.TextContent(type="text", text=json.dumps(answer, ensure_ascii=False))
    return types.CallToolResult(content=[text], structuredContent=answer)
