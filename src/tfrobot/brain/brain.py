"""`Brain`: a turn with memory. Recall the conversation, run the chain, store the turn with its trace."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

from tfrobot.brain.chain.base import Chain
from tfrobot.brain.chain.events import ChainEvent, FinalMessage
from tfrobot.brain.memory import MessageStore
from tfrobot.schema.message import AssistantTextMessage, UserMessage


class Brain:
    """Seed: "Brain.run(user_input) → memory.recall → construct_prompt_context → … → memory.sync_msg".

    The user message is stored even when the turn fails, with the part of its trace that was produced,
    so the conversation stays consistent and the next turn can go on.
    """

    def __init__(self, chain: Chain, memory: MessageStore, *, recall_turns: int = 20) -> None:
        self.chain = chain
        self.memory = memory
        self.recall_turns = recall_turns

    async def run(self, user_input: UserMessage) -> AssistantTextMessage:
        """One turn; returns the answer (already stored)."""
        final: AssistantTextMessage | None = None
        async for event in self.stream(user_input):
            if isinstance(event, FinalMessage):
                final = event.message
        if final is None:
            raise RuntimeError("the turn ended without an answer")
        return final

    async def stream(self, user_input: UserMessage) -> AsyncIterator[ChainEvent]:
        """One turn as events (tokens, tool calls and results, console output, the final message)."""
        if user_input.conversation_id is None:
            user_input.conversation_id = uuid.uuid4().hex
        history = await self.memory.recall(user_input.conversation_id, last_turns=self.recall_turns)
        history = [msg for msg in history if msg.msg_id != user_input.msg_id]
        final: AssistantTextMessage | None = None
        try:
            async for event in self.chain.astream(user_input, history):
                if isinstance(event, FinalMessage):
                    final = event.message
                yield event
        finally:
            turn = [user_input] if final is None else [user_input, final]
            await self.memory.sync_msgs(turn)
