"""Memory store benchmark: sync throughput and recall latency on SQLite and PostgreSQL, at 10k and 100k turns.

Each turn is a `TextMessage` whose trace holds 6 records (assistant thinking with tool calls, tool results,
console output) plus the assistant's reply: 2 rows. Turns are spread over conversations of 100 turns; the
first 10% of the conversations are seeded, measured, then the rest, and the same conversations are measured
again — recall must not depend on how much else is stored.

    python bench/memory.py                    # 100,000 turns, both stores
    python bench/memory.py --turns 20000 --stores sqlite
    python bench/memory.py --smoke            # 200 turns, a few calls: the harness only

Latency is wall time per call, one call at a time; `cpu` is this process's CPU time per recall (its own
threads included), which other load on the machine barely moves — the load average is printed with the
figures. Before each measurement the seeding loop's garbage is collected and the surviving heap frozen
(`gc.freeze()`, as a long-running server does after start-up), so a full collection of the harness's own
objects is not billed to a recall.

PostgreSQL: a throw-away database is created through `$TFROBOT_BENCH_PG_URL` (default
postgresql://postgres@127.0.0.1:5432/test) and dropped afterwards; `TFROBOT_SKIP_PG=1` (as for the
tests) measures SQLite only.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from sqlalchemy.engine import make_url

from tfrobot.brain.memory import SQLMessageStore
from tfrobot.schema.message import (
    AssistantTextMessage,
    BaseMessage,
    ConsoleResult,
    Message,
    TextMessage,
    ToolCall,
    ToolReturn,
    new_msg_id,
)
from tfrobot.schema.saver_loader import SaverLoader

TURNS_PER_CONVERSATION = 100
LAST_TURNS = 20
RECALLS = 200
SINGLE_SYNCS = 300
BATCH_TURNS = 500
TARGET_P99_MS = 20.0

console = Console(width=140)
decode = SaverLoader(Message).loads


def template_turn() -> tuple[TextMessage, AssistantTextMessage]:
    """One realistic turn: a question, six trace records, an answer."""
    turn = TextMessage(content="What will the weather be in Paris and Lyon tomorrow, and should I take the train?")
    trace: list[BaseMessage] = [
        AssistantTextMessage(
            reasoning_content="The user wants forecasts for two cities and a travel suggestion; call the weather tool.",
            tool_calls=[
                ToolCall(id="call_1", name="weather", arguments='{"city": "Paris", "day": "tomorrow"}'),
                ToolCall(id="call_2", name="weather", arguments='{"city": "Lyon", "day": "tomorrow"}'),
            ],
        ),
        BaseMessage(role="tool", tool_reses=[ToolReturn(call_id="call_1", name="weather", result='{"t": 18}')]),
        BaseMessage(role="tool", tool_reses=[ToolReturn(call_id="call_2", name="weather", result='{"t": 21}')]),
        AssistantTextMessage(
            reasoning_content="Both dry; compute the train time with TFL.",
            tfl_scripts=["print(route('Paris', 'Lyon').duration)"],
        ),
        BaseMessage(role="console", console_reses=[ConsoleResult(result="1h57m", script="route(...)")]),
        AssistantTextMessage(content="Draft: 18°C in Paris, 21°C in Lyon, the TGV takes under two hours."),
    ]
    for record in trace:
        turn.intermediate_trace.append(record, source="chain")
    answer = AssistantTextMessage(
        content="Tomorrow: 18°C and dry in Paris, 21°C in Lyon. The TGV takes under two hours — take the train.",
        finish_reason="stop",
        model="scripted:bench",
    )
    return turn, answer


@dataclass
class Figures:
    """Everything measured for one store."""

    store: str
    seed_rate: dict[int, float] = field(default_factory=dict)
    single_sync_rate: dict[int, float] = field(default_factory=dict)
    single_sync_p50: dict[int, float] = field(default_factory=dict)
    recall_p50: dict[int, float] = field(default_factory=dict)
    recall_p99: dict[int, float] = field(default_factory=dict)
    recall_cpu_p50: dict[int, float] = field(default_factory=dict)
    load: dict[int, float] = field(default_factory=dict)
    decode_share: dict[int, float] = field(default_factory=dict)
    recalled: int = 0


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Bench:
    def __init__(self, store: SQLMessageStore, figures: Figures, recalls: int, single_syncs: int) -> None:
        self.store = store
        self.figures = figures
        self.recalls = recalls
        self.single_syncs = single_syncs
        self.turn, self.answer = template_turn()
        self.clock = 1_700_000_000_000

    def messages_of(self, conversation: int, turn: int) -> list[BaseMessage]:
        cid = f"conv-{conversation:05d}"
        self.clock += 2
        user = self.turn.model_copy(
            update={"msg_id": new_msg_id(), "conversation_id": cid, "create_ts": self.clock, "content": f"q{turn}"}
        )
        reply = self.answer.model_copy(update={"msg_id": new_msg_id(), "conversation_id": cid, "create_ts": self.clock})
        return [user, reply]

    async def seed(self, conversations: range, progress: Progress) -> None:
        total = len(conversations) * TURNS_PER_CONVERSATION
        task = progress.add_task(f"{self.figures.store}: seeding {total:,} turns", total=total)
        batch: list[BaseMessage] = []
        started = time.perf_counter()
        # Turn-major order interleaves conversations, as live traffic does.
        for turn in range(TURNS_PER_CONVERSATION):
            for conversation in conversations:
                batch += self.messages_of(conversation, turn)
                if len(batch) >= 2 * BATCH_TURNS:
                    await self.store.sync_msgs(batch)
                    progress.advance(task, len(batch) // 2)
                    batch = []
        if batch:
            await self.store.sync_msgs(batch)
            progress.advance(task, len(batch) // 2)
        return_rate = total / (time.perf_counter() - started)
        self.figures.seed_rate[conversations.stop * TURNS_PER_CONVERSATION] = return_rate

    async def measure(self, stored: int, sample_from: int) -> None:
        gc.collect()
        gc.freeze()
        rng = random.Random(stored)
        sample = [f"conv-{rng.randrange(sample_from):05d}" for _ in range(self.recalls)]
        for cid in sample[:20]:  # warm the pool and the statement caches
            await self.store.recall(cid, last_turns=LAST_TURNS)

        cpu_before = time.process_time()
        latencies = await timed([lambda cid=cid: self.store.recall(cid, last_turns=LAST_TURNS) for cid in sample])
        self.figures.recall_cpu_p50[stored] = (time.process_time() - cpu_before) * 1000 / len(sample)
        self.figures.load[stored] = os.getloadavg()[0]
        self.figures.recall_p50[stored] = statistics.median(latencies)
        self.figures.recall_p99[stored] = pct(latencies, 0.99)
        recalled = await self.store.recall(sample[0], last_turns=LAST_TURNS)
        self.figures.recalled = len(recalled)
        assert type(recalled[0]) is TextMessage, "recall lost the message class"

        fetch_total = decode_total = 0.0
        for cid in sample:
            t0 = time.perf_counter()
            stored_json = await self.store.recall_json(cid, last_turns=LAST_TURNS)
            t1 = time.perf_counter()
            for _, payload in stored_json:
                decode(payload)
            decode_total += time.perf_counter() - t1
            fetch_total += t1 - t0
        self.figures.decode_share[stored] = decode_total / (fetch_total + decode_total)

        singles = [self.messages_of(10**6 + stored, n)[0] for n in range(self.single_syncs)]
        sync_latencies = await timed([lambda m=m: self.store.sync_msg(m) for m in singles])
        self.figures.single_sync_rate[stored] = 1000 * len(sync_latencies) / sum(sync_latencies)
        self.figures.single_sync_p50[stored] = statistics.median(sync_latencies)
        await self.store.delete_conversation(f"conv-{10**6 + stored:05d}")


async def timed(calls: list[Callable[[], Awaitable[object]]]) -> list[float]:
    """Milliseconds of each call, run one after another."""
    out: list[float] = []
    for call in calls:
        t0 = time.perf_counter()
        await call()
        out.append((time.perf_counter() - t0) * 1000)
    return out


async def run_store(name: str, url: str, turns: int, recalls: int, single_syncs: int) -> Figures:
    figures = Figures(name)
    store = await SQLMessageStore.open(url)
    bench = Bench(store, figures, recalls, single_syncs)
    conversations = max(1, turns // TURNS_PER_CONVERSATION)
    first = max(1, conversations // 10)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    try:
        with Progress(*columns, console=console, transient=False) as progress:
            await bench.seed(range(first), progress)
        await bench.measure(first * TURNS_PER_CONVERSATION, first)
        with Progress(*columns, console=console, transient=False) as progress:
            await bench.seed(range(first, conversations), progress)
        await bench.measure(conversations * TURNS_PER_CONVERSATION, first)
    finally:
        await store.aclose()
    return figures


async def pg_admin(url: str, statement: str) -> None:
    conn = await asyncpg.connect(make_url(url).set(drivername="postgresql").render_as_string(hide_password=False))
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


def report(all_figures: list[Figures], recalls: int) -> None:
    title = f"Memory store: recall of the last {LAST_TURNS} turns ({recalls} recalls), sync throughput"
    table = Table(title=f"{title} on {os.cpu_count()} CPUs")
    for column in ("store", "stored turns", "seed (turns/s, batched)", "sync_msg (ops/s)", "sync_msg p50 ms"):
        table.add_column(column, justify="right")
    for column in ("recall p50 ms", "recall p99 ms", "recall cpu ms", "JSON decode share", "load avg"):
        table.add_column(column, justify="right")
    for figures in all_figures:
        for stored in sorted(figures.recall_p50):
            table.add_row(
                figures.store,
                f"{stored:,}",
                f"{figures.seed_rate[stored]:,.0f}",
                f"{figures.single_sync_rate[stored]:,.0f}",
                f"{figures.single_sync_p50[stored]:.2f}",
                f"{figures.recall_p50[stored]:.2f}",
                f"{figures.recall_p99[stored]:.2f}",
                f"{figures.recall_cpu_p50[stored]:.2f}",
                f"{figures.decode_share[stored]:.0%}",
                f"{figures.load[stored]:.1f}",
            )
    console.print(table)
    for figures in all_figures:
        worst = max(figures.recall_p99.values())
        verdict = "meets" if worst < TARGET_P99_MS else "MISSES"
        console.print(
            f"{figures.store}: {figures.recalled} messages per recall; worst p99 {worst:.2f} ms {verdict} the "
            f"{TARGET_P99_MS:.0f} ms target"
        )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=100_000, help="turns stored at the end (default 100,000)")
    parser.add_argument("--stores", default="sqlite,postgresql", help="comma-separated: sqlite, postgresql")
    parser.add_argument("--smoke", action="store_true", help="200 turns, 20 recalls, 10 single syncs")
    args = parser.parse_args()
    turns, recalls, single_syncs = (200, 20, 10) if args.smoke else (args.turns, RECALLS, SINGLE_SYNCS)
    results: list[Figures] = []
    stores = args.stores.split(",")
    if os.environ.get("TFROBOT_SKIP_PG") == "1" and "postgresql" in stores:
        console.print("TFROBOT_SKIP_PG=1: PostgreSQL skipped")
        stores.remove("postgresql")
    if "sqlite" in stores:
        with tempfile.TemporaryDirectory(prefix="tfrobot-bench-") as tmp:
            sqlite = f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"
            results.append(await run_store("sqlite", sqlite, turns, recalls, single_syncs))
    if "postgresql" in stores:
        admin = os.environ.get("TFROBOT_BENCH_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
        name = f"tfrobot_bench_{uuid.uuid4().hex[:10]}"
        await pg_admin(admin, f'CREATE DATABASE "{name}"')
        try:
            url = make_url(admin).set(drivername="postgresql+asyncpg", database=name)
            pg = url.render_as_string(hide_password=False)
            results.append(await run_store("postgresql", pg, turns, recalls, single_syncs))
        finally:
            await pg_admin(admin, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    report(results, recalls)


if __name__ == "__main__":
    asyncio.run(main())
