"""Errors of TFL scripts, shaped for the LLM that wrote them: a kind, a position and a caret excerpt.

A script error is data, not a crash: the interpreter turns every `TFLError` into a `ConsoleResult` whose
text shows the offending line, so that the model can repair its script in the next step.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field

from tfrobot.schema.types import AttributeValue

ErrorKind: TypeAlias = Literal[
    "syntax",  # the script does not parse, or uses a construct TFL does not have
    "name",  # unknown variable, tool or builtin
    "argument",  # wrong arguments for a tool or builtin
    "type",  # an operation on values of the wrong types
    "value",  # right type, bad value (int("x"), range step 0, a division by zero)
    "index",  # list/string index out of range, missing dict key
    "tool",  # a tool raised, returned an error or returned a value TFL cannot hold
    "timeout",  # the wall-time limit, or a tool's time-out
    "limit",  # steps, output, memory, nesting, attachment limits
    "internal",  # a bug in the interpreter; reported rather than raised
]


class TFLError(BaseModel):
    """One error in a script, at a 1-based line and column (0 when the error has no position)."""

    model_config = ConfigDict(frozen=True)

    kind: ErrorKind = Field(description="What went wrong, in one word (see `ErrorKind`).")
    message: str = Field(description="What went wrong and, where we can tell, how to fix it.")
    line: int = Field(default=0, ge=0, description="1-based line of the error; 0 if unknown.")
    column: int = Field(default=0, ge=0, description="1-based column of the error; 0 if unknown.")
    end_line: int | None = Field(default=None, description="Line where the offending span ends, if known.")
    end_column: int | None = Field(default=None, description="Column just past the offending span, if known.")

    def headline(self) -> str:
        """`TFL <kind> error at line L, column C: message` — the first line the LLM reads."""
        where = f" at line {self.line}, column {self.column}" if self.line else ""
        return f"TFL {self.kind} error{where}: {self.message}"

    def excerpt(self, source: str, width: int = 100) -> str:
        """The offending source line with a caret line under the span (empty when there is no position).

        A line longer than `width` is shown as a window around the column, so that one huge line (a pasted
        JSON blob) does not flood the console result."""
        lines = source.split("\n")  # as the parser counts lines: not splitlines(), which also splits on \f
        if not 1 <= self.line <= len(lines):
            return ""
        text = lines[self.line - 1].removesuffix("\r").expandtabs(1)
        start = max(self.column, 1)
        span = 1
        if self.end_line == self.line and self.end_column is not None and self.end_column > start:
            span = self.end_column - start
        span = max(1, min(span, len(text) - start + 1, width // 2))
        offset = 0
        if len(text) > width:
            offset = min(max(start - 1 - width // 3, 0), max(len(text) - width, 0))
            shown = text[offset : offset + width]
            text = ("…" if offset else "") + shown + ("…" if offset + width < len(text) else "")
            offset -= 1 if offset else 0
        number = str(self.line)
        gutter = " " * len(number)
        return f"{number} | {text}\n{gutter} | {' ' * (start - 1 - offset)}{'^' * span}"

    def render(self, source: str) -> str:
        """Headline plus excerpt: the full error text of a console result."""
        excerpt = self.excerpt(source)
        return f"{self.headline()}\n{excerpt}" if excerpt else self.headline()

    def meta(self) -> dict[str, AttributeValue]:
        """The `trace_meta["error"]` form: kind, line, column, message."""
        return {"kind": self.kind, "line": self.line, "column": self.column, "message": self.message}


class TFLScriptError(Exception):
    """Carries a `TFLError` out of the parser or the evaluator; never leaves `TFLInterpreter.run`."""

    def __init__(self, error: TFLError) -> None:
        super().__init__(error.headline())
        self.error = error
