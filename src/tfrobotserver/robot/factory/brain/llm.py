"""The LLM component: which provider and model a robot thinks with, a dry run, and one real call.

`adry_run` answers the seed's debugging question "what exactly would be sent?": the provider
request `ChatLLM.construct_request_params` builds for the robot's conversation plus a new input
(system prompt, recalled history with traces, tools), without any network. `acall` sends that
request once and returns the reply without storing it; a provider error (no key, unreachable,
rate limit …) is part of the result, not a server error. `aset_llm` changes provider, model or
parameters at run time; the change is checked by building the LLM before it is applied.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, PrivateAttr
from sqlalchemy.ext.asyncio import AsyncSession

from tfrobot.brain.chain.llms import ChatLLM, LLMError, ScriptedChat, create_llm
from tfrobot.brain.demo import RULES as DEMO_ROBOT_RULES
from tfrobotserver.actions.alias import ActionAlias
from tfrobotserver.actions.decorator import tfs_action
from tfrobotserver.actions.errors import ActionInputError
from tfrobotserver.actions.injected import ROBOT, Injected, Principal
from tfrobotserver.dtos.base import HttpModel
from tfrobotserver.robot.factory.config_mixin import ConfigUpdate, ConfigurableMixin

RobotRef = Annotated[Any, Injected(ROBOT)]
Message = Annotated[str, Field(min_length=1, description="the new user input")]
ConversationId = Annotated[str | None, Field(description="continue this conversation (its history is recalled)")]


class LLMRequest(HttpModel):
    """The request a turn's first thinking step would send, exactly as the provider SDK gets it."""

    provider: str
    model: str
    request: dict[str, Any]


class LLMReply(HttpModel):
    """One real call's reply (not stored in the conversation), or why the provider refused or failed."""

    provider: str
    model: str
    message: dict[str, Any] | None = None
    error: str | None = None
    """The provider error (`LLMError` subclass name and message) when the call failed: a debugging result."""


def _build(provider: str, model: str | None, params: dict[str, Any]) -> ChatLLM:
    settings = dict(params)
    if provider == ScriptedChat.provider and "rules" not in settings:
        settings["rules"] = DEMO_ROBOT_RULES  # the demo robot's script: tools, then a TFL chart, then the answer
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
    The scripted provider without `rules` plays the demo robot's script (`tfrobot.brain.demo.RULES`)."""
    _llm: ChatLLM | None = PrivateAttr(default=None)

    def _validate_config(self, new: Any) -> None:
        if "api_key" in new.params:
            raise ActionInputError(
                "params.api_key", "keys are not configuration; set the provider's environment variable", "***"
            )
        try:
            _build(new.provider, new.model, new.params)
        except (LLMError, ValueError, TypeError) as exc:  # ValidationError is a ValueError
            raise ActionInputError("params", f"cannot build the {new.provider!r} LLM: {exc}", new.params) from None

    def _config_applied(self) -> None:
        self._llm = None

    async def aclose(self) -> None:
        """Close the LLM's SDK clients (the server stops)."""
        if self._llm is not None:
            await self._llm.aclose()

    def llm(self) -> ChatLLM:
        """The configured `ChatLLM` (built once per configuration)."""
        if self._llm is None:
            self._llm = _build(self.provider, self.model, self.params)
        return self._llm

    @tfs_action(
        alias=ActionAlias(resource="llm_request", resource_op_type="get"),
        description="The exact provider request for the conversation plus a new input (no network).",
    )
    async def adry_run(self, robot: RobotRef, message: Message, conversation_id: ConversationId = None) -> LLMRequest:
        from tfrobotserver.robot.agent import dry_run_request

        llm = self.llm()
        request = await dry_run_request(robot, message, conversation_id, llm)
        return LLMRequest(provider=self.provider, model=llm.model, request=request)

    @tfs_action(
        alias=ActionAlias(resource="llm_reply", resource_op_type="create"),
        description="Send that request once and return the reply (tools are offered but not run; nothing stored).",
    )
    async def acall(self, robot: RobotRef, message: Message, conversation_id: ConversationId = None) -> LLMReply:
        from tfrobotserver.robot.agent import prepared_turn

        chain, history, user_input = await prepared_turn(robot, message, conversation_id)
        llm = self.llm()  # this component's LLM, which may not be the one the robot's agent uses
        try:
            reply = await llm.agenerate(user_input, history, chain.tools or None)
        except LLMError as exc:
            return LLMReply(provider=self.provider, model=llm.model, error=f"{type(exc).__name__}: {exc}")
        return LLMReply(provider=self.provider, model=llm.model, message=reply.model_dump(mode="json"))

    @tfs_action(
        alias=ActionAlias(resource="llm", resource_op_type="config"),
        description="Change provider, model and/or parameters (checked by building the LLM; saved; recorded).",
    )
    async def aset_llm(
        self,
        async_session: AsyncSession,
        principal: Principal,
        provider: str | None = None,
        model: str | None = None,
        params: dict[str, Any] | None = None,
    ) -> ConfigUpdate:
        changes: dict[str, Any] = {}
        if provider is not None:
            changes["provider"] = provider
        if model is not None:
            changes["model"] = model
        if params is not None:
            changes["params"] = params
        if not changes:
            raise ActionInputError("provider", "give at least one of provider, model, params", None)
        return await self._change_config(async_session, principal, changes)
