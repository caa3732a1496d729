"""The planning brain (seed: `DCBrain.plan` / `DCChains.plan_validate`).

The LLM is asked for a TFL plan first; the plan is validated by the interpreter *before* anything runs,
and a plan that does not validate goes back to the LLM with the interpreter's error as a console
message, up to `max_plan_attempts` times. A valid plan runs; its console output, like every validation
report, is a `role="console"` message in the trace. Then the LLM answers from the results.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from pydantic import JsonValue

from tfrobot.brain.brain import Brain
from tfrobot.brain.chain.base import Chain, StepMark, scripts_of
from tfrobot.brain.chain.events import ChainEvent, ConsoleOutput
from tfrobot.brain.chain.llms import ChatLLM
from tfrobot.brain.memory import MessageStore
from tfrobot.drive import Drive
from tfrobot.drive.tfl_registry import DriveToolRegistry
from tfrobot.schema.brain.chain.chain_schema import ChainContext
from tfrobot.schema.message import AssistantTextMessage, BaseMessage, ConsoleResult, UserMessage
from tfrobot.tfl import TFLInterpreter

PLAN_PROMPT = (
    "Plan before you act: answer with a TFL script in a ```tfl code block that calls the tools you need and "
    "prints what the answer requires. It is checked before it runs; if it is rejected you will see why."
)


class DCChains(Chain):
    """A chain whose every script is validated before it runs, and whose first reply must be a plan."""

    def __init__(
        self,
        llm: ChatLLM,
        drive: Drive | None = None,
        interpreter: TFLInterpreter | None = None,
        *,
        max_steps: int = 8,
        max_plan_attempts: int = 3,
        stream: bool = True,
        system_prompt: str | None = PLAN_PROMPT,
    ) -> None:
        drive = drive or Drive()
        # plans call the drive's tools: by default the interpreter sees exactly those
        interpreter = interpreter or TFLInterpreter(DriveToolRegistry(drive))
        super().__init__(llm, drive, interpreter, max_steps=max_steps, stream=stream, system_prompt=system_prompt)
        self.interpreter: TFLInterpreter = interpreter
        self.max_plan_attempts = max_plan_attempts

    def plan_validate(self, scripts: Sequence[str]) -> ConsoleResult | None:
        """None when every script may run; otherwise the interpreter's report of every problem found."""
        problems: list[str] = []
        for index, script in enumerate(scripts):
            for error in self.interpreter.validate(script):
                problems.append(f"script {index + 1}: {error.render(script)}")
        if not problems:
            return None
        return ConsoleResult(
            result="The plan was rejected before it ran:\n" + "\n".join(problems),
            summary_result=f"plan rejected: {len(problems)} problem(s)",
            script="\n\n".join(scripts),
            trace_meta={"ok": False, "stage": "plan_validate", "problems": list[JsonValue](problems)},
        )

    async def aplan(
        self, user_input: UserMessage, history: Sequence[BaseMessage] = ()
    ) -> tuple[list[str] | None, list[BaseMessage]]:
        """Ask for a plan and validate it without running anything (seed: `DCBrain.plan`).

        Returns the scripts that passed `plan_validate` (None when every attempt was rejected or the LLM
        wrote no script) and the messages of the attempts — replies and rejection reports — in order.
        """
        history = self.prompt_history(history)
        attempts: list[BaseMessage] = []
        for _ in range(self.max_plan_attempts):
            reply = await self.llm.agenerate(user_input, history, self.tools or None, intermediate_msgs=list(attempts))
            reply.conversation_id = user_input.conversation_id
            attempts.append(reply)
            scripts = scripts_of(reply)
            if not scripts:
                return None, attempts
            rejected = self.plan_validate(scripts)
            if rejected is None:
                return scripts, attempts
            attempts.append(
                BaseMessage(role="console", console_reses=[rejected], conversation_id=user_input.conversation_id)
            )
        return None, attempts

    async def _do(
        self, reply: AssistantTextMessage, ctx: ChainContext, marks: list[StepMark], step: int
    ) -> AsyncIterator[ChainEvent]:
        scripts = scripts_of(reply)
        rejected = self.plan_validate(scripts) if scripts else None
        if rejected is None:
            async for event in super()._do(reply, ctx, marks, step):
                yield event
            return
        attempt = 1 + sum(mark.source == "plan_validate" for mark in marks)
        if attempt >= self.max_plan_attempts:
            rejected.result += f"\nThat was attempt {attempt} of {self.max_plan_attempts}: now answer without a plan."
        ctx.intermediate_msgs.append(
            BaseMessage(role="console", console_reses=[rejected], conversation_id=reply.conversation_id)
        )
        marks.append(StepMark("plan_validate", step))
        yield ConsoleOutput(step=step, result=rejected)


class DCBrain(Brain):
    """A `Brain` whose chain plans in TFL first (`DCChains`)."""

    def __init__(self, chain: DCChains, memory: MessageStore, *, recall_turns: int = 20) -> None:
        super().__init__(chain, memory, recall_turns=recall_turns)
        self.chain: DCChains = chain

    async def aplan(self, user_input: UserMessage) -> tuple[list[str] | None, list[BaseMessage]]:
        """The validated plan for `user_input` with its conversation recalled; nothing runs, nothing is stored."""
        return await self.chain.aplan(user_input, await self.ahistory(user_input))
