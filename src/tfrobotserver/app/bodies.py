"""The HTTP API's own request and response bodies: what the routes under `/api/` take and return.

The wire shapes of the TFSAction protocol and of the components (what an action takes or returns) are not
here but in `tfrobotserver.dtos`; `tfrobotserver/dtos/__init__.py` states the rule.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, Field

from tfrobotserver.actions.alias import Category, ResourceOpType
from tfrobotserver.dtos.base import HttpModel
from tfrobotserver.robot.factory.brain.conversations import ConversationId, no_nul


class ChatReadiness(HttpModel):
    """Whether a robot can chat now, and if not, what stops it (each problem says its fix)."""

    ready: bool
    problems: list[str] = Field(default_factory=list)


class RobotInfo(HttpModel):
    """A served robot, the names of its components, and whether it can chat (None: it has no agent)."""

    name: str
    description: str = ""
    components: list[str] = Field(default_factory=list)
    chat: ChatReadiness | None = None


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
    title: str = Field(description="what a console calls the action (`@tfs_action(title=…)`, else the name in words)")
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
    """Every error response: a stable code, a sentence with the fix, and details where useful.

    A provider failure of a chat turn (`error: "provider_error"`) adds the typed failure: its `kind`, the
    `provider`, the provider's own message, the `fix`, `retryAfter` when known, and the conversation the
    failed turn is stored in. Every added field is optional: clients of the first shape read it unchanged.
    """

    error: str
    message: str
    errors: list[FieldError] | None = None
    error_id: str | None = None
    current: Any = None
    """409 on a stale update: the element as it is stored now (what changed since it was read)."""
    overwrite: dict[str, Any] | None = None
    """409 on a stale update: the parameters that, sent with the others unchanged, overwrite it anyway."""
    status: int | None = Field(default=None, description="The HTTP status (also inside an SSE `error` event).")
    kind: str | None = Field(default=None, description="A provider failure's kind: missing_key, auth, rate_limited …")
    provider: str | None = None
    provider_message: str | None = Field(default=None, description="The provider's own error message.")
    fix: str | None = Field(default=None, description="What to do about it, e.g. 'set OPENAI_API_KEY …'.")
    retry_after: float | None = Field(default=None, description="Seconds to wait before retrying, when known.")
    retries: int | None = Field(
        default=None, description="How often the provider's SDK retried before giving up (the LLM's `max_retries`)."
    )
    upstream_status: int | None = Field(default=None, description="The provider's HTTP status, when it answered.")
    conversation_id: str | None = Field(default=None, description="The conversation the failed turn is stored in.")


class ChatTurn(HttpModel):
    """One user turn, as the HTTP chat and the MCP `chat` tool both take it (one set of checks): text the stores
    cannot keep (a NUL character) and a conversation id they cannot hold (over 255 characters) are refused
    here, as a 422 naming the field."""

    message: Annotated[str, Field(min_length=1, description="What the user says to the robot."), AfterValidator(no_nul)]
    conversation_id: Annotated[
        ConversationId | None,
        Field(description="Continue this conversation (from an earlier answer); omit to start a new one."),
    ] = None


class ChatRequest(ChatTurn):
    """One user turn over HTTP, or (`dryRun`) the provider request it would send."""

    dry_run: bool = False


class ChatReply(HttpModel):
    """The turn's answer and trace (or, for a dry run, the provider request)."""

    conversation_id: str
    message: dict[str, Any] | None = None
    trace: list[dict[str, Any]] = Field(default_factory=list)
    request: dict[str, Any] | None = None


class ConfirmationAnswer(HttpModel):
    """The user's answer to a `confirm` event."""

    approve: bool


class ChatInfo(HttpModel):
    """The robot can chat; its agent's components and tools."""

    robot: str
    llm: str
    conversations: str
    prompt: str | None
    tools: list[str]
    chat: ChatReadiness | None
