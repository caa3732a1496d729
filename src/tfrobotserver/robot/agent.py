"""A robot's agent loop, assembled from its components: the chat endpoint and the LLM dry run use it.

`AgentSpec` (on the `Robot`) names the components: the LLM component gives the `ChatLLM`, the prompt
component the system prompt (its template rendered with its defaults), the conversations component
the `SQLMessageStore`, the tools component the tools (built-ins, Python callables, MCP servers — as
its robot file names them). Everything is built per turn from the components' *current*
configuration and tool listings, so a config change or a server's new tools apply to the next turn
without a restart. Nothing here knows the demo: it is a robot file like any other.
"""

from __future__ import annotations

from typing import Any

from tfrobot.brain import Brain
from tfrobot.brain.chain.base import FAILED_CALL, Chain
from tfrobot.brain.chain.llms import ChatLLM
from tfrobot.brain.memory import ConversationNotFound
from tfrobot.drive import Confirm, Drive
from tfrobot.drive.tfl_registry import DriveToolRegistry
from tfrobot.schema.message import (
    TRACE_META_KEY,
    AssistantTextMessage,
    BaseMessage,
    IntermediateTrace,
    TextMessage,
    UserMessage,
)
from tfrobot.tfl import TFLInterpreter
from tfrobotserver.actions.errors import ActionInputError, ActionNotFoundError
from tfrobotserver.robot.base import AgentSpec, Robot
from tfrobotserver.robot.factory.brain.conversations import ConversationsComponent
from tfrobotserver.robot.factory.brain.llm import LLMComponent
from tfrobotserver.robot.factory.prompt import PromptComponent
from tfrobotserver.robot.tools import ToolsComponent
from tfrobotserver.robot.turn import PreparedTurn


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


def tools_component(robot: Robot) -> ToolsComponent | None:
    """The robot's tools component (None: it has no tools)."""
    name = _spec(robot).tools
    return None if name is None else _component(robot, name, ToolsComponent)


def system_prompt(robot: Robot) -> str | None:
    """The prompt component's template rendered with its defaults (None without a prompt component)."""
    spec = _spec(robot)
    if spec.prompt is None:
        return None
    prompt: PromptComponent = _component(robot, spec.prompt, PromptComponent)
    return prompt.render_default()


def build_chain(robot: Robot, confirm: Confirm | None = None) -> Chain:
    """The chain for the next turn, from the components' current configuration. `confirm` asks the user
    before a call of a `confirm` tool (None: such calls are refused with a result that says why)."""
    spec = _spec(robot)
    tools = tools_component(robot)
    drive = Drive(tools.catalog.tools() if tools is not None else (), confirm_timeout=spec.confirm_timeout)
    return Chain(
        llm_component(robot).llm(),
        drive,
        TFLInterpreter(DriveToolRegistry(drive)),
        max_steps=spec.max_steps,
        system_prompt=system_prompt(robot),
        confirm=confirm,
        name=robot.name,
    )


def build_brain(robot: Robot, confirm: Confirm | None = None) -> Brain:
    """Chain plus the conversations component's store."""
    chain = build_chain(robot, confirm)
    return Brain(chain, conversations_component(robot).store, recall_turns=_spec(robot).recall_turns)


def new_input(message: str, conversation_id: str | None) -> TextMessage:
    """The user message of a turn (the brain gives it a new conversation id when it has none)."""
    return TextMessage(content=message, conversation_id=conversation_id)


async def prepared_turn(robot: Robot, message: str, conversation_id: str | None) -> PreparedTurn:
    """The robot's next turn for `message`, prepared but not run: the tools, the history its first thinking
    step sends (recalled and prefixed by the same `Brain.ahistory` and `Chain.prompt_history` a turn uses),
    the input. The server injects this as the `TurnPreparer` of the LLM component's dry run."""
    brain = build_brain(robot)
    user_input = new_input(message, conversation_id)
    history = brain.chain.prompt_history(await brain.ahistory(user_input))
    return PreparedTurn(brain.chain.tools, history, user_input)


async def prepared_step(robot: Robot, conversation_id: str, msg_id: str, step: int) -> PreparedTurn:
    """LLM step `step` (0-based, as the trace marks it) of the stored turn user message `msg_id` started: the
    turns before it (the last `recall_turns`, as that turn recalled them) behind the current system prompt, the
    input without its trace, and the thinking and doing of the steps before `step`. The server injects this as
    the `StepPreparer` of the LLM component's request view; what it builds is re-rendered, not what was sent."""
    brain = build_brain(robot)
    try:
        stored = await brain.memory.recall(conversation_id)
    except ConversationNotFound:
        stored = []
    at = next((i for i, m in enumerate(stored) if m.msg_id == msg_id and isinstance(m, UserMessage)), None)
    if at is None:
        raise ActionNotFoundError(
            "msg_id", f"conversation {conversation_id!r} of robot {robot.name!r} has no turn {msg_id!r}", msg_id
        )
    user = stored[at]
    assert isinstance(user, UserMessage)  # found as one above
    records = user.intermediate_trace.ordered()
    steps = sorted({s for r in records if isinstance(s := _mark(r).get("step"), int)})
    last = (steps[-1] + 1) if steps else 0  # the answer's step, or the one a failed turn stopped in
    if records and _failed_call(records[-1]):
        last = _step_of(records[-1])  # the call that failed is recorded: it was the turn's last step
    if not 0 <= step <= last:
        raise ActionInputError("step", f"turn {msg_id!r} has LLM steps 0 to {last}", step)
    before = [r for r in records if _step_of(r) < step]
    user_input = user.model_copy(update={"intermediate_trace": IntermediateTrace()})
    history = brain.chain.prompt_history(_last_turns(stored[:at], brain.recall_turns))
    return PreparedTurn(brain.chain.tools, history, user_input, before)


def _mark(msg: BaseMessage) -> dict[str, Any]:
    mark = msg.additional_kwargs.get(TRACE_META_KEY)
    return mark if isinstance(mark, dict) else {}


def _failed_call(msg: BaseMessage) -> bool:
    """Whether `msg` is the trace record of an LLM call that raised (`Chain._record_failed_call`)."""
    return isinstance(msg, AssistantTextMessage) and msg.finish_reason == FAILED_CALL


def _step_of(msg: BaseMessage) -> int:
    step = _mark(msg).get("step")
    return step if isinstance(step, int) else 0


def _last_turns(history: list[BaseMessage], turns: int) -> list[BaseMessage]:
    """The messages of the last `turns` turns of `history` (a turn starts at a user message)."""
    starts = [i for i, m in enumerate(history) if m.role == "user"]
    if len(starts) <= turns:
        return history
    return history[starts[-turns] :] if turns > 0 else []


async def dry_run_request(
    robot: Robot, message: str, conversation_id: str | None, llm: ChatLLM | None = None
) -> dict[str, Any]:
    """The exact request the first thinking step of this turn would send to `llm` (default: the robot's)."""
    turn = await prepared_turn(robot, message, conversation_id)
    return turn.request(llm or llm_component(robot).llm())
