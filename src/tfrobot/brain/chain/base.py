"""`Chain`: one turn of thinking (the LLM) and doing (tools, TFL scripts) until an answer.

Seed, "中间消息的生产-消费-持久化": thinking produces `AssistantTextMessage`s, doing produces
`BaseMessage(role="tool")` and `BaseMessage(role="console")`; all go to `ChainContext.intermediate_msgs`,
and `_batch_append_to_trace` copies them, marked, into the user message's trace when the turn ends, also
when it ends in an error, so a failed turn is stored with what it did. Each mark carries its step's timing
(`StepTiming`: when it started, how long it took, each tool call's time); the answer carries the timing of
the LLM call that wrote it in the same mark, so every LLM call, tool call and TFL run of a turn is timed.
An LLM call that raises is a step too: an empty reply naming the model, marked `FAILED_CALL`, with its timing.
"""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import cast

from pydantic import JsonValue

from tfrobot.brain.chain.events import (
    AssistantStep,
    ChainEvent,
    ConfirmationRequested,
    ConsoleOutput,
    FinalMessage,
    ReasoningToken,
    TokenDelta,
    ToolCallFinished,
    ToolCallStarted,
    final_message,
)
from tfrobot.brain.chain.llms import ChatLLM, MessageAssembler, ReasoningDelta, RequestBuilder, TextDelta
from tfrobot.drive import Confirm, Drive
from tfrobot.schema.brain.chain.chain_schema import ChainContext
from tfrobot.schema.message import (
    TRACE_META_KEY,
    AssistantTextMessage,
    BaseMessage,
    ConsoleResult,
    StepTiming,
    UserMessage,
)
from tfrobot.schema.message.base import now_ms
from tfrobot.schema.tool_definition import ToolDefinition
from tfrobot.telemetry import traced_chat, traced_turn
from tfrobot.tfl import TFLInterpreter, seconds_of

FAILED_CALL = "call_failed"
"""`finish_reason` of the trace record of an LLM call that raised instead of replying (`Chain._record_failed_call`)."""

_TFL_BLOCK = re.compile(r"```tfl[ \t]*\n(.*?)```", re.DOTALL)


@dataclass
class StepMark:
    """How one intermediate message of the turn is marked in the trace: where it came from and when it ran
    (chains that add steps of their own, as `DCChains` does, append one per message they add)."""

    source: str
    step: int
    timing: StepTiming = field(default_factory=lambda: StepTiming())


class _Clock:
    """Times one step: its start on the `create_ts` clock, its duration on a monotonic one."""

    def __init__(self) -> None:
        self.started_at = now_ms()
        self._t0 = time.perf_counter()

    def timing(self, *, provider: str | None = None, call_ms: dict[str, int] | None = None) -> StepTiming:
        out = StepTiming(started_at=self.started_at, duration_ms=round((time.perf_counter() - self._t0) * 1000))
        if provider:
            out["provider"] = provider
        if call_ms is not None:
            out["call_ms"] = call_ms
        return out


def scripts_of(reply: AssistantTextMessage) -> list[str]:
    """The TFL scripts of a reply: its `tfl_scripts`, else the ```tfl blocks a real LLM wrote in its text."""
    if reply.tfl_scripts:
        return list(reply.tfl_scripts)
    return [block.strip() for block in _TFL_BLOCK.findall(reply.content or "") if block.strip()]


class Chain:
    """Thinking and doing until the LLM answers without calls or scripts, or `max_steps` rounds pass.

    `tfl_turn_seconds` bounds the wall time of all the TFL scripts of one turn together: each script has
    its own limit (`TFLLimits.max_seconds`), but a reply may carry several and a turn has up to `max_steps`
    replies; once the budget is spent, further scripts of the turn report that instead of running.
    """

    def __init__(
        self,
        llm: ChatLLM,
        drive: Drive | None = None,
        interpreter: TFLInterpreter | None = None,
        *,
        max_steps: int = 8,
        stream: bool = True,
        system_prompt: str | None = None,
        tfl_turn_seconds: float = 60.0,
        confirm: Confirm | None = None,
        name: str | None = None,
    ) -> None:
        if max_steps < 1:
            raise ValueError(f"max_steps must be at least 1, got {max_steps}")
        if not tfl_turn_seconds > 0:
            raise ValueError(f"tfl_turn_seconds must be positive, got {tfl_turn_seconds}")
        self.llm = llm
        self.drive = drive or Drive()
        self.interpreter = interpreter
        self.max_steps = max_steps
        self.stream = stream
        self.system_prompt = system_prompt
        self.tfl_turn_seconds = tfl_turn_seconds
        self.confirm = confirm
        """Asks the user before a call of a `confirm=True` tool runs (None: such calls are refused)."""
        self.name = name
        """The agent this chain is (a served robot's name): `gen_ai.agent.name` of its turns' spans."""

    @property
    def tools(self) -> list[ToolDefinition]:
        return self.drive.specs

    async def arun(self, user_input: UserMessage, history: Sequence[BaseMessage] = ()) -> AssistantTextMessage:
        """Run the turn and return its answer (the trace is in `user_input.intermediate_trace`)."""
        return await final_message(self.astream(user_input, history))

    def prompt_history(self, history: Sequence[BaseMessage]) -> list[BaseMessage]:
        """The history the LLM is sent: the system prompt (if any) first, then `history`."""
        if not self.system_prompt:
            return list(history)
        return [BaseMessage(role="system", content=self.system_prompt, create_ts=0), *history]

    def astream(self, user_input: UserMessage, history: Sequence[BaseMessage] = ()) -> AsyncIterator[ChainEvent]:
        """The turn as events; the last one is the `FinalMessage`. Traced as an `invoke_agent` span when
        telemetry is on (`tfrobot.telemetry`)."""
        return traced_turn(self._astream(user_input, history), self.llm, user_input, self.name)

    async def _astream(self, user_input: UserMessage, history: Sequence[BaseMessage]) -> AsyncIterator[ChainEvent]:
        ctx = ChainContext()
        marks: list[StepMark] = []
        history = self.prompt_history(history)
        requests = self.llm.request_builder(user_input, history)  # the history converted once for the turn
        final: AssistantTextMessage | None = None
        try:
            for step in range(self.max_steps):
                reply: AssistantTextMessage | None = None
                clock, thought = _Clock(), StepTiming()
                thinking = self._think(user_input, requests, ctx, step)
                try:
                    async for event in traced_chat(thinking, self.llm, history, user_input, ctx.intermediate_msgs):
                        if isinstance(event, AssistantStep):
                            reply = event.message
                            thought = clock.timing(provider=self.llm.provider)
                        yield event
                except BaseException:
                    if reply is None:  # no reply yet: the call failed or was cut off (not a later consumer)
                        self._record_failed_call(user_input, ctx, marks, step, clock)
                    raise
                if reply is None:  # _think always ends with the assistant step
                    raise RuntimeError("thinking produced no message")
                scripts = scripts_of(reply)
                if scripts and not reply.tfl_scripts:
                    reply.tfl_scripts = scripts
                if not reply.tool_calls and not (scripts and self.interpreter is not None):
                    final = reply
                    final.additional_kwargs[TRACE_META_KEY] = cast(
                        JsonValue, {"source": "thinking", "step": step, **thought}
                    )
                    break
                ctx.intermediate_msgs.append(reply)
                marks.append(StepMark("thinking", step, thought))
                async for event in self._do(reply, ctx, marks, step):
                    yield event

            else:
                final = AssistantTextMessage(
                    content=f"I stopped after {self.max_steps} steps without reaching an answer.",
                    finish_reason="step_limit",
                    conversation_id=user_input.conversation_id,
                )
            yield FinalMessage(step=len(marks), message=final)
        finally:
            self._batch_append_to_trace(user_input, ctx, marks)

    async def _think(
        self, user_input: UserMessage, requests: RequestBuilder, ctx: ChainContext, step: int
    ) -> AsyncIterator[ChainEvent]:
        """One LLM call: the step's request from the turn's builder (the converted history reused), sent."""
        tools = self.tools or None
        request = requests.build(ctx.intermediate_msgs, tools)
        if self.stream:
            assembler = MessageAssembler()
            try:
                async for delta in self.llm.astream_request(request, tools):
                    assembler.add(delta)
                    if isinstance(delta, TextDelta):
                        yield TokenDelta(step=step, text=delta.text)
                    elif isinstance(delta, ReasoningDelta):
                        yield ReasoningToken(step=step, text=delta.text)
                reply = assembler.message()
            except NotImplementedError:  # a provider without async streaming: one plain call
                reply = await self.llm.agenerate_request(request, tools)
        else:
            reply = await self.llm.agenerate_request(request, tools)
        reply.conversation_id = user_input.conversation_id
        yield AssistantStep(step=step, message=reply)

    async def _do(
        self, reply: AssistantTextMessage, ctx: ChainContext, marks: list[StepMark], step: int
    ) -> AsyncIterator[ChainEvent]:
        conversation_id = reply.conversation_id
        if reply.tool_calls:
            for call in reply.tool_calls:
                yield ToolCallStarted(step=step, call=call)
            for call in self.drive.needs_confirmation(reply.tool_calls) if self.confirm is not None else ():
                yield ConfirmationRequested(step=step, call=call)
            clock, call_ms = _Clock(), dict[str, int]()
            tool_msg = await self.drive.aexecute(
                reply.tool_calls, conversation_id=conversation_id, confirm=self.confirm, call_ms=call_ms
            )
            ctx.intermediate_msgs.append(tool_msg)
            marks.append(StepMark("doing", step, clock.timing(call_ms=call_ms)))
            for returned in tool_msg.tool_reses or ():
                if not isinstance(returned, str):
                    yield ToolCallFinished(step=step, result=returned)
        if reply.tfl_scripts and self.interpreter is not None:
            spent = seconds_of(r for m in ctx.intermediate_msgs if m.role == "console" for r in m.console_reses or ())
            clock = _Clock()
            console_msg = await self.interpreter.aexecute(
                reply.tfl_scripts, conversation_id=conversation_id, max_seconds=self.tfl_turn_seconds - spent
            )
            ctx.intermediate_msgs.append(console_msg)
            marks.append(StepMark("console", step, clock.timing()))
            for printed in console_msg.console_reses or ():
                if isinstance(printed, ConsoleResult):
                    yield ConsoleOutput(step=step, result=printed)

    def _record_failed_call(
        self, user_input: UserMessage, ctx: ChainContext, marks: list[StepMark], step: int, clock: _Clock
    ) -> None:
        """Keep an LLM call that raised (refused, unreachable, cut off) as a step of the turn: an empty reply
        naming the model, with `finish_reason` `FAILED_CALL` and the call's timing, so the stored turn shows
        which call failed, when and after how long, and its request can be rebuilt. Being empty, the record
        is dropped from later requests by the LLM layer's normalization (an empty assistant message)."""
        failed = AssistantTextMessage(
            model=f"{self.llm.provider}:{self.llm.model}",
            finish_reason=FAILED_CALL,
            conversation_id=user_input.conversation_id,
        )
        ctx.intermediate_msgs.append(failed)
        marks.append(StepMark("thinking", step, clock.timing(provider=self.llm.provider)))

    @staticmethod
    def _batch_append_to_trace(user_input: UserMessage, ctx: ChainContext, marks: list[StepMark]) -> None:
        """Copy the turn's intermediate messages, marked with their source, step and timing, into the trace."""
        for msg, mark in zip(ctx.intermediate_msgs, marks, strict=True):
            user_input.intermediate_trace.append(msg, source=mark.source, step=mark.step, timing=mark.timing)
