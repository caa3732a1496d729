"""What OpenTelemetry costs a turn (issue 17): the demo robot's turn untraced, with the `otel` extra loaded
but nothing set up, and traced into the SDK's in-memory exporter.

The turn is the demo's (`demo_chain`, the offline scripted model): three LLM calls, two parallel tool
calls and a TFL script, so eight spans when traced. Each contender runs in a fresh interpreter of its own,
since a process cannot unload a package nor unset its tracer provider:

* baseline  — no OpenTelemetry module is imported: each hook sees that and returns (`tracing()`).
* disabled  — `opentelemetry.trace` imported (the extra installed and loaded, as an application that
  uses it for something else has it) and no tracer provider set: each hook asks the API for the
  provider, finds the proxy, and returns what it was given.
* enabled   — the SDK's `TracerProvider` with a `SimpleSpanProcessor` into an `InMemorySpanExporter`
  (cleared after each turn): every span is built, ended and exported in the turn.

Printed: the median process CPU time of a turn (all threads: TFL runs off the event loop) over `--turns`
turns, per contender, the median over `--rounds` rounds of fresh interpreters (contenders interleaved),
and each one's cost over the baseline; and what one hook's check costs (`tracing()`, timed over 100,000
calls), times the demo turn's eight hooks: on a loaded machine the turn's own noise is larger than that.
Each child checks its harness: the turn's answer, and the spans
it exported (none, or the eight of the tree). `--smoke` runs one short round.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from harness.machine import header, load_average

CONTENDERS = ("baseline", "disabled", "enabled")
SPANS = 8
"""invoke_agent, three chats, two tool calls, one TFL script and the tool it calls."""
QUESTION = "weather in Paris and Tokyo, chart it"
HOOK_CALLS = 100_000
"""`tracing()` calls timed per child: what each of a turn's hooks pays to find out whether to trace."""
HOOKS = 8
"""Hook calls in the demo turn: one per span it would make."""


def child(mode: str, turns: int) -> dict[str, float]:
    """Run `turns` demo turns in this interpreter as `mode` sets it up; the median seconds of a turn."""
    exporter = None
    if mode in ("disabled", "enabled"):
        import opentelemetry.trace  # noqa: F401  # (the extra loaded; disabled sets nothing up)
    if mode == "enabled":
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
    from tfrobot.brain.demo import demo_chain
    from tfrobot.schema.message import TextMessage

    chain = demo_chain()
    times: list[float] = []

    async def turns_of() -> None:
        for index in range(turns + 2):  # two warm-up turns first
            start = time.process_time()
            answer = await chain.arun(TextMessage(content=QUESTION))
            elapsed = time.process_time() - start
            if "chart" not in answer.content:
                raise SystemExit(f"{mode}: the demo turn did not answer: {answer.content!r}")
            exported = len(exporter.get_finished_spans()) if exporter is not None else 0
            if exported != (SPANS if mode == "enabled" else 0):
                raise SystemExit(f"{mode}: the turn exported {exported} spans, expected {SPANS if exporter else 0}")
            if exporter is not None:
                exporter.clear()
            if index >= 2:
                times.append(elapsed)

    asyncio.run(turns_of())
    from tfrobot.telemetry import tracing

    start = time.process_time()
    for _ in range(HOOK_CALLS):
        tracing()
    hook = (time.process_time() - start) / HOOK_CALLS
    loaded = any(name.startswith("opentelemetry") for name in sys.modules)
    if loaded != (mode != "baseline"):
        raise SystemExit(f"{mode}: OpenTelemetry modules loaded: {loaded}")
    return {"turn": statistics.median(times), "hook": hook}


def run_child(mode: str, turns: int) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", mode, "--turns", str(turns)],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).parent,
    )
    if done.returncode != 0:
        raise SystemExit(f"{mode} failed:\n{done.stdout}\n{done.stderr}")
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--turns", type=int, default=200, help="timed turns per interpreter")
    parser.add_argument("--rounds", type=int, default=5, help="fresh interpreters per contender")
    parser.add_argument("--smoke", action="store_true", help="one round of a few turns")
    parser.add_argument("--child", choices=CONTENDERS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.turns)))
        return 0
    if args.smoke:
        args.turns, args.rounds = 3, 1
    print(header())
    print(f"\nthe demo turn ({SPANS} spans when traced); median process CPU time of {args.turns} turns per "
          f"interpreter, median of {args.rounds} interpreters per contender")  # fmt: skip
    times: dict[str, list[float]] = {name: [] for name in CONTENDERS}
    hooks: dict[str, list[float]] = {name: [] for name in CONTENDERS}
    for r in range(args.rounds):
        for name in CONTENDERS[r % 3 :] + CONTENDERS[: r % 3]:
            figures = run_child(name, args.turns)
            times[name].append(figures["turn"])
            hooks[name].append(figures["hook"])
    base = statistics.median(times["baseline"])
    columns = f"{'turn':>12}{'over baseline':>16}{'per span':>12}{'one hook check':>17}{'x ' + str(HOOKS):>10}"
    print(f"{'contender':<10}{columns}")
    for name in CONTENDERS:
        turn, hook = statistics.median(times[name]), statistics.median(hooks[name])
        per_span = f"{(turn - base) / SPANS * 1e6:>9.1f} us" if name == "enabled" else f"{'':>12}"
        print(
            f"{name:<10}{turn * 1e3:>9.3f} ms{(turn - base) * 1e6:>+13.1f} us{per_span}"
            f"{hook * 1e9:>14.0f} ns{hook * HOOKS * 1e6:>7.2f} us"
        )
    print(f"\nload average now {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
