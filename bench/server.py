"""TFSAction overhead: a get_list action through the API vs. a plain FastAPI route, same query.

The server runs in a child process (Uvicorn, loopback); this process is the load generator:
`--concurrency` keep-alive clients load each endpoint for `--seconds` in total, alternating
`--rounds` slices between the two so that drift affects both alike. It prints
throughput, p50/p99 latency and the ratios against the targets (throughput >= 85% of the plain
route, p99 <= 1.2x). Run with `make bench` or `python bench/server.py [--seconds 10]`.

No `from __future__ import annotations`: this module defines a FastAPI route.
"""

import argparse
import asyncio
import os
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
from sqlalchemy import func, select

from tfrobotserver.app.factory import create_app
from tfrobotserver.app.runtime import Runtime
from tfrobotserver.app.settings import ServerSettings
from tfrobotserver.dtos.factory.brain.memory.ai_memory import AIMemoryDoc
from tfrobotserver.dtos.pageable import PageableList
from tfrobotserver.robot.demo import build_demo_robot
from tfrobotserver.robot.factory.brain.memory.dpe_manage_mixin import memory_docs

PAGE = {"page": 2, "page_size": 20}


def build_app(data_dir: Path) -> FastAPI:
    """The real app plus `/plain/docs`: the same query written as an ordinary FastAPI route."""
    app = create_app(ServerSettings(data_dir=data_dir), robots=[build_demo_robot()])

    async def runtime(request: Request) -> Runtime:
        rt: Runtime = request.app.state.runtime
        await rt.ensure_started()
        return rt

    @app.get("/plain/docs")
    async def plain_docs(
        rt: Annotated[Runtime, Depends(runtime)],
        page: Annotated[int, Query(ge=1)] = 1,
        page_size: Annotated[int, Query(ge=1, le=200)] = 20,
    ) -> PageableList[AIMemoryDoc]:
        columns = (
            memory_docs.c.id.label("doc_id"),
            memory_docs.c.file_uri,
            memory_docs.c.file_type,
            memory_docs.c.keywords,
            memory_docs.c.doc_metadata,
        )
        where = memory_docs.c.collection == "demo"
        async with rt.sessions.begin() as session:
            total = (await session.execute(select(func.count()).select_from(memory_docs).where(where))).scalar_one()
            query = select(*columns).where(where).order_by(memory_docs.c.id).limit(page_size)
            rows = (await session.execute(query.offset((page - 1) * page_size))).mappings().all()
        items = [AIMemoryDoc.model_validate(dict(r)) for r in rows]
        return PageableList[AIMemoryDoc](items=items, page=page, page_size=page_size, total=total)

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


def _p(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else values[0]


async def _measure(base: str, seconds: float, concurrency: int, rounds: int) -> None:
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=30) as client:
        api_body = (await client.post("/api/robots/demo/components/memory/actions/aget_docs", json=PAGE)).json()
        plain_body = (await client.get("/plain/docs", params=PAGE)).json()
        if api_body != plain_body:
            raise SystemExit("the two endpoints do not return the same data; the comparison would be meaningless")
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="load duration per endpoint")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=5, help="alternating slices per endpoint")
    parser.add_argument("--port", type=int, default=8799)
    parser.add_argument("--serve", metavar="DATA_DIR", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        uvicorn.run(
            build_app(Path(args.serve)), host="127.0.0.1", port=args.port, log_level="warning", access_log=False
        )
        return
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
