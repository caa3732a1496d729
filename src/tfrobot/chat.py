"""`tfrobot chat`: talk to a robot in the terminal, watching its trace stream by (Rich)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable

from rich.console import Console
from rich.panel import Panel

from tfrobot.brain.brain import Brain
from tfrobot.brain.chain.events import (
    AssistantStep,
    ChainEvent,
    ConsoleOutput,
    FinalMessage,
    ReasoningToken,
    TokenDelta,
    ToolCallFinished,
    ToolCallStarted,
)
from tfrobot.brain.chain.llms import ChatLLM, create_llm
from tfrobot.brain.demo import demo_chain
from tfrobot.brain.memory import SQLMessageStore
from tfrobot.drive import Confirm
from tfrobot.schema.message import TextMessage, ToolCall

PROVIDER_ENV = "TFROBOT_PROVIDER"
MODEL_ENV = "TFROBOT_MODEL"


def configured_llm(provider: str | None, model: str | None) -> ChatLLM | None:
    """The LLM named by the arguments or `$TFROBOT_PROVIDER`/`$TFROBOT_MODEL`; None means the offline demo."""
    provider = provider or os.environ.get(PROVIDER_ENV) or "scripted"
    if provider == "scripted":
        return None
    model = model or os.environ.get(MODEL_ENV)
    if not model:
        raise ValueError(f"provider {provider!r} needs a model: pass --model or set ${MODEL_ENV}")
    return create_llm(provider, model=model)


class ChatRenderer:
    """Prints chain events as they come: tokens inline, tool calls and console output as they happen."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._line: str | None = None  # what the current line holds: "token", "reasoning" or nothing

    def _newline(self, unless: str | None = None) -> None:
        if self._line is not None and self._line != unless:
            self.console.print()
            self._line = None

    def show(self, event: ChainEvent) -> None:
        match event:
            case TokenDelta():
                self._newline(unless="token")
                self.console.print(event.text, end="", markup=False, highlight=False)
                self._line = "token"
            case ReasoningToken():
                self._newline(unless="reasoning")
                self.console.print(event.text, end="", style="dim italic", markup=False, highlight=False)
                self._line = "reasoning"
            case AssistantStep():
                self._newline()
            case ToolCallStarted():
                self.console.print(f"  → {event.call.name}({event.call.arguments})", style="cyan", markup=False)
            case ToolCallFinished():
                style = "red" if event.result.is_error else "green"
                extra = f"  [+{len(event.result.attachments)} attachment(s)]" if event.result.attachments else ""
                self.console.print(f"  ← {event.result.result}{extra}", style=style, markup=False)
            case ConsoleOutput():
                meta = event.result.trace_meta or {}
                title = "TFL console" if meta.get("ok", True) else "TFL console (error)"
                body = event.result.summary_result or event.result.result
                if event.result.attachments:
                    body += f"\n[{len(event.result.attachments)} attachment(s)]"
                self.console.print(Panel(body, title=title, expand=False), markup=False)
            case FinalMessage():
                self._newline()
                usage = event.message.usage
                tokens = f"{usage.input_tokens} in / {usage.output_tokens} out" if usage else "usage unknown"
                self.console.print(f"[dim]({event.message.finish_reason or 'done'}; {tokens})[/dim]")


class TerminalConfirm:
    """`tfrobot chat`'s `confirm` hook: asks y/N on the terminal before a destructive tool runs. Only `y`
    or `yes` approves; anything else, or no input at all (stdin closed or at its end), refuses."""

    def __init__(self, console: Console) -> None:
        self.console = console

    async def __call__(self, call: ToolCall) -> bool:
        question = f"  ? run {call.name}({call.arguments})? [y/N] "
        try:
            answer = await asyncio.to_thread(self.console.input, question, markup=False)
        except (EOFError, OSError):
            self.console.print(f"  ✗ {call.name} refused: no input to ask on", style="yellow", markup=False)
            return False
        return answer.strip().lower() in {"y", "yes"}


async def chat(
    messages: Iterable[str],
    *,
    console: Console,
    conversation_id: str | None = None,
    llm: ChatLLM | None = None,
    memory_url: str | None = None,
    confirm: Confirm | None = None,
) -> str:
    """Run one turn per message on the SQL store; returns the conversation id (to continue it later).
    `confirm` asks before a call of a `confirm` tool (None: such calls are refused)."""
    store = await SQLMessageStore.open(memory_url)
    brain = Brain(demo_chain(llm, confirm=confirm), store)
    renderer = ChatRenderer(console)
    try:
        for text in messages:
            conversation_id = await _turn(brain, renderer, text, conversation_id)
    finally:
        await store.aclose()
    return conversation_id or ""


async def _turn(brain: Brain, renderer: ChatRenderer, text: str, conversation_id: str | None) -> str:
    user = TextMessage(content=text, conversation_id=conversation_id)
    async for event in brain.stream(user):
        renderer.show(event)
    assert user.conversation_id is not None  # Brain.stream assigns one
    return user.conversation_id
