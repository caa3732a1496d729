"""An agent loop over a long history: what building each step's request costs (issue 18).

A turn of 50 thinking/doing steps runs over the stored 200-turn history of the fair-ceiling workload
(1,001 messages, traces inside the user messages). Each step adds the chain's three messages of the step
before (an assistant message with reasoning, its signature and two tool calls, then the two results),
and builds the request two ways: *fresh*, `construct_request_params(question, history, tools,
intermediate_msgs=...)`, which converts the whole history again every step (O(N·k) for the loop), and
*reused*, as `Chain._think` does: one `RequestBuilder` per turn (`llm.request_builder(question, history)`)
whose `build(intermediate_msgs, tools)` converts the history once and then only the turn's messages.

Printed per provider and path: the median cost of steps 1, 10, 25 and 50, the whole loop, the messages the
loop converted, and the floor — one request holding only a step's new messages (the question and the three
messages), i.e. what a step costs when nothing before it is converted again — and the ideal loop: the
first step fresh (the history has to be converted once), then every later step at the floor. The loop is timed
`--rounds` times (thread CPU time, gc off inside a request); the figures are medians over rounds.

Each request's length is checked against the history plus the step's messages, and each reused request
against the fresh one (equal SDK keyword arguments, every step built from the converted history): the
harness's correctness. `--smoke` runs a short loop over a short history.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
from collections.abc import Sequence

from harness.machine import header, load_average
from harness.timing import clock, interleaved, median
from harness.workload import TOOL, Turn, message_count, tfrobot_conversation, tfrobot_question, tfrobot_step
from tfrobot.brain.chain.llms import AnthropicChat, ChatLLM, OpenAIChat, RequestBuilder
from tfrobot.schema.message import BaseMessage
from tfrobot.schema.tool_definition import ToolDefinition

FORECAST = ToolDefinition(
    name=TOOL,
    description="Daily forecast for a city.",
    parameters={
        "type": "object",
        "properties": {
            "location": {"type": "object", "properties": {"city": {"type": "string"}, "country": {"type": "string"}}},
            "days": {"type": "integer", "minimum": 1, "maximum": 10},
        },
        "required": ["location"],
    },
)
SHOWN_STEPS = (1, 10, 25, 50)


def step_messages(turns: int, steps: int) -> list[list[BaseMessage]]:
    """The chain's messages of each step of the turn that follows `turns` stored turns."""
    return [[msg for msg, _ in tfrobot_step(Turn(turns + s))] for s in range(steps)]


def run_loop(
    llm: ChatLLM, history: list[BaseMessage], question: BaseMessage, steps: list[list[BaseMessage]], *, reuse: bool
) -> list[float]:
    """Seconds of each step's request construction, in one pass of the loop (`reuse`: through the turn's
    `RequestBuilder`, made inside the first step's time, as the chain makes it at the turn's start)."""
    times: list[float] = []
    chain: list[BaseMessage] = []
    builder: RequestBuilder | None = None
    for new in steps:
        gc.disable()
        start = clock()
        if reuse:
            builder = builder or llm.request_builder(question, history)
            builder.build(chain, [FORECAST])
        else:
            llm.construct_request_params(question, history, [FORECAST], intermediate_msgs=list(chain))
        times.append(clock() - start)
        gc.enable()
        chain += new
    return times


def check_requests(llm: ChatLLM, turns: int, question: BaseMessage, steps: list[list[BaseMessage]]) -> None:
    """Every step's request holds the whole history, the question and the steps so far (OpenAI sends one
    message per message; Anthropic lifts the system prompt and merges each step's two results into one
    user turn), and the reused request is the fresh one, built from the converted history."""
    history = tfrobot_conversation(turns)
    builder = llm.request_builder(question, history)
    chain: list[BaseMessage] = []
    for k, new in enumerate(steps):
        request = llm.construct_request_params(question, history, [FORECAST], intermediate_msgs=list(chain))
        expected = message_count(turns) + 1 + 3 * k if isinstance(llm, OpenAIChat) else 4 * turns + 1 + 2 * k
        if (got := len(request["messages"])) != expected:
            raise SystemExit(f"{llm.provider} step {k + 1}: the request holds {got} messages, expected {expected}")
        if builder.build(chain, [FORECAST]) != request:
            raise SystemExit(f"{llm.provider} step {k + 1}: the reused request differs from the fresh one")
        chain += new
    if builder.fresh:
        raise SystemExit(f"{llm.provider}: {builder.fresh} of {len(steps)} steps were not built from the history")


def floor_cost(llm: ChatLLM, question: BaseMessage, new: list[BaseMessage], rounds: int) -> float:
    """Median seconds of a request holding only one step's new messages after the question."""
    times = interleaved(
        {"floor": lambda: llm.construct_request_params(question, [], [FORECAST], intermediate_msgs=new)}, rounds
    )
    return median(times["floor"])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--turns", type=int, default=200, help="stored turns in the history (5 messages each)")
    parser.add_argument("--steps", type=int, default=50, help="thinking/doing steps of the running turn")
    parser.add_argument("--rounds", type=int, default=7, help="passes of the whole loop")
    parser.add_argument("--smoke", action="store_true", help="a short loop over a short history")
    args = parser.parse_args(argv)
    if args.smoke:
        args.turns, args.steps, args.rounds = 4, 3, 1
    print(header())
    history, question = tfrobot_conversation(args.turns), tfrobot_question(args.turns)
    steps = step_messages(args.turns, args.steps)
    converted = sum(message_count(args.turns) + 1 + 3 * k for k in range(args.steps))
    print(
        f"\n{args.steps}-step loop over a {message_count(args.turns):,}-message history; each step adds 3 messages; "
        f"median thread CPU time of {args.rounds} passes"
    )
    print(f"messages converted by the loop: {converted:,} today; {message_count(args.turns) + 1 + 3 * args.steps:,} "
          "reused (each step converts only what is new)")  # fmt: skip
    shown = [s for s in SHOWN_STEPS if s <= args.steps]
    print(f"{'provider, path':<18}" + "".join(f"{'step ' + str(s):>11}" for s in shown) + f"{'loop':>11}{'floor':>12}"
          f"{'ideal loop':>13}{'loop / ideal':>14}")  # fmt: skip
    for llm in (OpenAIChat(), AnthropicChat()):
        check_requests(llm, args.turns, question, steps)
        floor = floor_cost(llm, question, steps[-1], max(5, args.rounds * 5))
        ideal = 0.0
        for path, reuse in (("today", False), ("reused", True)):
            passes = [run_loop(llm, history, question, steps, reuse=reuse) for _ in range(args.rounds)]
            per_step = [statistics.median(p[s] for p in passes) for s in range(args.steps)]
            loop = statistics.median(sum(p) for p in passes)
            ideal = ideal or per_step[0] + (args.steps - 1) * floor  # the first step fresh, as today's
            print(
                f"{llm.provider + ' ' + path:<18}" + "".join(f"{per_step[s - 1] * 1e3:>8.2f} ms" for s in shown)
                + f"{loop * 1e3:>8.1f} ms{floor * 1e3:>9.3f} ms{ideal * 1e3:>10.1f} ms{loop / ideal:>13.2f}x"
            )  # fmt: skip
    print(f"\nload average now {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
