"""TFSAction overhead: a get_list action through the API vs. a plain FastAPI route, same query.

The server runs in a child process (Uvicorn, loopback); this process is the load generator:
`--concurrency` keep-alive clients load each endpoint for `--seconds` in total, alternating
`--rounds` slices between the two so that drift affects both alike. It prints
throughput, p50/p99 latency and the ratios against the targets (throughput >= 85% of the plain
route, p99 <= 1.2x). Run with `make bench` or `python bench/server.py [--seconds 10]`; `--smoke`
loads each endpoint for a moment (the harness's correctness only).

The plain route calls the demo memory component's own `aget_docs` with a session and returns what it
returns: the same query and the same rows by construction, without the protocol (no action routing,
no parameter schema, no resolver, no action envelope). An earlier version repeated the query by hand
and drifted from the component when the component added a column (`excerpt`), which stopped the
bench; the two bodies are still compared before any load, and a difference is reported with its path.

No `from __future__ import annotations`: this module defines a FastAPI route.
"""

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Annotated

import httpx
import uvicorn
from fastapi import Depends, FastAPI, Query, Request

from harness.json_diff import first_difference
from tfrobotserver.app.factory import create_app
from tfrobotserver.app.runtime import Runtime
from tfrobotserver.app.settings import ServerSettings
from tfrobotserver.dtos.factory.brain.memory.ai_memory import AIMemoryDoc, AIMemoryDocPage
from tfrobotserver.robot.demo import build_demo_robot
from tfrobotserver.robot.factory.brain.memory.memory_component import MemoryComponent

PAGE = {"page": 2, "page_size": 20}


def build_app(data_dir: Path) -> FastAPI:
    """The real app plus `/plain/docs`: the memory component's `aget_docs` behind an ordinary FastAPI route."""
    robot = build_demo_robot()
    memory = robot.components["memory"]
    if not isinstance(memory, MemoryComponent):
        raise SystemExit(f"the demo robot's `memory` component is a {type(memory).__name__}, not a MemoryComponent")
    app = create_app(ServerSettings(data_dir=data_dir), robots=[robot])

    async def runtime(request: Request) -> Runtime:
        rt: Runtime = request.app.state.runtime
        await rt.ensure_started()
        return rt

    @app.get("/plain/docs")
    async def plain_docs(
        rt: Annotated[Runtime, Depends(runtime)],
        page: Annotated[int, Query(ge=1)] = 1,
        page_size: Annotated[int, Query(ge=1, le=200)] = 20,
    ) -> AIMemoryDocPage[AIMemoryDoc]:
        async with rt.sessions.begin() as session:
            return await memory.aget_docs(session, page=page, page_size=page_size)

    return app


async def _load(client: httpx.AsyncClient, send: str, seconds: float, concurrency: int) -> list[float]:
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds

    async def worker() -> None:
        while time.perf_counter() < deadline:
            start = time.perf_counter()
            if send == "api":
                response = await client.post("/api/robots/demo/components/memory/actions/aget_docs", json=PAGE)
            else:
                response = await client.get("/plain/docs", params=PAGE)
            response.raise_for_status()
            latencies.append(time.perf_counter() - start)

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return latencies


def _p(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else values[0]


async def _measure(base: str, seconds: float, concurrency: int, rounds: int) -> None:
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=30) as client:
        api_body = (await client.post("/api/robots/demo/components/memory/actions/aget_docs", json=PAGE)).json()
        plain_body = (await client.get("/plain/docs", params=PAGE)).json()
        if (where := first_difference(api_body, plain_body)) is not None:
            raise SystemExit(
                f"the two endpoints do not return the same data ({where}, the action's first); the comparison "
                "would be meaningless. Fix: make the plain route return what the action returns."
            )
        for send in ("plain", "api"):
            await _load(client, send, min(1.0, seconds), concurrency)  # warm-up
        # alternate short slices so that drift on a shared machine hits both endpoints alike
        latencies: dict[str, list[float]] = {"plain": [], "api": []}
        for _ in range(rounds):
            for send in ("plain", "api"):
                latencies[send] += await _load(client, send, seconds / rounds, concurrency)
        results = {}
        for send, lat in latencies.items():
            results[send] = (len(lat) / seconds, _p(lat, 50), _p(lat, 99))
            rps, p50, p99 = results[send]
            print(f"{send:6} {rps:9.1f} req/s   p50 {p50 * 1000:7.2f} ms   p99 {p99 * 1000:7.2f} ms")
    throughput = results["api"][0] / results["plain"][0]
    p99_ratio = results["api"][2] / results["plain"][2]
    print(f"TFSAction / plain: throughput {throughput:.1%} (target >= 85%), p99 {p99_ratio:.2f}x (target <= 1.2x)")
    print("targets met" if throughput >= 0.85 and p99_ratio <= 1.2 else "targets NOT met")


def _wait_ready(base: str, proc: subprocess.Popen[bytes]) -> None:
    for _ in range(200):
        if proc.poll() is not None:
            raise SystemExit("the server process exited during start-up")
        try:
            if httpx.get(f"{base}/api/robots", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    raise SystemExit("the server did not start within 10 s")


def _free_port() -> int:
    """A loopback port nobody listens on now (the child binds it a moment later)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="load duration per endpoint")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=5, help="alternating slices per endpoint")
    parser.add_argument("--port", type=int, default=0, help="loopback port of the server (0: a free one)")
    parser.add_argument("--smoke", action="store_true", help="load each endpoint for a moment")
    parser.add_argument("--serve", metavar="DATA_DIR", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.smoke:
        args.seconds, args.concurrency, args.rounds = 0.4, 4, 2
    if args.serve:
        uvicorn.run(
            build_app(Path(args.serve)), host="127.0.0.1", port=args.port, log_level="warning", access_log=False
        )
        return
    args.port = args.port or _free_port()
    base = f"http://127.0.0.1:{args.port}"
    with tempfile.TemporaryDirectory(prefix="tfrobot-bench-") as data_dir:
        cmd = [sys.executable, __file__, "--serve", data_dir, "--port", str(args.port)]
        proc = subprocess.Popen(cmd, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        try:
            _wait_ready(base, proc)
            print(f"server pid {proc.pid} on {base}; {args.concurrency} clients, {args.seconds:g} s per endpoint")
            asyncio.run(_measure(base, args.seconds, args.concurrency, args.rounds))
        finally:
            proc.terminate()
            proc.wait(timeout=10)


if __name__ == "__main__":
    main()
