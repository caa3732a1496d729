"""A robot's agent loop, assembled from its components: the chat endpoint and the LLM dry run use it.

`AgentSpec` (on the `Robot`) names the components: the LLM component gives the `ChatLLM`, the prompt
component the system prompt (its template rendered with its defaults), the conversations component
the `SQLMessageStore`; tools are the demo tools of `tfrobot.brain.demo`, by name. Everything is
built per turn from the components' *current* configuration, so a config change applies to the
next turn without a restart.
"""

from __future__ import annotations

from typing import Any

from tfrobot.brain import Brain
from tfrobot.brain.chain.base import Chain
from tfrobot.brain.chain.llms import ChatLLM
from tfrobot.brain.demo import TOOLS
from tfrobot.drive import Drive
from tfrobot.drive.tfl_registry import DriveToolRegistry
from tfrobot.schema.message import BaseMessage, TextMessage, UserMessage
from tfrobot.tfl import TFLInterpreter
from tfrobotserver.actions.errors import ActionInputError
from tfrobotserver.robot.base import AgentSpec, Robot
from tfrobotserver.robot.factory.brain.conversations import ConversationsComponent
from tfrobotserver.robot.factory.brain.llm import LLMComponent
from tfrobotserver.robot.factory.prompt import PromptComponent


def check_tools(names: list[str] | tuple[str, ...]) -> None:
    """Refuse tool names that are not demo tools (with the list of known ones)."""
    unknown = sorted(set(names) - set(TOOLS))
    if unknown:
        raise ValueError(f"unknown tools {unknown}; known tools: {sorted(TOOLS)}")


def _spec(robot: Robot) -> AgentSpec:
    if robot.agent is None:
        raise ActionInputError(
            "robot", f"robot {robot.name!r} has no agent (no LLM and memory configured): it cannot chat", robot.name
        )
    return robot.agent


def _component(robot: Robot, name: str, kind: type[Any]) -> Any:
    comp = robot.components[name]
    if not isinstance(comp, kind):
        raise TypeError(f"robot {robot.name!r}: component {name!r} is a {type(comp).__name__}, not a {kind.__name__}")
    return comp


def llm_component(robot: Robot) -> LLMComponent:
    """The robot's LLM component."""
    return _component(robot, _spec(robot).llm, LLMComponent)  # type: ignore[no-any-return]


def conversations_component(robot: Robot) -> ConversationsComponent:
    """The robot's conversations component (its memory)."""
    return _component(robot, _spec(robot).conversations, ConversationsComponent)  # type: ignore[no-any-return]


def system_prompt(robot: Robot) -> str | None:
    """The prompt component's template rendered with its defaults (None without a prompt component)."""
    spec = _spec(robot)
    if spec.prompt is None:
        return None
    prompt: PromptComponent = _component(robot, spec.prompt, PromptComponent)
    return prompt.render_default()


def build_chain(robot: Robot) -> Chain:
    """The chain for the next turn, from the components' current configuration."""
    spec = _spec(robot)
    drive = Drive([TOOLS[name] for name in spec.tools])
    return Chain(
        llm_component(robot).llm(),
        drive,
        TFLInterpreter(DriveToolRegistry(drive)),
        max_steps=spec.max_steps,
        system_prompt=system_prompt(robot),
    )


def build_brain(robot: Robot) -> Brain:
    """Chain plus the conversations component's store."""
    return Brain(build_chain(robot), conversations_component(robot).store, recall_turns=_spec(robot).recall_turns)


def new_input(message: str, conversation_id: str | None) -> TextMessage:
    """The user message of a turn (the brain gives it a new conversation id when it has none)."""
    return TextMessage(content=message, conversation_id=conversation_id)


async def prepared_turn(
    robot: Robot, message: str, conversation_id: str | None
) -> tuple[Chain, list[BaseMessage], UserMessage]:
    """The robot's chain, the history its first thinking step sends (system prompt first), and the input:
    recalled and prefixed by the same `Brain.history` and `Chain.prompt_history` a turn uses."""
    brain = build_brain(robot)
    user_input = new_input(message, conversation_id)
    return brain.chain, brain.chain.prompt_history(await brain.history(user_input)), user_input


async def dry_run_request(
    robot: Robot, message: str, conversation_id: str | None, llm: ChatLLM | None = None
) -> dict[str, Any]:
    """The exact request the first thinking step of this turn would send to `llm` (default: the robot's)."""
    chain, history, user_input = await prepared_turn(robot, message, conversation_id)
    return (llm or chain.llm).construct_request_params(user_input, history, chain.tools or None, intermediate_msgs=[])
