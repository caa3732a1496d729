"""`Brain`: a turn with memory. Recall the conversation, run the chain, store the turn with its trace."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

from tfrobot.brain.chain.base import Chain
from tfrobot.brain.chain.events import ChainEvent, FinalMessage, final_message
from tfrobot.brain.chain.llms import describe
from tfrobot.brain.memory import MessageStore
from tfrobot.schema.message import AssistantTextMessage, BaseMessage, UserMessage


class Brain:
    """Seed: "Brain.run(user_input) → memory.recall → construct_prompt_context → … → memory.sync_msg".

    The user message is stored even when the turn fails, with the part of its trace that was produced and
    the typed reason in `intermediate_trace.failure` (`TurnFailure`), so the conversation stays consistent,
    its history shows what failed and why, and the next turn can go on: its request carries the failed
    question and the partial trace, repaired by the LLM layer's normalization pass like any history (a
    tool call left without a result gets one saying it was interrupted).
    """

    def __init__(self, chain: Chain, memory: MessageStore, *, recall_turns: int = 20) -> None:
        self.chain = chain
        self.memory = memory
        self.recall_turns = recall_turns

    async def arun(self, user_input: UserMessage) -> AssistantTextMessage:
        """One turn; returns the answer (already stored)."""
        return await final_message(self.astream(user_input))

    async def ahistory(self, user_input: UserMessage) -> list[BaseMessage]:
        """What a turn for `user_input` recalls: the last `recall_turns` turns of its conversation, without
        the input itself (none without a conversation id)."""
        if user_input.conversation_id is None:
            return []
        history = await self.memory.recall(user_input.conversation_id, last_turns=self.recall_turns)
        return [msg for msg in history if msg.msg_id != user_input.msg_id]

    async def astream(self, user_input: UserMessage) -> AsyncIterator[ChainEvent]:
        """One turn as events (tokens, tool calls and results, console output, the final message)."""
        if user_input.conversation_id is None:
            user_input.conversation_id = uuid.uuid4().hex
        history = await self.ahistory(user_input)
        final: AssistantTextMessage | None = None
        stopped_by: BaseException = GeneratorExit()  # what ended the turn, when it did not end with an answer
        try:
            async for event in self.chain.astream(user_input, history):
                if isinstance(event, FinalMessage):
                    final = event.message
                yield event
        except BaseException as exc:  # also a cancelled task or a consumer that stopped reading: all stored
            stopped_by = exc
            raise
        finally:
            if final is None:
                user_input.intermediate_trace.failure = describe(stopped_by)
            turn = [user_input] if final is None else [user_input, final]
            await self.memory.sync_msgs(turn)
