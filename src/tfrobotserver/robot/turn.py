"""What a component needs to see a turn before it runs: the injected turn preparer (the LLM's dry run).

The agent assembly (`robot.agent`) prepares turns; the LLM component only asks for one through the
server's injection (`Injected(TURN_PREPARER)`), so it does not import the assembler that imports it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
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

    def request(self, llm: ChatLLM) -> dict[str, Any]:
        """The exact request `llm` would be sent for this step (no network)."""
        return llm.construct_request_params(self.user_input, self.history, self.tools or None, intermediate_msgs=[])


TurnPreparer = Callable[[str, str | None], Awaitable[PreparedTurn]]
"""`prepare(message, conversation_id)`: the robot's next turn for that input, prepared but not run."""
