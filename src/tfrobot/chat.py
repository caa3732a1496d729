"""`tfrobot chat`: talk to a robot in the terminal, watching its trace stream by (Rich).

The framework half: rendering a turn's events and running turns one after another on a `Brain`. A turn
that fails prints what failed and the fix in one or two lines (no traceback) and the session goes on in
the same conversation (the failed turn is stored with it). The robot itself — its tools, provider,
prompt and store — is built by the server's robot builder (`tfrobotserver.terminal`), so the terminal
and the console chat with the same robot, in the same store.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from rich.console import Console
from rich.markup import escape
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
from tfrobot.brain.chain.llms import LLMError, describe
from tfrobot.brain.memory import ConversationNotFound
from tfrobot.schema.message import TextMessage, ToolCall


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

    def failed(self, summary: str) -> None:
        """A failed turn: what failed, then the fix, in red (one or two lines, no traceback)."""
        self._newline()
        first, _, fix = summary.partition("\nFix: ")
        self.console.print(f"[red]✗ {escape(first)}[/red]", soft_wrap=True)
        if fix:
            self.console.print(f"[yellow]  fix: {escape(fix)}[/yellow]", soft_wrap=True)


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


class Session:
    """The conversation a terminal session writes to (None until its first turn gives it an id)."""

    def __init__(self, conversation_id: str | None = None) -> None:
        self.conversation_id = conversation_id
        self.last_failed = False
        """Whether the last turn failed (or could not run): `tfrobot chat` then exits 1, for scripts."""


async def chat(messages: Iterable[str], *, console: Console, brain: Brain, session: Session) -> None:
    """Run one turn per message on `brain`; a failed turn is printed and the next message goes on in the same
    conversation. Stops early for a conversation that cannot be continued here (another robot's)."""
    renderer = ChatRenderer(console)
    for text in messages:
        user = TextMessage(content=text, conversation_id=session.conversation_id)
        session.last_failed = True
        try:
            async for event in brain.astream(user):
                renderer.show(event)
            session.last_failed = False
        except ConversationNotFound as exc:
            console.print(f"[red]✗ {escape(str(exc))}[/red]", soft_wrap=True)
            session.conversation_id = None  # nothing of it to continue here
            return
        except LLMError as exc:
            renderer.failed(describe(exc).summary())
        except Exception as exc:  # a bug or an outage: one line, the session goes on
            renderer.failed(f"{type(exc).__name__}: {exc}")
        except BaseException:  # Ctrl-C: the interrupted turn is stored; its conversation is printed on exit
            session.conversation_id = user.conversation_id
            raise
        session.conversation_id = user.conversation_id  # the brain gave it one, and stored the turn
