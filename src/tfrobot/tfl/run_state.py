"""The state of one TFL run: its clock, counters, output and attachments, and the `ConsoleResult` it becomes.

The limits of `TFLLimits` are enforced here (steps, wall time, output, attachments) as the evaluator calls
`tick`, `check_clock`, `write` and `emit`; `result` turns the run, successful or not, into the console result the
LLM reads next (errors shown with line and caret, a summary that always keeps the error).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
from collections.abc import Sequence

from tfrobot.schema.message.console import ConsoleResult
from tfrobot.schema.message.msg_part import MsgPart
from tfrobot.schema.types import AttributeValue
from tfrobot.tfl.errors import TFLError
from tfrobot.tfl.limits import TFLLimits
from tfrobot.tfl.nodes import Span
from tfrobot.tfl.tool_registry import TFLToolRegistry
from tfrobot.tfl.values import Budget, fail, render, render_prefix

__all__ = ["RunState"]

_YIELD_SECONDS = 0.002
"""Evaluation time between two voluntary releases of the GIL (`time.sleep(0)`): an event loop waiting for it
gets it then, instead of after the interpreter's 5 ms switch interval."""


class RunState:
    """The state of one run: variables, output, attachments and the counters behind the limits."""

    def __init__(
        self,
        tools: TFLToolRegistry,
        limits: TFLLimits,
        home: asyncio.AbstractEventLoop,
        seconds: float,
        *,
        turn_limited: bool,
    ) -> None:
        self.tools = tools
        self.limits = limits
        self.budget = Budget(self.limits)
        self.home = home
        """The caller's loop: tools run there, the script on a worker thread."""
        self.seconds = seconds
        self.turn_limited = turn_limited
        self.started = time.monotonic()
        self.deadline = self.started + seconds
        self.stopped = False
        self.yielded = self.started
        self.pending: concurrent.futures.Future[object] | None = None
        self.vars: dict[str, object] = {}
        self.output: list[str] = []
        self.output_chars = 0
        self.attachments: list[MsgPart] = []
        self.steps = 0
        self.tool_calls = 0

    def begin(self) -> None:
        """Start the clock: on the worker, when the script starts (not while it waited for a worker)."""
        self.started = time.monotonic()
        self.deadline = self.started + self.seconds

    def stop(self) -> None:
        """The caller gave up (its task was cancelled): end at the next step, and drop a pending tool call."""
        self.stopped = True
        pending = self.pending
        if pending is not None:
            pending.cancel()

    def time_limit(self) -> str:
        """The message of the wall-time limit, saying when it was the turn's budget that ran out."""
        message = f"time limit: the script ran longer than {self.seconds:g} s"
        return f"{message} (what was left of this turn's time budget for scripts)" if self.turn_limited else message

    # ---- result ---------------------------------------------------------------------------------

    def result(self, script: str, errors: list[TFLError]) -> ConsoleResult:
        """The console result of this run, successful when `errors` is empty."""
        output = "".join(self.output)
        meta: dict[str, AttributeValue] = {
            "ok": not errors,
            "steps": self.steps,
            "duration_ms": round((time.monotonic() - self.started) * 1000, 3),
            "tool_calls": self.tool_calls,
            "output_chars": self.output_chars,
        }
        if not errors:
            text = output.removesuffix("\n")
            return ConsoleResult(
                result=text,
                summary_result=self.summary(text),
                attachments=list(self.attachments),
                script=script,
                trace_meta=meta,
            )
        meta["error"] = errors[0].meta()
        if len(errors) > 1:
            meta["errors"] = [e.meta() for e in errors]
        report = "\n".join(e.render(script) for e in errors)
        first = errors[0].render(script)
        if len(first) > self.limits.summary_chars // 2:
            first = errors[0].headline()[: self.limits.summary_chars // 2]
        return ConsoleResult(
            result=_joined(output, report),
            summary_result=_joined(self.summary(output, len(first) + 1), first) if output else self.summary(report),
            attachments=list(self.attachments),
            script=script,
            trace_meta=meta,
        )

    def summary(self, text: str, reserve: int = 0) -> str:
        """`text` itself when short; else its head and tail around a count of what was left out.

        `reserve` characters are kept free for what follows (the error report of a failed run), so that
        the error always survives the cut."""
        limit = max(self.limits.summary_chars - reserve, 0)
        if len(text) <= limit:
            return text
        marker = "\n… [{:,} characters omitted] …\n"
        room = max(limit - len(marker.format(len(text))), 0)
        head, tail = (room * 2) // 3, room // 3
        omitted = len(text) - head - tail
        return f"{text[:head]}{marker.format(omitted)}{text[len(text) - tail :]}"

    # ---- limits ---------------------------------------------------------------------------------

    def tick(self, span: Span) -> None:
        """One evaluation step: counted against `max_steps`, and the wall clock checked."""
        self.steps += 1
        if self.steps > self.limits.max_steps:
            raise fail(
                "limit",
                f"step limit: the script ran more than {self.limits.max_steps:,} steps; loop over fewer items",
                span,
            )
        self.check_clock(span)

    def check_clock(self, span: Span) -> None:
        """Stop at the time limit, or when the caller gave up; now and then let another thread run."""
        now = time.monotonic()
        if now > self.deadline:
            raise fail("timeout", self.time_limit(), span)
        if self.stopped:
            raise fail("timeout", "stopped: the turn that ran this script was cancelled", span)
        if now - self.yielded > _YIELD_SECONDS:
            time.sleep(0)
            self.yielded = now

    def write(self, text: str, span: Span) -> None:
        """Append to the output; past `max_output_chars` the visible part is kept and the run stops."""
        room = self.limits.max_output_chars - self.output_chars
        if len(text) > room:
            self.output.append(text[: max(room, 0)])
            self.output_chars += max(room, 0)
            raise fail(
                "limit",
                f"output limit: the script printed more than {self.limits.max_output_chars:,} characters; "
                "print summaries or the first items instead",
                span,
            )
        self.output.append(text)
        self.output_chars += len(text)

    def emit(self, values: Sequence[object], sep: str, span: Span) -> None:
        """Print `values` as one line; a value too long for the remaining room is cut there, and stops the run."""
        room = self.limits.max_output_chars - self.output_chars + 1  # one more than fits, so write() notices
        pieces: list[str] = []
        for position, value in enumerate(values):
            if position:
                pieces.append(sep)
                room -= len(sep)
            text, _ = render_prefix(value, max(room, 0))
            pieces.append(text)
            room -= len(text)
            if room <= 0:
                break
        self.write("".join(pieces) + "\n", span)

    def text_of(self, value: object, limit: int, span: Span, top: bool = True) -> str:
        try:
            return render(value, limit, top=top)
        except OverflowError:
            raise fail("limit", f"the text of this value is longer than {limit:,} characters", span) from None


def _joined(output: str, report: str) -> str:
    """Output, then the error report on a line of its own."""
    if output and not output.endswith("\n"):
        output += "\n"
    return output + report
