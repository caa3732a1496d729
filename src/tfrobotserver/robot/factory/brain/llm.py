"""The LLM component: which provider and model a robot thinks with, a dry run, and one real call.

`adry_run` answers the seed's debugging question "what exactly would be sent?": the provider
request `ChatLLM.construct_request_params` builds for the robot's conversation plus a new input
(system prompt, recalled history with traces, tools), without any network. `acall` sends that
request once and returns the reply without storing it; a provider error (no key, unreachable,
rate limit …) is part of the result, not a server error. `aset_llm` changes provider, model or
parameters at run time; the change is checked by building the LLM before it is applied. Only the
settings `llm_writable.WRITABLE` lists can change over HTTP: endpoints, headers, clients, media roots,
time-outs stay what the robot file and the environment say (a refused change is a 422 saying where to set
it). What the dry run and a failed call show is redacted (`tfrobotserver.redaction`).

Building a request is CPU work that grows with the conversation (a playground draft of 20,000 messages took
seconds): it runs off the event loop (`worker.off_loop`), and a draft longer than `PLAY_MESSAGES` is refused
before its messages are validated.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field, PrivateAttr, ValidationError
from sqlalchemy.ext.asyncio import AsyncSession

from tfrobot.brain.chain.llms import ChatLLM, LLMError, create_llm, normalize, providers
from tfrobot.brain.memory.tables import ID_CHARS
from tfrobot.schema.message import (
    AssistantTextMessage,
    BaseMessage,
    LLMAssistantMessage,
    LLMSystemMessage,
    LLMToolMessage,
    LLMUserMessage,
    TextMessage,
    ToolCall,
    ToolReturn,
    content_text,
)
from tfrobotserver.actions.alias import ActionAlias
from tfrobotserver.actions.component import TFSComponent
from tfrobotserver.actions.decorator import tfs_action
from tfrobotserver.actions.errors import ActionInputError
from tfrobotserver.actions.injected import STEP_PREPARER, TURN_PREPARER, Injected, Principal
from tfrobotserver.dtos.factory.brain.llm import LLMReply, LLMRequest, PlayMessage, PlayReply, PlayToolCall, StepRequest
from tfrobotserver.dtos.factory.config import ConfigUpdate
from tfrobotserver.redaction import redact, redact_text
from tfrobotserver.robot.factory.brain.conversations import no_nul
from tfrobotserver.robot.factory.brain.llm_writable import check_writable, deployment_part, merged, writable_part
from tfrobotserver.robot.factory.config_mixin import ConfigurableMixin
from tfrobotserver.robot.factory.worker import off_loop
from tfrobotserver.robot.problems import validation_problems
from tfrobotserver.robot.tools import import_object
from tfrobotserver.robot.turn import PreparedTurn, StepPreparer, TurnPreparer

logger = logging.getLogger("tfrobotserver")

Prepare = Annotated[TurnPreparer, Injected(TURN_PREPARER)]
PrepareStep = Annotated[StepPreparer, Injected(STEP_PREPARER)]
Message = Annotated[str, Field(min_length=1, description="the new user input")]
ConversationId = Annotated[str | None, Field(description="continue this conversation (its history is recalled)")]
PLAY_MESSAGES = 25_000
"""The most messages a playground draft may have: far more than any model's context holds, few enough that
building its request stays a bounded job of a worker thread (about 5 s for 25,000 on a loaded small machine)."""


def _bounded_draft(value: Any) -> Any:
    """Refuse a draft above `PLAY_MESSAGES` before its messages are validated (they are not allocated)."""
    if isinstance(value, list) and len(value) > PLAY_MESSAGES:
        raise ValueError(
            f"a draft of {len(value):,} messages is more than the playground takes ({PLAY_MESSAGES:,}); "
            "fix: drop the oldest turns (no model's context holds that many messages)"
        )
    return value


def _known_providers(schema: dict[str, Any]) -> None:
    """The providers registered when the schema is made, as the string branch's choices (a console
    shows a select); a name outside them is refused anyway, when the LLM is built."""
    for branch in schema.get("anyOf", []):
        if branch.get("type") == "string":
            branch["enum"] = sorted(providers())


Provider = Annotated[
    str | None,
    Field(description="a registered provider (its LLM is built to check)", json_schema_extra=_known_providers),
]


def _play_messages(llm: ChatLLM, turn: PreparedTurn) -> list[PlayMessage]:
    """The messages of `turn` as the provider-neutral request has them (after the LLM layer's normalization),
    in the playground's form, so that sending them back builds the step's request again."""
    ctx = llm.construct_prompt_context(turn.user_input, turn.history, turn.intermediate)
    out: list[PlayMessage] = []
    for msg in normalize(llm.format_to_request_msgs(ctx).to_list()):
        if isinstance(msg, LLMToolMessage):
            out.append(
                PlayMessage(
                    role="tool",
                    content=msg.content,
                    tool_call_id=msg.tool_call_id,
                    name=msg.name,
                    is_error=msg.is_error,
                )
            )
        elif isinstance(msg, LLMAssistantMessage):
            calls = [PlayToolCall(id=c.id, name=c.name, arguments=c.arguments) for c in msg.tool_calls]
            reasoning, model = msg.reasoning_content, msg.model
            out.append(
                PlayMessage(
                    role="assistant", content=msg.content or "", tool_calls=calls, reasoning=reasoning, model=model
                )
            )
        elif isinstance(msg, LLMSystemMessage):
            out.append(PlayMessage(role="system", content=msg.content))
        elif isinstance(msg, LLMUserMessage) and msg.attachment_of is None:
            out.append(PlayMessage(role="user", content=content_text(msg.content)))
    return out


@dataclass(frozen=True)
class _PlayTurn:
    """The edited messages as a turn's step: the history, the input (the last user message) and the turn's
    thinking and doing after it (assistant tool calls and their results), as a stored step is rebuilt."""

    history: list[BaseMessage]
    user_input: TextMessage
    intermediate: list[BaseMessage]

    @property
    def has_tools(self) -> bool:
        """Whether any message is a tool call or a tool result."""
        return any(m.role == "tool" or getattr(m, "tool_calls", None) for m in [*self.history, *self.intermediate])


def _shown_request(llm: ChatLLM, turn: PreparedTurn) -> dict[str, Any]:
    """The provider request of `turn`, redacted as the server shows it (CPU work: called off the loop)."""
    shown: dict[str, Any] = redact(turn.request(llm))
    return shown


def _play_turn(messages: list[PlayMessage]) -> _PlayTurn:
    """The edited messages as a step: the model answers the last one, a user message or a tool result."""
    if not messages or messages[-1].role not in ("user", "tool"):
        raise ActionInputError(
            "messages", "the last message must be the user's or a tool result (what the model answers)", None
        )
    at = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].role == "user"), None)
    if at is None:
        raise ActionInputError("messages", "give a user message: the turn starts with one", None)
    converted: list[BaseMessage] = []
    start = 0  # where the input is in `converted`
    for i, m in enumerate(messages):
        ts = i + 1  # the edited order, whatever the clock says
        if i == at:
            start = len(converted)
        if m.role == "tool":
            if m.tool_call_id is None:
                raise ActionInputError(f"messages.{i}.tool_call_id", "a tool result names the call it answers", None)
            result = ToolReturn(call_id=m.tool_call_id, name=m.name, result=m.content, is_error=m.is_error)
            last = converted[-1] if converted else None
            if last is not None and last.role == "tool" and last.tool_reses is not None:
                last.tool_reses = [*last.tool_reses, result]  # one reply's results are one message, as the drive makes
            else:
                converted.append(BaseMessage(role="tool", tool_reses=[result], create_ts=ts))
        elif m.role == "assistant":
            calls = [ToolCall(id=c.id, name=c.name, arguments=c.arguments) for c in m.tool_calls]
            converted.append(
                AssistantTextMessage(
                    content=m.content, tool_calls=calls, reasoning_content=m.reasoning, model=m.model, create_ts=ts
                )
            )
        elif m.role == "user":
            converted.append(TextMessage(content=m.content, create_ts=ts))
        else:
            converted.append(BaseMessage(role="system", content=m.content, create_ts=ts))
    user_input = converted[start]
    assert isinstance(user_input, TextMessage)  # the role was "user"
    return _PlayTurn(converted[:start], user_input, converted[start + 1 :])


def _build(provider: str, model: str | None, params: dict[str, Any], params_from: dict[str, str]) -> ChatLLM:
    settings: dict[str, Any] = {}
    for key, reference in params_from.items():  # defaults: a value set in `params` (over HTTP too) wins
        try:
            settings[key] = import_object(reference)
        except ValueError as exc:
            raise ValueError(f"params_from.{key}: {exc}") from None
    settings.update(params)
    if model is not None:
        settings["model"] = model
    return create_llm(provider, **settings)


class LLMComponent(ConfigurableMixin):
    """A provider from the registry (`create_llm`), its model and parameters; keys come from the environment."""

    provider: str = "scripted"
    model: str | None = None
    """None: the provider's default (only the scripted provider has one)."""
    params: dict[str, Any] = Field(default_factory=dict)
    """Provider settings (temperature, max_tokens, base_url, rules for `scripted` …); no api_key here.
    A robot file may name Python values for them in `params_from`."""
    params_from: dict[str, str] = Field(default_factory=dict)
    """Parameters whose values are Python objects named `module:attribute` (e.g. the demo's scripted
    `rules`: tfrobot.brain.demo:RULES); the same key in `params` overrides it. From the robot file only:
    `aset_llm` cannot set it, and drops it when it changes the provider (they are that provider's
    parameters)."""
    _llm: ChatLLM | None = PrivateAttr(default=None)
    _file: tuple[str, dict[str, Any]] = PrivateAttr(default=("", {}))
    """The provider and the deployment settings this component was built with (the robot file's)."""

    def model_post_init(self, context: Any, /) -> None:
        super().model_post_init(context)
        self._file = (self.provider, deployment_part(self.params))

    def _deployment(self, provider: str) -> dict[str, Any]:
        """The deployment settings `provider` runs with: the robot file's if it configured that provider."""
        file_provider, settings = self._file
        return dict(settings) if provider == file_provider else {}

    def _validate_config(self, new: Any) -> None:
        if "api_key" in new.params:
            raise ActionInputError(
                "params.api_key", "keys are not configuration; set the provider's environment variable", "***"
            )
        try:
            _build(new.provider, new.model, new.params, new.params_from)
        except ValidationError as exc:  # each problem without its input, which may be a header's value
            problems = validation_problems(exc, values=False)
            raise ActionInputError("params", f"cannot build the {new.provider!r} LLM: {problems}", new.params) from None
        except (LLMError, ValueError, TypeError) as exc:
            raise ActionInputError("params", f"cannot build the {new.provider!r} LLM: {exc}", new.params) from None

    def _restored(self, saved: TFSComponent) -> TFSComponent:
        """The saved provider, model and writable settings with the robot file's deployment settings: whatever
        deployment settings a saved configuration holds (an older TFRobot saved them) are ignored."""
        assert isinstance(saved, LLMComponent)
        kept = self._deployment(saved.provider)
        ignored = deployment_part(saved.params)
        if ignored != kept:
            logger.warning(
                "%s: the saved configuration's deployment settings (%s) differ from the robot file's, which alone "
                "decide them: the saved ones are ignored",
                self.tfs_path,
                ", ".join(sorted(set(ignored) | set(kept))),
            )
        try:
            return LLMComponent(
                provider=saved.provider,
                model=saved.model,
                params=merged(kept, writable_part(saved.params)),
                params_from=self.params_from if saved.provider == self._file[0] else {},
            )
        except ValidationError:
            logger.warning("%s: the saved configuration cannot run without them; the robot file's runs", self.tfs_path)
            return self

    def _config_applied(self) -> None:
        self._llm = None

    async def aclose(self) -> None:
        """Close the LLM's SDK clients (the server stops)."""
        if self._llm is not None:
            await self._llm.aclose()

    def llm(self) -> ChatLLM:
        """The configured `ChatLLM` (built once per configuration)."""
        if self._llm is None:
            self._llm = _build(self.provider, self.model, self.params, self.params_from)
        return self._llm

    @tfs_action(
        alias=ActionAlias(resource="llm_request", resource_op_type="get"),
        description="The exact provider request for the conversation plus a new input (no network).",
    )
    async def adry_run(self, prepare: Prepare, message: Message, conversation_id: ConversationId = None) -> LLMRequest:
        llm = self.llm()
        turn = await prepare(message, conversation_id)
        request = await off_loop(_shown_request, llm, turn)
        return LLMRequest(provider=self.provider, model=llm.model, request=request)

    @tfs_action(
        alias=ActionAlias(resource="llm_request", resource_op_type="get"),
        description="The provider request one LLM step of a stored turn sent, re-rendered from the stored history "
        "and trace through construct_request_params (the robot's current LLM, system prompt and tools; no network).",
    )
    async def astep_request(
        self,
        prepare_step: PrepareStep,
        conversation_id: Annotated[
            str, Field(min_length=1, max_length=ID_CHARS, description="the stored conversation"), AfterValidator(no_nul)
        ],
        msg_id: Annotated[
            str,
            Field(min_length=1, max_length=ID_CHARS, description="the user message that started the turn"),
            AfterValidator(no_nul),
        ],
        step: Annotated[int, Field(ge=0, description="the LLM step of the turn, 0-based as the trace marks it")] = 0,
    ) -> StepRequest:
        llm = self.llm()
        turn = await prepare_step(conversation_id, msg_id, step)
        messages = await off_loop(_play_messages, llm, turn)
        request = await off_loop(_shown_request, llm, turn)
        return StepRequest(provider=self.provider, model=llm.model, request=request, messages=messages)

    @tfs_action(
        alias=ActionAlias(resource="llm_reply", resource_op_type="create"),
        description="Send that request once and return the reply (tools are offered but not run; nothing stored).",
    )
    async def acall(self, prepare: Prepare, message: Message, conversation_id: ConversationId = None) -> LLMReply:
        turn = await prepare(message, conversation_id)
        llm = self.llm()  # this component's LLM, which may not be the one the robot's agent uses
        try:
            reply = await llm.agenerate(turn.user_input, turn.history, turn.tools or None)
        except LLMError as exc:
            error = redact_text(f"{type(exc).__name__}: {exc}")
            return LLMReply(provider=self.provider, model=llm.model, error=error)
        return LLMReply(provider=self.provider, model=llm.model, message=reply.model_dump(mode="json"))

    def _play_llm(self, provider: str | None, model: str | None, params: dict[str, Any] | None) -> ChatLLM:
        """The playground's LLM: this component's, or another provider/model/parameters for one send. Only the
        writable settings can be given (as for `aset_llm`); the deployment ones are the robot file's."""
        target = self.provider if provider is None else provider
        if params is not None:
            check_writable(target, params)
        same = target == self.provider
        writable = writable_part(self.params if params is None and same else params or {})
        chosen = model if model is not None else (self.model if same else None)
        try:
            return _build(target, chosen, merged(self._deployment(target), writable), self.params_from if same else {})
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
            raise ActionInputError("params", f"cannot build the {target!r} LLM: {problems}", params) from None
        except (LLMError, ValueError, TypeError) as exc:
            raise ActionInputError("provider", f"cannot build the {target!r} LLM: {exc}", target) from None

    @tfs_action(
        alias=ActionAlias(resource="llm_reply", resource_op_type="create"),
        description="Playground: send edited messages once, to this LLM or another provider/model/parameters, and "
        "return the exact request sent with the reply (the robot's tools offered when asked or needed, never run; "
        "nothing stored).",
    )
    async def aplay(
        self,
        prepare: Prepare,
        messages: Annotated[
            list[PlayMessage],
            BeforeValidator(_bounded_draft),
            Field(
                min_length=1,
                description=f"system/user/assistant/tool; last: user, or a tool result; at most {PLAY_MESSAGES:,}",
            ),
        ],
        provider: str | None = None,
        model: str | None = None,
        params: dict[str, Any] | None = None,
        offer_tools: Annotated[
            bool,
            Field(
                description="offer the robot's tools (never run), as the step did; always when a message is a tool "
                "call or result, which providers refuse without the tools"
            ),
        ] = False,
    ) -> PlayReply:
        turn = await off_loop(_play_turn, messages)
        llm = self._play_llm(provider, model, params)
        name = provider or self.provider
        tools = None
        if offer_tools or turn.has_tools:  # the robot's tools, as its next turn offers them
            tools = (await prepare(turn.user_input.text() or "?", None)).tools or None
        request = await off_loop(
            llm.construct_request_params, turn.user_input, turn.history, tools, intermediate_msgs=turn.intermediate
        )
        shown = await off_loop(redact, request)
        try:
            reply = await llm.agenerate_request(request, tools)  # the very request shown
        except LLMError as exc:
            error = redact_text(f"{type(exc).__name__}: {exc}")
            return PlayReply(provider=name, model=llm.model, request=shown, error=error)
        return PlayReply(provider=name, model=llm.model, request=shown, message=reply.model_dump(mode="json"))

    @tfs_action(
        alias=ActionAlias(resource="llm", resource_op_type="config"),
        description="Change provider, model and/or parameters (checked by building the LLM; saved; recorded). "
        "`params` replaces the writable settings (temperature, max_tokens, reasoning, scripted rules …); "
        "endpoints, headers, clients and media roots are the robot file's and cannot be set here.",
    )
    async def aset_llm(
        self,
        async_session: AsyncSession,
        principal: Principal,
        provider: Provider = None,
        model: str | None = None,
        params: dict[str, Any] | None = None,
    ) -> ConfigUpdate:
        if provider is None and model is None and params is None:
            raise ActionInputError("provider", "give at least one of provider, model, params", None)
        target = self.provider if provider is None else provider
        if params is not None:
            check_writable(target, params)
        changes: dict[str, Any] = {}
        if provider is not None:
            changes["provider"] = provider
            if provider != self.provider:
                changes["params_from"] = {}  # the robot file's named values are its provider's parameters
        if model is not None:
            changes["model"] = model
        writable = writable_part(self.params if params is None else params)
        changes["params"] = merged(self._deployment(target), writable)
        return await self._change_config(async_session, principal, changes)
