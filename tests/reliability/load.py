"""Bounded load test: a real `tfrobot serve` on PostgreSQL, driven from other processes on loopback.

`python -m tests.reliability.load [--clients 200] [--seconds 60] [--runs 3] [--procs 2]` (`make soak`):

* creates its own PostgreSQL database (admin URL from $TFROBOT_TEST_PG_URL, default
  postgresql://postgres@127.0.0.1:5432/test), migrates it, and starts `tfrobot serve` on it with a read
  and a write token, on 127.0.0.1 and a free port;
* each run: `clients` concurrent clients, spread over `procs` load processes (one httpx event loop
  tops out near 130 requests/s on one core, so a single process would mostly measure itself), for
  `seconds`, each looping over a mix of document page reads (`aget_docs`, 60 %), document updates
  (`aupdate_doc`, 20 %) over HTTP, and chat turns (20 %): a `Brain` with the demo `ScriptedChat` chain
  on the same database (this branch's server has no chat action yet, so turns run in the load
  processes, against the same PostgreSQL, concurrently with the server);
* prints throughput, p50/p99 per operation, errors, and the server's resident memory after each run;
  exits 1 on any error. Only loopback traffic; everything is dropped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import httpx
from sqlalchemy.engine import make_url

from tfrobot.brain.brain import Brain
from tfrobot.brain.demo import demo_chain
from tfrobot.brain.memory import SQLMessageStore
from tfrobot.schema.message import TextMessage

ADMIN = os.environ.get("TFROBOT_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
DOCS = "/api/robots/demo/components/memory/actions"


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


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else 0.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def _admin(statement: str) -> None:
    conn = await asyncpg.connect(ADMIN)
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


async def _client(
    n: int, http: httpx.AsyncClient, brain: Brain, stats: Stats, deadline: float, write: dict[str, str], chat: float
) -> None:
    rng = random.Random(n)
    conversation = f"load-{n}-{uuid.uuid4().hex[:6]}"
    turn = 0
    while time.perf_counter() < deadline:
        roll = rng.random()
        start = time.perf_counter()
        try:
            if roll < 0.75 * (1 - chat):
                kind = "read docs"
                response = await http.post(f"{DOCS}/aget_docs", json={"page": rng.randint(1, 3), "page_size": 20})
            elif roll < 1 - chat:
                kind = "update doc"
                params = {"doc_id": rng.randint(1, 42), "keywords": [f"k{rng.randint(0, 9)}"], "metadata": {"n": n}}
                response = await http.post(f"{DOCS}/aupdate_doc", json=params, headers=write)
            else:
                kind = "chat turn"
                question = "weather in Paris and Tokyo?" if turn % 2 == 0 else "and tomorrow?"
                turn += 1
                await brain.run(TextMessage(content=question, conversation_id=conversation))
                stats.ok(kind, time.perf_counter() - start)
                continue
            if response.status_code != 200:
                stats.error(kind, f"HTTP {response.status_code} {response.text}")
                continue
            stats.ok(kind, time.perf_counter() - start)
        except Exception as exc:
            stats.error(kind, f"{type(exc).__name__}: {exc}")


async def drive(job: dict[str, Any]) -> Stats:
    """One load process: `clients` concurrent clients for `seconds` against the server and the database."""
    store = SQLMessageStore(job["url"])
    brain = Brain(demo_chain(), store, recall_turns=4)
    stats = Stats()
    read = {"Authorization": f"Bearer {job['read']}"}
    write = {"Authorization": f"Bearer {job['write']}"}
    # idle connections are dropped before uvicorn's 5 s keep-alive timeout closes them under us
    limits = httpx.Limits(max_connections=job["clients"], max_keepalive_connections=job["clients"], keepalive_expiry=2)
    try:
        async with httpx.AsyncClient(base_url=job["base"], headers=read, timeout=30, limits=limits) as http:
            deadline = time.perf_counter() + job["seconds"]
            first = job["first"]
            await asyncio.gather(
                *(
                    _client(n, http, brain, stats, deadline, write, job["chat"])
                    for n in range(first, first + job["clients"])
                )
            )
    finally:
        await store.aclose()
    return stats


async def run_load(clients: int, seconds: float, runs: int, chat: float = 0.2, procs: int = 1) -> int:
    name = f"tfrobot_load_{uuid.uuid4().hex[:10]}"
    await _admin(f'CREATE DATABASE "{name}"')
    url = make_url(ADMIN).set(drivername="postgresql+asyncpg", database=name).render_as_string(hide_password=False)
    read_secret, write_secret = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
    server: subprocess.Popen[bytes] | None = None
    failures = 0
    try:
        store = SQLMessageStore(url)
        await store.migrate()
        with tempfile.TemporaryDirectory() as config:
            port = _free_port()
            Path(config, "server.toml").write_text(
                f'database_url = "{url}"\n'
                f'[[tokens]]\nname = "reader"\nscopes = ["read"]\nsecret = "{read_secret}"\n'
                f'[[tokens]]\nname = "writer"\nscopes = ["write"]\nsecret = "{write_secret}"\n'
            )
            tfrobot = Path(sys.executable).with_name("tfrobot")
            server = subprocess.Popen(
                [str(tfrobot), "serve", "--config", config, "--port", str(port)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            base = f"http://127.0.0.1:{port}"
            read = {"Authorization": f"Bearer {read_secret}"}
            async with httpx.AsyncClient(base_url=base, headers=read, timeout=5) as probe:
                for _ in range(100):
                    try:
                        if (await probe.get("/api/robots")).status_code == 200:
                            break
                    except httpx.TransportError:
                        pass
                    await asyncio.sleep(0.1)
                else:
                    raise RuntimeError("the server did not come up within 10 s")
            print(
                f"load: {clients} clients in {procs} load process(es) x {seconds:g} s, {runs} runs, "
                f"tfrobot serve on {base} + PostgreSQL"
            )
            job = {"base": base, "read": read_secret, "write": write_secret, "url": url, "seconds": seconds}
            for run in range(1, runs + 1):
                workers = [
                    await asyncio.create_subprocess_exec(
                        sys.executable,
                        "-m",
                        "tests.reliability.load",
                        "--worker",
                        json.dumps({**job, "clients": clients // procs, "first": i * (clients // procs), "chat": chat}),
                        stdout=asyncio.subprocess.PIPE,
                        cwd=Path(__file__).parents[2],
                    )
                    for i in range(procs)
                ]
                stats = Stats()
                for worker in workers:
                    out, _ = await worker.communicate()
                    part = json.loads(out)
                    for kind, values in part["latencies"].items():
                        stats.latencies.setdefault(kind, []).extend(values)
                    for kind, count in part["errors"].items():
                        stats.errors[kind] = stats.errors.get(kind, 0) + count
                    stats.samples += part["samples"]
                total = sum(len(v) for v in stats.latencies.values())
                errors = sum(stats.errors.values())
                failures += errors
                parts = ", ".join(
                    f"{kind} {len(v)} (p50 {_pct(v, 0.5):.0f} ms, p99 {_pct(v, 0.99):.0f} ms)"
                    for kind, v in sorted(stats.latencies.items())
                )
                print(
                    f"run {run}: {total / seconds:.0f} ops/s, {errors} errors; {parts}; "
                    f"server RSS {_rss_mib(server.pid):.0f} MiB"
                )
                for sample in stats.samples[:5]:
                    print(f"  error: {sample}")
        await store.aclose()
    finally:
        if server is not None:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()
        await _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    return 1 if failures else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--chat", type=float, default=0.2, help="share of chat turns (the rest: 3 reads : 1 update)")
    parser.add_argument("--procs", type=int, default=1, help="load processes the clients are spread over")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        stats = asyncio.run(drive(json.loads(args.worker)))
        print(json.dumps({"latencies": stats.latencies, "errors": stats.errors, "samples": stats.samples}))
        return
    sys.exit(asyncio.run(run_load(args.clients, args.seconds, args.runs, args.chat, args.procs)))


if __name__ == "__main__":
    main()
