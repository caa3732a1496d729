"""`TFLInterpreter`: checks and runs TFL scripts and reports every outcome as a `ConsoleResult`.

The console result is what the LLM reads next (seed: DCBrain.plan / DCChains.plan_validate put it into
`BaseMessage(role="console", console_reses=[...])`), so nothing here raises to the caller: syntax errors,
runtime errors, tool failures, limits and even interpreter bugs come back as a result whose text shows
the line and a caret, and whose `trace_meta` says `ok`, the error's kind and position, steps and time.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import difflib
import itertools
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from tfrobot.schema.message.base import BaseMessage
from tfrobot.schema.message.console import ConsoleResult
from tfrobot.schema.message.msg_part import MsgPart
from tfrobot.schema.types import AttributeValue
from tfrobot.telemetry import traced_tfl
from tfrobot.tfl.errors import TFLError, TFLScriptError
from tfrobot.tfl.limits import TFLLimits
from tfrobot.tfl.nodes import (
    Assign,
    BinOp,
    BoolOp,
    Call,
    Const,
    DictExpr,
    Expr,
    ExprStmt,
    For,
    If,
    Index,
    Keyword,
    ListExpr,
    Node,
    Pass,
    Program,
    Span,
    Stmt,
    Unary,
    Var,
)
from tfrobot.tfl.parser import KEYWORDS, RESERVED, parse
from tfrobot.tfl.tool_registry import CallableToolRegistry, TFLToolRegistry
from tfrobot.tfl.values import (
    Budget,
    TList,
    a_type,
    fail,
    media_parts,
    plain,
    render,
    render_prefix,
    size_of,
    to_python,
    type_name,
)

_parsed = lru_cache(maxsize=32)(parse)
"""`parse`, remembered for the last scripts: the tree is immutable (frozen nodes), and a planner validates a
script and then runs it (`DCChains`), which would otherwise parse it twice."""

BUILTINS: dict[str, tuple[int, int | None, frozenset[str], str]] = {
    "print": (0, None, frozenset({"sep"}), 'print(value, …, sep=" ") writes a line of output'),
    "attach": (1, None, frozenset(), "attach(x, …) adds media a tool returned to the output"),
    "len": (1, 1, frozenset(), "len(x): characters of a string, items of a list or dict"),
    "str": (1, 1, frozenset(), "str(x): a value as text"),
    "int": (1, 1, frozenset(), "int(x): a number or numeric string as an integer"),
    "float": (1, 1, frozenset(), "float(x): a number or numeric string as a float"),
    "range": (1, 3, frozenset(), "range(stop) / range(start, stop[, step]): a list of integers"),
    "keys": (1, 1, frozenset(), "keys(d): a dict's keys"),
    "values": (1, 1, frozenset(), "values(d): a dict's values"),
    "items": (1, 1, frozenset(), "items(d): a dict's [key, value] pairs"),
}
"""Builtin name -> (min positional, max positional or None, keywords, one-line help)."""

MAX_REPORTED_ERRORS = 10

_WORKERS = concurrent.futures.ThreadPoolExecutor(max_workers=8, thread_name_prefix="tfl")
"""Where scripts are evaluated. Evaluation is CPU work between awaits: on the caller's event loop one script
would stall every other request the loop serves. Tools still run on the caller's loop (`_Run.tool`), so a
worker mostly waits; eight of them let that many turns run scripts at once, the next ones queue."""
_YIELD_SECONDS = 0.002
"""Evaluation time between two voluntary releases of the GIL (`time.sleep(0)`): an event loop waiting for it
gets it then, instead of after the interpreter's 5 ms switch interval."""
_WORK_BETWEEN_CHECKS = 100_000
"""Items or characters one comparison goes through between two looks at the clock."""
_SHOWN_KEY = 60
"""Characters of a missing key that an error message repeats."""
_SUGGESTED = 1_000
"""Names compared with a missing one for a "did you mean" (difflib is quadratic in their length)."""


def children(node: Node) -> tuple[Node, ...]:
    """The direct sub-nodes of any node, in source order."""
    match node:
        case Program():
            return node.body
        case ListExpr():
            return node.items
        case DictExpr():
            return tuple(n for pair in node.pairs for n in pair)
        case Unary():
            return (node.operand,)
        case BinOp():
            return (node.left, node.right)
        case BoolOp():
            return node.operands
        case Index():
            return (node.target, node.index)
        case Keyword():
            return (node.value,)
        case Call():
            return (*node.args, *node.kwargs)
        case Assign():
            return (*node.indexes, node.value)
        case ExprStmt():
            return (node.expr,)
        case If():
            return (*(n for cond, body in node.branches for n in (cond, *body)), *node.orelse)
        case For():
            return (node.iterable, *node.body)
    return ()


def _too_deep(program: Program, limit: int) -> TFLError | None:
    """The first place where nesting exceeds `limit`, found by walking down the tallest branch."""
    for stmt in program.body:
        if stmt.height <= limit:
            continue
        node: Node = stmt
        for _ in range(limit):
            below = children(node)
            if not below:
                break
            node = max(below, key=lambda n: n.height)
        span = node.span
        return TFLError(
            kind="limit",
            message=f"nesting limit: expressions and blocks nest at most {limit} levels deep here; "
            "split the expression with intermediate variables",
            line=span.line,
            column=span.column,
            end_line=span.end_line,
            end_column=span.end_column,
        )
    return None


def _assigned(body: Sequence[Stmt]) -> set[str]:
    """Every variable a block assigns, at any depth."""
    names: set[str] = set()
    for stmt in body:
        if isinstance(stmt, Assign):
            names.add(stmt.name)
        elif isinstance(stmt, For):
            names.add(stmt.var)
            names |= _assigned(stmt.body)
        elif isinstance(stmt, If):
            for _, block in stmt.branches:
                names |= _assigned(block)
            names |= _assigned(stmt.orelse)
    return names


def _error_at(kind: Any, message: str, span: Span) -> TFLError:
    return fail(kind, message, span).error


def _suggest(name: str, known: Iterable[str]) -> str:
    """A close match among the first `_SUGGESTED` short names. A key can be a megabyte of text, and
    difflib on two such strings takes seconds in one step that the time limit cannot interrupt."""
    if len(name) > _SHOWN_KEY:
        return ""
    candidates = [k for k in itertools.islice(known, _SUGGESTED) if len(k) <= _SHOWN_KEY]
    close = difflib.get_close_matches(name, candidates, n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _shown(key: str) -> str:
    """A key as an error message shows it: its beginning, and its length when it is long."""
    if len(key) <= _SHOWN_KEY:
        return repr(key)
    return f"{key[:_SHOWN_KEY]!r}… ({len(key):,} characters)"


_TFL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""The grammar's NAME: ASCII only (`str.isidentifier` also takes `天气`, which no script can write)."""


def tool_name_problem(name: str) -> str | None:
    """Why no TFL script could call a tool named `name` (None: it can), said so a user can act on it."""
    if not _TFL_NAME.fullmatch(name):
        return "not an ASCII name: TFL names are letters A-Z, digits and _, not starting with a digit"
    if name in KEYWORDS or name in RESERVED:
        return f"{name!r} is a TFL keyword"
    if name in BUILTINS:
        return f"{name!r} is a TFL builtin"
    return None


class TFLInterpreter:
    """Runs TFL scripts against a set of tools, within `TFLLimits`.

    `validate()` checks a script without running it (syntax, nesting, unknown tools, builtins and
    variables, argument names and counts); `arun()` validates, then runs; `run()` is the same for sync
    callers. Neither raises for anything a script can do.
    """

    def __init__(
        self,
        tools: TFLToolRegistry | Mapping[str, Callable[..., Any]] | Iterable[Callable[..., Any]] | None = None,
        limits: TFLLimits | None = None,
    ) -> None:
        if tools is None:
            registry: TFLToolRegistry = CallableToolRegistry()
        elif isinstance(tools, TFLToolRegistry):
            registry = tools
        else:
            registry = CallableToolRegistry(tools)
        names = set(registry.names())
        clash = sorted(names & set(BUILTINS))
        if clash:
            raise ValueError(f"tool names {clash} shadow TFL builtins; register them under other names")
        unusable = sorted(n for n in names if n not in BUILTINS and tool_name_problem(n) is not None)
        if unusable:
            raise ValueError(f"tool names {unusable} are TFL keywords or not names, so no script could call them")
        self.tools = registry
        self.limits = limits or TFLLimits()

    # ---- validation -----------------------------------------------------------------------------

    def validate(self, script: str) -> list[TFLError]:
        """Every problem found without running the script; an empty list means it may run.

        This is the plan-validate path: a planner can reject a script before any tool has side effects.
        """
        try:
            program = self._parse(script)
        except TFLScriptError as exc:
            return [exc.error]
        return self._check(program)

    def _parse(self, script: str) -> Program:
        if len(script) > self.limits.max_script_chars:
            raise TFLScriptError(
                TFLError(
                    kind="limit",
                    message=f"script limit: {len(script):,} characters exceeds {self.limits.max_script_chars:,}",
                )
            )
        return _parsed(script)

    def _check(self, program: Program) -> list[TFLError]:
        deep = _too_deep(program, self.limits.max_depth)
        if deep is not None:
            return [deep]
        errors: list[TFLError] = []
        self._check_block(program.body, set(), errors)
        return errors[:MAX_REPORTED_ERRORS]

    def _check_block(self, body: Sequence[Stmt], known: set[str], errors: list[TFLError]) -> None:
        for stmt in body:
            if isinstance(stmt, Assign):
                self._check_expr(stmt.value, known, errors)
                for index in stmt.indexes:
                    self._check_expr(index, known, errors)
                if stmt.indexes and stmt.name not in known:
                    errors.append(
                        _error_at("name", f"variable {stmt.name!r} is not defined before this line", stmt.span)
                    )
                known.add(stmt.name)
            elif isinstance(stmt, ExprStmt):
                self._check_expr(stmt.expr, known, errors)
            elif isinstance(stmt, If):
                for cond, block in stmt.branches:
                    self._check_expr(cond, known, errors)
                    self._check_block(block, known, errors)
                self._check_block(stmt.orelse, known, errors)
            elif isinstance(stmt, For):
                self._check_expr(stmt.iterable, known, errors)
                known.add(stmt.var)
                # a body may read on turn 2 what it assigns on turn 1 (`prev = i` after `print(prev)`)
                known.update(_assigned(stmt.body))
                self._check_block(stmt.body, known, errors)

    def _check_expr(self, expr: Node, known: set[str], errors: list[TFLError]) -> None:
        if isinstance(expr, Var) and expr.name not in known:
            hint = _suggest(expr.name, known)
            if not hint and (expr.name in BUILTINS or self.tools.signature(expr.name) is not None):
                hint = f"; {expr.name} is a {'builtin' if expr.name in BUILTINS else 'tool'}: call it, {expr.name}(…)"
            errors.append(_error_at("name", f"variable {expr.name!r} is not defined{hint}", expr.span))
        if isinstance(expr, Call):
            self._check_call(expr, errors)
        for child in children(expr):
            self._check_expr(child, known, errors)

    def _check_call(self, call: Call, errors: list[TFLError]) -> None:
        name, nargs = call.name, len(call.args)
        if name in BUILTINS:
            low, high, keywords, usage = BUILTINS[name]
            if nargs < low or (high is not None and nargs > high):
                errors.append(_error_at("argument", f"wrong number of arguments: {usage}", call.span))
            for kw in call.kwargs:
                if kw.name not in keywords:
                    errors.append(_error_at("argument", f"{name}() takes no keyword {kw.name!r}: {usage}", kw.span))
            return
        sig = self.tools.signature(name)
        if sig is None:
            known = [*self.tools.names(), *BUILTINS]
            errors.append(_error_at("name", f"unknown tool {name!r}{_suggest(name, known)}", call.name_span))
            return
        params = ", ".join(sig.parameters) or "no parameters"
        if nargs and not sig.positional:
            errors.append(_error_at("argument", f"tool {name!r} takes keyword arguments only ({params})", call.span))
            return
        if nargs > len(sig.parameters):
            errors.append(
                _error_at(
                    "argument", f"tool {name!r} takes at most {len(sig.parameters)} arguments ({params})", call.span
                )
            )
            return
        given = set(sig.parameters[:nargs])
        for kw in call.kwargs:
            if kw.name in given:
                errors.append(_error_at("argument", f"argument {kw.name!r} of tool {name!r} is given twice", kw.span))
            elif kw.name not in sig.parameters and not sig.any_keyword:
                hint = _suggest(kw.name, sig.parameters)
                errors.append(
                    _error_at("argument", f"tool {name!r} has no parameter {kw.name!r}{hint} (takes {params})", kw.span)
                )
            given.add(kw.name)
        missing = sorted(sig.required - given)
        if missing:
            errors.append(
                _error_at(
                    "argument", f"tool {name!r} needs argument(s) {', '.join(missing)} (takes {params})", call.span
                )
            )

    # ---- running --------------------------------------------------------------------------------

    async def arun(self, script: str, *, max_seconds: float | None = None) -> ConsoleResult:
        """Validate and run `script`; always returns a `ConsoleResult`, never raises for script problems.

        The script is parsed and evaluated on a worker thread, where its time limit is enforced; its tools
        run here, on the caller's loop (a tool's client session lives there), with the caller's context
        variables. `max_seconds` lowers the time limit (what is left of a turn's budget); at or below zero
        the script does not run. Cancelling the caller stops the script at its next step."""
        seconds = self.limits.max_seconds if max_seconds is None else min(max_seconds, self.limits.max_seconds)
        run = _Run(self, asyncio.get_running_loop(), seconds, turn_limited=seconds < self.limits.max_seconds)
        if seconds <= 0:
            spent = TFLError(
                kind="timeout",
                message="time limit: this turn's scripts have used up their time budget, so this one did not run; "
                "answer with the results you have",
            )
            return run.result(script, [spent])
        job = run.home.run_in_executor(_WORKERS, contextvars.copy_context().run, self._run_on_worker, script, run)
        try:
            return await job
        except asyncio.CancelledError:
            run.stop()
            raise

    def _run_on_worker(self, script: str, run: _Run) -> ConsoleResult:
        run.begin()
        return _run_in_new_loop(self._evaluate(script, run))

    async def _evaluate(self, script: str, run: _Run) -> ConsoleResult:
        try:
            program = self._parse(script)
            errors = self._check(program)
            if errors:
                return run.result(script, errors)
            await run.program(program)
        except TFLScriptError as exc:
            return run.result(script, [exc.error])
        except Exception as exc:  # a bug here must not take the agent loop down: report it like an error
            return run.result(script, [TFLError(kind="internal", message=f"{type(exc).__name__}: {exc}")])
        return run.result(script, [])

    async def aexecute(
        self, scripts: Sequence[str], *, conversation_id: str | None = None, max_seconds: float | None = None
    ) -> BaseMessage:
        """Run an assistant turn's `tfl_scripts` in order and wrap their results as the seed's console
        message, `BaseMessage(role="console", console_reses=[...])` (as `Drive.aexecute` does for tools).

        Each script runs in a fresh namespace: a script is one self-contained plan. `max_seconds` is a time
        budget the scripts share (a turn's): each gets what the ones before it left."""
        results: list[ConsoleResult] = []
        for script in scripts:
            left = None if max_seconds is None else max_seconds - seconds_of(results)
            results.append(await traced_tfl(script, self.arun(script, max_seconds=left)))
        return BaseMessage(role="console", console_reses=results, conversation_id=conversation_id)

    def run(self, script: str) -> ConsoleResult:
        """Synchronous `arun`. Inside a running event loop it runs on a helper thread with its own loop."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return _run_in_new_loop(self.arun(script))
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(lambda: _run_in_new_loop(self.arun(script))).result()


def seconds_of(results: Iterable[object]) -> float:
    """The wall time the console results took, from their `trace_meta["duration_ms"]` (0 where missing)."""
    total = 0.0
    for result in results:
        meta = result.trace_meta if isinstance(result, ConsoleResult) else None
        duration = (meta or {}).get("duration_ms")
        if isinstance(duration, int | float) and not isinstance(duration, bool):
            total += duration / 1000
    return total


def _run_in_new_loop(job: Any) -> ConsoleResult:
    """Run a coroutine on a fresh loop. Unlike asyncio.run, closing does not wait for worker threads,
    so a sync tool that ignores its time-out cannot hold the caller past the time limit."""
    loop = asyncio.new_event_loop()
    try:
        result: ConsoleResult = loop.run_until_complete(job)
        return result
    finally:
        loop.close()


def _joined(output: str, report: str) -> str:
    """Output, then the error report on a line of its own."""
    if output and not output.endswith("\n"):
        output += "\n"
    return output + report


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


class _Run:
    """The state of one run: variables, output, attachments and the counters behind the limits."""

    def __init__(
        self, interpreter: TFLInterpreter, home: asyncio.AbstractEventLoop, seconds: float, *, turn_limited: bool
    ) -> None:
        self.tools = interpreter.tools
        self.limits = interpreter.limits
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

    # ---- statements -----------------------------------------------------------------------------

    async def program(self, program: Program) -> None:
        last: object = None
        for index, stmt in enumerate(program.body):
            last = await self.stmt(stmt)
            if index == len(program.body) - 1 and isinstance(stmt, ExprStmt) and last is not None:
                self.emit([last], " ", stmt.span)

    async def block(self, body: Sequence[Stmt]) -> None:
        for stmt in body:
            await self.stmt(stmt)

    async def stmt(self, stmt: Stmt) -> object:
        self.tick(stmt.span)
        if isinstance(stmt, ExprStmt):
            return await self.expr(stmt.expr)
        if isinstance(stmt, Assign):
            value = await self.expr(stmt.value)
            if stmt.indexes:
                keys: list[object] = []
                for index in stmt.indexes:
                    keys.append(await self.expr(index))
                value = self.set_in(self.var(stmt.name, stmt.span), keys, stmt.indexes, value)
            self.vars[stmt.name] = value
        elif isinstance(stmt, If):
            for cond, body in stmt.branches:
                if self.truthy(await self.expr(cond)):
                    await self.block(body)
                    break
            else:
                await self.block(stmt.orelse)
        elif isinstance(stmt, For):
            iterable = plain(await self.expr(stmt.iterable))
            items: Iterable[object]
            if isinstance(iterable, list | dict):
                items = list(iterable)
            elif isinstance(iterable, str):
                items = iterable
            else:
                raise fail("type", f"cannot loop over {a_type(iterable)}", stmt.iterable.span)
            for item in items:
                self.tick(stmt.var_span)
                self.vars[stmt.var] = item
                await self.block(stmt.body)
        elif isinstance(stmt, Pass):
            pass
        return None

    def var(self, name: str, span: Span) -> object:
        try:
            return self.vars[name]
        except KeyError:
            raise fail("name", f"variable {name!r} is not defined{_suggest(name, self.vars)}", span) from None

    def set_in(self, container: object, keys: list[object], nodes: Sequence[Expr], value: object) -> object:
        """`container` with `value` at the path `keys`, as new containers (values are immutable)."""
        target = plain(container)
        key, span = keys[0], nodes[0].span
        if isinstance(target, list):
            position = self.position(target, key, span)
            inner = value if len(keys) == 1 else self.set_in(target[position], keys[1:], nodes[1:], value)
            items = list(target)
            items[position] = inner
            return self.budget.new_list(items, span)
        if isinstance(target, dict):
            if not isinstance(key, str):
                raise fail("type", f"dict keys are strings, not {type_name(key)}", span)
            if len(keys) == 1:
                inner = value
            elif key in target:
                inner = self.set_in(target[key], keys[1:], nodes[1:], value)
            else:
                raise fail("index", f"no key {_shown(key)} in this dict{self.key_hint(target, key)}", span)
            pairs = dict(target)
            pairs[key] = inner
            return self.budget.new_dict(pairs.items(), span)
        raise fail("type", f"cannot assign into {a_type(target)}", span)

    # ---- expressions ----------------------------------------------------------------------------

    async def expr(self, node: Expr) -> object:
        self.tick(node.span)
        if isinstance(node, Const):
            return node.value
        if isinstance(node, Var):
            return self.var(node.name, node.span)
        if isinstance(node, BinOp):
            left = await self.expr(node.left)
            right = await self.expr(node.right)
            return self.binop(node, plain(left), plain(right))
        if isinstance(node, Index):
            target = plain(await self.expr(node.target))
            if not isinstance(target, list | str | dict):
                raise fail("type", f"cannot index {a_type(target)}", node.target.span)
            return self.index(target, plain(await self.expr(node.index)), node.index.span)
        if isinstance(node, Call):
            return await self.call(node)
        if isinstance(node, BoolOp):
            decided: object = None
            for part in node.operands:
                decided = await self.expr(part)
                if self.truthy(decided) == (node.op == "or"):
                    return decided
            return decided
        if isinstance(node, Unary):
            operand = plain(await self.expr(node.operand))
            if node.op == "not":
                return not self.truthy(operand)
            if not isinstance(operand, int | float) or isinstance(operand, bool):
                raise fail("type", f"unary {node.op} needs a number, not {a_type(operand)}", node.span)
            result = -operand if node.op == "-" else operand
            return self.budget.check_int(result, node.span) if isinstance(result, int) else result
        if isinstance(node, ListExpr):
            items: list[object] = []
            for item in node.items:  # loops, not comprehensions, here: one stack frame per nesting level
                items.append(await self.expr(item))
            return self.budget.new_list(items, node.span)
        if isinstance(node, DictExpr):
            pairs: list[tuple[str, object]] = []
            for key_node, value_node in node.pairs:
                key = plain(await self.expr(key_node))
                if not isinstance(key, str):
                    raise fail("type", f"dict keys are strings, not {type_name(key)}", key_node.span)
                pairs.append((key, await self.expr(value_node)))
            return self.budget.new_dict(pairs, node.span)
        raise fail("internal", f"unknown node {type(node).__name__}", node.span)  # pragma: no cover

    @staticmethod
    def truthy(value: object) -> bool:
        value = plain(value)
        return bool(value) if value is None or isinstance(value, bool | int | float | str | list | dict) else True

    def binop(self, node: BinOp, left: object, right: object) -> object:
        op, span = node.op, node.op_span
        match op:
            case "==":
                return self.equal(left, right, span)
            case "!=":
                return not self.equal(left, right, span)
            case "in" | "not in":
                found = self.contains(right, left, span)
                return found if op == "in" else not found
            case "<" | "<=" | ">" | ">=":
                both_numbers = _number(left) and _number(right)
                if not (both_numbers or (isinstance(left, str) and isinstance(right, str))):
                    raise fail("type", f"cannot compare {type_name(left)} {op} {type_name(right)}", span)
                a: Any = left
                b: Any = right
                return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
            case "+":
                return self.add(left, right, span)
            case "*":
                return self.multiply(left, right, span)
        if not (_number(left) and _number(right)):
            raise fail("type", f"cannot apply {op} to {type_name(left)} and {type_name(right)}", span)
        x: Any = left
        y: Any = right
        if op in ("/", "//", "%") and y == 0:
            raise fail("value", "division by zero", span)
        result = {"-": lambda: x - y, "/": lambda: x / y, "//": lambda: x // y, "%": lambda: x % y}[op]()
        return self.number(result, span)

    def number(self, result: Any, span: Span) -> object:
        if isinstance(result, int):
            return self.budget.check_int(result, span)
        return self.budget.check_float(result, span)

    def add(self, left: object, right: object, span: Span) -> object:
        if _number(left) and _number(right):
            x: Any = left
            return self.number(x + right, span)
        if isinstance(left, str) and isinstance(right, str):
            self.budget.check_string_length(len(left) + len(right), span)
            return self.budget.string(left + right, span)
        if isinstance(left, list) and isinstance(right, list):
            size = size_of(left) + size_of(right) - 1
            if size > self.limits.max_value_size:  # refuse before building: `xs + xs` doubles
                raise fail(
                    "limit",
                    f"value limit: a list of {size:,} nested items exceeds {self.limits.max_value_size:,}",
                    span,
                )
            return self.budget.new_list([*left, *right], span)
        hint = "; convert with str(x) first" if isinstance(left, str) or isinstance(right, str) else ""
        raise fail("type", f"cannot add {type_name(left)} and {type_name(right)}{hint}", span)

    def multiply(self, left: object, right: object, span: Span) -> object:
        if _number(left) and _number(right):
            x: Any = left
            return self.number(x * right, span)
        if isinstance(right, str | list) and isinstance(left, int) and not isinstance(left, bool):
            left, right = right, left
        if isinstance(left, str | list) and isinstance(right, int) and not isinstance(right, bool):
            count = max(right, 0)
            if isinstance(left, str):
                self.budget.check_string_length(len(left) * count, span)
                return self.budget.string(left * count, span)
            items = len(left) * count
            if items + 1 > self.limits.max_value_size:  # refuse before building: `[0] * 10**12` is one step
                raise fail(
                    "limit",
                    f"value limit: a list of {items:,} items exceeds {self.limits.max_value_size:,}",
                    span,
                )
            return self.budget.new_list(left * count, span)
        raise fail("type", f"cannot multiply {type_name(left)} by {type_name(right)}", span)

    def equal(self, left: object, right: object, span: Span) -> bool:
        """`left == right`, with the clock checked as the comparison goes: one `xs == ys` of two lists of
        100,000 distinct megabyte strings compares 10^11 characters in what is a single step."""
        pairs: list[tuple[object, object]] = [(left, right)]
        work = 0
        while pairs:
            a, b = pairs.pop()
            a, b = plain(a), plain(b)
            if a is b:
                continue
            if isinstance(a, list) and isinstance(b, list):
                if len(a) != len(b):
                    return False
                pairs.extend(zip(a, b, strict=True))
                work += len(a)
            elif isinstance(a, dict) and isinstance(b, dict):
                if a.keys() != b.keys():
                    return False
                pairs.extend((a[key], b[key]) for key in a)
                work += len(a)
            else:
                if a != b:
                    return False
                work += len(a) if isinstance(a, str) else 1
            if work > _WORK_BETWEEN_CHECKS:
                self.check_clock(span)
                work = 0
        return True

    def contains(self, container: object, item: object, span: Span) -> bool:
        if isinstance(container, list):
            return any(self.equal(v, item, span) for v in container)
        if isinstance(container, dict):
            return isinstance(item, str) and item in container
        if isinstance(container, str):
            if not isinstance(item, str):
                raise fail("type", f"`in` a string needs a string on the left, not {type_name(item)}", span)
            return item in container
        raise fail("type", f"`in` needs a list, dict or string on the right, not {type_name(container)}", span)

    def position(self, target: list[object] | str, key: object, span: Span) -> int:
        if not isinstance(key, int) or isinstance(key, bool):
            raise fail("type", f"{a_type(target)} index is an integer, not {type_name(key)}", span)
        if not -len(target) <= key < len(target):
            what = "characters" if isinstance(target, str) else "items"
            raise fail("index", f"index {key} is out of range for {a_type(target)} of {len(target)} {what}", span)
        return key

    @staticmethod
    def key_hint(target: dict[str, object], key: str) -> str:
        """What the LLM needs to fix a missing key: the closest key, and the keys there are."""
        if not target:
            return " (it is empty)"
        names = itertools.islice(target, 10)
        more = ", …" if len(target) > 10 else ""
        listed = f"{', '.join(_shown(n) for n in names)}{more}"
        suggestion = _suggest(key, target)
        return f"{suggestion} Its keys: {listed}" if suggestion else f"; its keys: {listed}"

    def index(self, target: object, key: object, span: Span) -> object:
        if isinstance(target, list | str):
            position = self.position(target, key, span)
            return target[position]
        if isinstance(target, dict):
            if not isinstance(key, str):
                raise fail("type", f"dict keys are strings, not {type_name(key)}", span)
            if key not in target:
                raise fail("index", f"no key {_shown(key)} in this dict{self.key_hint(target, key)}", span)
            return target[key]
        raise fail("type", f"cannot index {a_type(target)}", span)

    # ---- calls ----------------------------------------------------------------------------------

    async def call(self, node: Call) -> object:
        args: list[object] = []
        for arg in node.args:
            args.append(await self.expr(arg))
        kwargs: dict[str, object] = {}
        for kw in node.kwargs:
            kwargs[kw.name] = await self.expr(kw.value)
        if node.name in BUILTINS:
            return self.builtin(node, args, kwargs)
        return await self.tool(node, args, kwargs)

    async def tool(self, node: Call, args: list[object], kwargs: dict[str, object]) -> object:
        sig = self.tools.signature(node.name)
        if sig is None:  # validated before the run; a registry may still change under us
            raise fail("name", f"unknown tool {node.name!r}", node.name_span)
        arguments = {name: to_python(value) for name, value in zip(sig.parameters, args, strict=False)}
        arguments.update({name: to_python(value) for name, value in kwargs.items()})
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise fail("timeout", self.time_limit(), node.span)
        timeout = min(self.limits.tool_timeout_seconds, remaining)
        self.tool_calls += 1
        pending = asyncio.run_coroutine_threadsafe(self.tools.acall(node.name, arguments), self.home)
        self.pending = pending
        try:
            raw = await asyncio.wait_for(asyncio.wrap_future(pending), timeout)
        except TimeoutError:
            if timeout < self.limits.tool_timeout_seconds:
                raise fail("timeout", f"{self.time_limit()} (waiting for tool {node.name!r})", node.span) from None
            raise fail("timeout", f"tool {node.name!r} did not answer within {timeout:g} s", node.span) from None
        except asyncio.CancelledError:  # stop() cancelled the call; the step check reports it
            raise fail("timeout", "stopped: the turn that ran this script was cancelled", node.span) from None
        except TFLScriptError:
            raise
        except Exception as exc:
            raise fail("tool", f"tool {node.name!r} failed: {type(exc).__name__}: {exc}", node.span) from None
        finally:
            self.pending = None
        return self.budget.from_python(raw, node.span, node.name)

    def builtin(self, node: Call, args: list[object], kwargs: dict[str, object]) -> object:
        name, span = node.name, node.span
        if name == "print":
            sep = plain(kwargs.get("sep", " "))
            if not isinstance(sep, str):
                raise fail("type", f"print(sep=…) takes a string, not {type_name(sep)}", span)
            self.emit(args, sep, span)
            return None
        if name == "attach":
            for arg, arg_node in zip(args, node.args, strict=True):
                found = media_parts(arg)
                if found is None:
                    raise fail(
                        "type",
                        f"attach() takes media a tool returned (an image, audio, video or file part, or a tool "
                        f"result with attachments), not {type_name(arg)}",
                        arg_node.span,
                    )
                if len(self.attachments) + len(found) > self.limits.max_attachments:
                    raise fail(
                        "limit", f"attachment limit: at most {self.limits.max_attachments} attachments", arg_node.span
                    )
                self.attachments.extend(found)
            return None
        value = plain(args[0]) if args else None
        if name == "len":
            if isinstance(value, str | list | dict):
                return len(value)
            raise fail("type", f"len() of {a_type(value)}", span)
        if name == "str":
            return self.budget.string(self.text_of(value, self.limits.max_string_chars, span), span)
        if name in ("int", "float"):
            return self.convert(name, value, span)
        if name == "range":
            return self.range(args, span)
        if not isinstance(value, dict):
            raise fail("type", f"{name}() takes a dict, not {type_name(value)}", span)
        if name == "keys":
            return self.budget.new_list(value.keys(), span)
        if name == "values":
            return self.budget.new_list(value.values(), span)
        return self.budget.new_list((self.budget.new_list(pair, span) for pair in value.items()), span)

    def convert(self, name: str, value: object, span: Span) -> object:
        try:
            if isinstance(value, bool | int | float):
                result: int | float = int(value) if name == "int" else float(value)
            elif isinstance(value, str) and len(value) <= 100:
                result = int(value.strip()) if name == "int" else float(value.strip())
            else:
                raise fail("type", f"{name}() of {a_type(value)}", span)
        except (ValueError, OverflowError):
            raise fail("value", f"cannot convert {render(value, 60, top=False)[:60]} to {name}", span) from None
        return self.number(result, span)

    def range(self, args: list[object], span: Span) -> TList:
        values = [plain(a) for a in args]
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            raise fail("type", "range() takes integers", span)
        ints = [v for v in values if isinstance(v, int)]
        if len(ints) == 3 and ints[2] == 0:
            raise fail("value", "range() step cannot be zero", span)
        numbers = range(*ints)
        if len(numbers) + 1 > self.limits.max_value_size:
            raise fail(
                "limit",
                f"value limit: range of {len(numbers):,} numbers exceeds {self.limits.max_value_size:,} items",
                span,
            )
        return self.budget.new_list(numbers, span)
