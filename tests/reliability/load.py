"""Bounded load test: a real `tfrobot serve` on PostgreSQL, driven from other processes on loopback.

`python -m tests.reliability.load [--clients 200] [--seconds 60] [--runs 3] [--procs 2] [--think 1]
[--warmup 5] [--workers 1]` (`make soak`):

* creates its own PostgreSQL database (admin URL from $TFROBOT_TEST_PG_URL, default
  postgresql://postgres@127.0.0.1:5432/test), migrates it, and starts `tfrobot serve` on it with a read
  and a write token, on 127.0.0.1 and a free port (`workers` server processes);
* each run: `clients` concurrent clients, spread over `procs` load processes, for a `warmup` reported
  apart (connections opening, pools filling) and then `seconds` measured. Each client
  holds one keep-alive connection and loops: one operation, then a think time drawn uniformly from
  0.5-1.5 x `think` seconds (0: no pause, which measures the server's saturated throughput instead of
  the latency a population of users sees). Operations: document page reads (`aget_docs`, 60 %),
  document updates (20 %: `aget_doc`, then `aupdate_doc` with the version read; a 409 under contention
  is sent again with the version it names, as the console's "overwrite" does) and chat turns (20 %:
  `POST /api/robots/demo/chat`, the demo
  `ScriptedChat` robot with tools and TFL, each client in its own conversation, stored on the same
  PostgreSQL);
* prints throughput, p50/p99 per operation, errors, the server's CPU and its resident memory after
  each run;
  exits 1 on any error. Only loopback traffic; everything is dropped at the end.

The clients speak HTTP/1.1 over asyncio streams directly (`servers.HttpConnection`), so that the load
generator stays light and the server is what is measured, even on a two-core machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.reliability.servers import HttpConnection, fresh_database, serve, update_doc
from tfrobot.brain.memory import SQLMessageStore

DOCS = "/api/robots/demo/components/memory/actions"
CHAT = "/api/robots/demo/chat"


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    samples: list[str] = field(default_factory=list)

    def ok(self, kind: str, seconds: float) -> None:
        self.latencies.setdefault(kind, []).append(seconds)

    def error(self, kind: str, what: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1
        if len(self.samples) < 5:
            self.samples.append(f"{kind}: {what}"[:300])

    def merge(self, part: dict[str, Any]) -> None:
        for kind, values in part["latencies"].items():
            self.latencies.setdefault(kind, []).extend(values)
        for kind, count in part["errors"].items():
            self.errors[kind] = self.errors.get(kind, 0) + count
        self.samples += part["samples"]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else 0.0


def _cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of processes so far."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def _rss_mib(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total / 1024


def _server_pids(pid: int) -> list[int]:
    """The server and, with --workers, its worker processes."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    return [pid, *(int(c) for c in children.read_text().split())] if children.exists() else [pid]


def _figures(stats: Stats, seconds: float) -> str:
    total = sum(len(v) for v in stats.latencies.values())
    parts = ", ".join(
        f"{kind} {len(v)} (p50 {_pct(v, 0.5):.0f} ms, p99 {_pct(v, 0.99):.0f} ms)"
        for kind, v in sorted(stats.latencies.items())
    )
    return f"{total / seconds:.0f} ops/s, {sum(stats.errors.values())} errors; {parts}"


async def _client(n: int, job: dict[str, Any], stats: Stats, warm: Stats, deadline: float) -> None:
    rng = random.Random(n)
    think: float = job["think"]
    conversation = f"load-{n}-{uuid.uuid4().hex[:6]}"
    conn = HttpConnection(job["port"])
    turn = 0
    await asyncio.sleep(rng.uniform(0, think))  # users arrive spread over one think time, not at once
    try:
        while time.perf_counter() < deadline:
            roll = rng.random()
            if roll < 0.75 * (1 - job["chat"]):
                kind, path, token = "read docs", f"{DOCS}/aget_docs", job["read"]
                payload: dict[str, Any] = {"page": rng.randint(1, 3), "page_size": 20}
            elif roll < 1 - job["chat"]:
                kind, path, token = "update doc", f"{DOCS}/aupdate_doc", job["write"]
                payload = {"doc_id": rng.randint(1, 42), "keywords": [f"k{rng.randint(0, 9)}"], "metadata": {"n": n}}
            else:
                kind, path, token = "chat turn", CHAT, job["write"]
                question = "weather in Paris and Tokyo?" if turn % 2 == 0 else "and tomorrow?"
                payload = {"message": question, "conversationId": conversation}
                turn += 1
            start = time.perf_counter()
            counted = stats if start >= deadline - job["seconds"] else warm
            try:
                if kind == "update doc":
                    status, body = await update_doc(conn, payload, token)
                else:
                    status, body = await conn.post(path, payload, token)
            except Exception as exc:
                counted.error(kind, f"{type(exc).__name__}: {exc}")
                conn.close()
            else:
                if status == 200:
                    counted.ok(kind, time.perf_counter() - start)
                else:
                    counted.error(kind, f"HTTP {status} {body[:200]!r}")
            if think:
                await asyncio.sleep(rng.uniform(0.5, 1.5) * think)
    finally:
        conn.close()


async def drive(job: dict[str, Any]) -> tuple[Stats, Stats]:
    """One load process: `clients` concurrent clients for `warmup` + `seconds` against the server; the
    figures of the measured `seconds` and, apart, those of the warm-up."""
    stats, warm = Stats(), Stats()
    deadline = time.perf_counter() + job["warmup"] + job["seconds"]
    first = job["first"]
    await asyncio.gather(*(_client(n, job, stats, warm, deadline) for n in range(first, first + job["clients"])))
    return stats, warm


async def run_load(
    clients: int,
    seconds: float,
    runs: int,
    chat: float = 0.2,
    procs: int = 1,
    think: float = 1.0,
    warmup: float = 5.0,
    workers: int = 1,
) -> int:
    """Start a server on a fresh database, drive it `runs` times, print the figures; 1 on any error."""
    failures = 0
    async with fresh_database() as url:
        store = SQLMessageStore(url)
        await store.migrate()
        await store.aclose()
        async with serve(url, workers=workers) as (server,):
            print(
                f"load: {clients} clients in {procs} load process(es) x {seconds:g} s after a {warmup:g} s "
                f"warm-up, think time {think:g} s, {runs} runs, tfrobot serve ({workers} worker(s)) on "
                f"127.0.0.1:{server.port} + PostgreSQL"
            )
            job = {"port": server.port, "read": server.read, "write": server.write, "warmup": warmup}
            job |= {"seconds": seconds, "chat": chat, "think": think, "clients": clients // procs}
            for run in range(1, runs + 1):
                pids = _server_pids(server.process.pid)
                cpu = _cpu_seconds(pids)
                stats, warm = await _run_once(job, procs)
                busy = (_cpu_seconds(pids) - cpu) / (warmup + seconds)
                failures += sum(stats.errors.values()) + sum(warm.errors.values())
                print(
                    f"run {run}: {_figures(stats, seconds)}; server CPU {busy:.0%} of a core, "
                    f"RSS {_rss_mib(pids):.0f} MiB"
                )
                if warmup:
                    print(f"  warm-up {warmup:g} s (not counted above): {_figures(warm, warmup)}")
                for sample in (stats.samples + warm.samples)[:5]:
                    print(f"  error: {sample}")
    return 1 if failures else 0


async def _run_once(job: dict[str, Any], procs: int) -> tuple[Stats, Stats]:
    workers = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.reliability.load",
            "--worker",
            json.dumps({**job, "first": i * job["clients"]}),
            stdout=asyncio.subprocess.PIPE,
            cwd=Path(__file__).parents[2],
        )
        for i in range(procs)
    ]
    stats, warm = Stats(), Stats()
    for worker in workers:
        out, _ = await worker.communicate()
        if worker.returncode != 0:
            raise RuntimeError(f"load process exited with {worker.returncode}")
        measured, warming = json.loads(out)
        stats.merge(measured)
        warm.merge(warming)
    return stats, warm


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--chat", type=float, default=0.2, help="share of chat turns (the rest: 3 reads : 1 update)")
    parser.add_argument("--procs", type=int, default=1, help="load processes the clients are spread over")
    parser.add_argument("--think", type=float, default=1.0, help="mean pause of a client between operations (s)")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds of load before measuring (reported apart)")
    parser.add_argument("--workers", type=int, default=1, help="server worker processes (tfrobot serve --workers)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps([vars(stats) for stats in asyncio.run(drive(json.loads(args.worker)))]))
        return
    options = {k: getattr(args, k) for k in ("chat", "procs", "think", "warmup", "workers")}
    sys.exit(asyncio.run(run_load(args.clients, args.seconds, args.runs, **options)))


if __name__ == "__main__":
    main()
