"""What a component needs to see a turn before it runs: the injected turn preparer (the LLM's dry run), and
the step preparer that rebuilds what a stored turn's LLM call was sent (the trace explorer's request view).

The agent assembly (`robot.agent`) prepares turns; the LLM component only asks for one through the
server's injection (`Injected(TURN_PREPARER)`, `Injected(STEP_PREPARER)`), so it does not import the
assembler that imports it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from tfrobot.brain.chain.llms import ChatLLM
from tfrobot.schema.message import BaseMessage, UserMessage
from tfrobot.schema.tool_definition import ToolDefinition


@dataclass(frozen=True)
class PreparedTurn:
    """A turn's first thinking step before it runs: the tools offered, the history sent, the input."""

    tools: list[ToolDefinition]
    history: list[BaseMessage]
    """Recalled and prefixed (system prompt first) the way a turn does it."""
    user_input: UserMessage
    intermediate: list[BaseMessage] = field(default_factory=list)
    """The turn's thinking and doing before this step (none for a turn's first step)."""

    def request(self, llm: ChatLLM) -> dict[str, Any]:
        """The exact request `llm` would be sent for this step (no network)."""
        return llm.construct_request_params(
            self.user_input, self.history, self.tools or None, intermediate_msgs=list(self.intermediate)
        )


TurnPreparer = Callable[[str, str | None], Awaitable[PreparedTurn]]
"""`prepare(message, conversation_id)`: the robot's next turn for that input, prepared but not run."""

StepPreparer = Callable[[str, str, int], Awaitable[PreparedTurn]]
"""`prepare(conversation_id, msg_id, step)`: LLM step `step` of the stored turn that user message `msg_id`
started, rebuilt from the stored history and trace as the robot would send it now (its current system prompt
and tools)."""
