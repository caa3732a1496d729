"""`TFLInterpreter`: checks and runs TFL scripts and reports every outcome as a `ConsoleResult`.

The console result is what the LLM reads next (seed: DCBrain.plan / DCChains.plan_validate put it into
`BaseMessage(role="console", console_reses=[...])`), so nothing here raises to the caller: syntax errors,
runtime errors, tool failures, limits and even interpreter bugs come back as a result whose text shows
the line and a caret, and whose `trace_meta` says `ok`, the error's kind and position, steps and time.

This module is the facade: parsing (`parser.py`), the static checks (`checker.py`), the evaluation
(`evaluator.py`) and a run's limits and result (`run_state.py`) each live in their own module.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from tfrobot.schema.message.base import BaseMessage
from tfrobot.schema.message.console import ConsoleResult
from tfrobot.telemetry import traced_tfl
from tfrobot.tfl.checker import BUILTINS, check, tool_name_problem
from tfrobot.tfl.errors import TFLError, TFLScriptError
from tfrobot.tfl.evaluator import Evaluator
from tfrobot.tfl.limits import TFLLimits
from tfrobot.tfl.nodes import Program
from tfrobot.tfl.parser import parse
from tfrobot.tfl.tool_registry import CallableToolRegistry, TFLToolRegistry

__all__ = ["TFLInterpreter", "seconds_of"]

_parsed = lru_cache(maxsize=32)(parse)
"""`parse`, remembered for the last scripts: the tree is immutable (frozen nodes), and a planner validates a
script and then runs it (`DCChains`), which would otherwise parse it twice."""

_WORKERS = concurrent.futures.ThreadPoolExecutor(max_workers=8, thread_name_prefix="tfl")
"""Where scripts are evaluated. Evaluation is CPU work between awaits: on the caller's event loop one script
would stall every other request the loop serves. Tools still run on the caller's loop (`Evaluator.tool`), so a
worker mostly waits; eight of them let that many turns run scripts at once, the next ones queue."""


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
        return check(program, self.tools, self.limits.max_depth)

    # ---- running --------------------------------------------------------------------------------

    async def arun(self, script: str, *, max_seconds: float | None = None) -> ConsoleResult:
        """Validate and run `script`; always returns a `ConsoleResult`, never raises for script problems.

        The script is parsed and evaluated on a worker thread, where its time limit is enforced; its tools
        run here, on the caller's loop (a tool's client session lives there), with the caller's context
        variables. `max_seconds` lowers the time limit (what is left of a turn's budget); at or below zero
        the script does not run. Cancelling the caller stops the script at its next step."""
        seconds = self.limits.max_seconds if max_seconds is None else min(max_seconds, self.limits.max_seconds)
        run = Evaluator(
            self.tools,
            self.limits,
            asyncio.get_running_loop(),
            seconds,
            turn_limited=seconds < self.limits.max_seconds,
        )
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

    def _run_on_worker(self, script: str, run: Evaluator) -> ConsoleResult:
        run.begin()
        return _run_in_new_loop(self._evaluate(script, run))

    async def _evaluate(self, script: str, run: Evaluator) -> ConsoleResult:
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
