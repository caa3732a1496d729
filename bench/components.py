"""Component data at scale: documents and a knowledge graph in PostgreSQL, measured through the HTTP API.

Seeds `--docs` documents (default 1,000,000) and a graph of `--nodes` nodes / `--edges` edges (default
100,000 / 300,000) with COPY into a throw-away database, then times, through the real app (FastAPI via
httpx's ASGI transport, one request at a time):

* `aget_docs` (offset pages, with the total count) — page 1 and page 10,000;
* `aget_docs_by_cursor` — the first page and pages at random depths (page 10,000 included);
* `asearch_docs` — by keyword (JSONB containment, GIN) and by full text (tsvector, GIN);
* `aget_graph` — the depth-2 neighbourhood of a hub node (capped at 500 nodes).

Targets: cursor pages p99 < 20 ms at any depth; depth-2 neighbourhood p99 < 50 ms. Offset pages are
reported for what they cost (COUNT(*) plus OFFSET grow with the collection and the depth).

    python bench/components.py                                 # full size
    python bench/components.py --docs 100000 --nodes 20000 --edges 60000
    python bench/components.py --smoke                         # toy sizes: the harness only

PostgreSQL: `$TFROBOT_BENCH_PG_URL` (default postgresql://postgres@127.0.0.1:5432/test) is used to create
and afterwards drop the database; with `TFROBOT_SKIP_PG=1` (as for the tests) the bench is skipped.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import statistics
import time
import uuid
from collections.abc import Iterator
from typing import Any

import asyncpg
import httpx
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from sqlalchemy.engine import make_url

from tfrobotserver.app.factory import create_app
from tfrobotserver.app.settings import ServerSettings
from tfrobotserver.robot.base import Robot
from tfrobotserver.robot.factory.brain.memory.graph_component import GraphComponent
from tfrobotserver.robot.factory.brain.memory.memory_component import MemoryComponent

COLLECTION = "bench"
BATCH = 20_000
HUB = "n:0"
HUB_DEGREE = 120
KEYWORDS = 1_000
VOCABULARY = [f"w{i:04d}" for i in range(5_000)]
console = Console()


def doc_records(count: int, rng: random.Random) -> Iterator[tuple[Any, ...]]:
    for i in range(1, count + 1):
        words = " ".join(rng.choices(VOCABULARY, k=24))
        keywords = json.dumps([f"kw-{rng.randrange(KEYWORDS)}" for _ in range(3)])
        yield (COLLECTION, f"memory://bench/doc-{i}.txt", "txt", keywords, json.dumps({"n": i}), words)


def edge_records(nodes: int, edges: int, rng: random.Random) -> Iterator[tuple[Any, ...]]:
    seen: set[tuple[int, int, int]] = set()
    for j in range(1, HUB_DEGREE + 1):
        seen.add((0, 0, j))
        yield (COLLECTION, HUB, "ex:links", f"n:{j}", "links", None)
    while len(seen) < edges:
        key = (rng.randrange(1, nodes), rng.randrange(4), rng.randrange(1, nodes))
        if key in seen or key[0] == key[2]:
            continue
        seen.add(key)
        yield (COLLECTION, f"n:{key[0]}", f"ex:p{key[1]}", f"n:{key[2]}", f"p{key[1]}", None)


async def copy_in(
    conn: asyncpg.Connection, table: str, columns: list[str], rows: Iterator[tuple[Any, ...]], total: int, what: str
) -> None:
    with Progress(
        TextColumn(f"seeding {what}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), console=console
    ) as progress:
        task = progress.add_task(what, total=total)
        batch: list[tuple[Any, ...]] = []
        for row in rows:
            batch.append(row)
            if len(batch) == BATCH:
                await conn.copy_records_to_table(table, records=batch, columns=columns)
                progress.advance(task, len(batch))
                batch = []
        if batch:
            await conn.copy_records_to_table(table, records=batch, columns=columns)
            progress.advance(task, len(batch))


async def seed(dsn: str, docs: int, nodes: int, edges: int) -> None:
    rng = random.Random(7)
    conn = await asyncpg.connect(dsn)
    try:
        # bulk load without the GIN indexes, then build them once (much faster than row-by-row maintenance)
        await conn.execute("DROP INDEX IF EXISTS ix_memory_docs_fts; DROP INDEX IF EXISTS ix_memory_docs_keywords")
        await copy_in(
            conn, "memory_docs", ["collection", "file_uri", "file_type", "keywords", "doc_metadata", "text_content"],
            doc_records(docs, rng), docs, "documents",
        )  # fmt: skip
        await copy_in(
            conn, "graph_nodes", ["collection", "iri", "label", "cls", "properties"],
            ((COLLECTION, f"n:{i}", f"Node {i}", json.dumps("Thing"), None) for i in range(nodes)), nodes, "nodes",
        )  # fmt: skip
        await copy_in(
            conn, "graph_edges", ["collection", "source", "property", "target", "label", "properties"],
            edge_records(nodes, edges, rng), edges, "edges",
        )  # fmt: skip
        with console.status("building the GIN indexes (full text, keywords) and analysing"):
            started = time.perf_counter()
            await conn.execute("CREATE INDEX ix_memory_docs_fts ON memory_docs USING gin (text_tsv)")
            await conn.execute("CREATE INDEX ix_memory_docs_keywords ON memory_docs USING gin (keywords)")
            await conn.execute("VACUUM ANALYZE")  # as autovacuum would, but before measuring, not during
        console.print(f"indexes built in {time.perf_counter() - started:.1f} s")
    finally:
        await conn.close()


async def timed(client: httpx.AsyncClient, component: str, action: str, params: dict[str, Any]) -> float:
    started = time.perf_counter()
    response = await client.post(f"/api/robots/bench/components/{component}/actions/{action}", json=params)
    elapsed = (time.perf_counter() - started) * 1000
    if response.status_code != 200:
        raise RuntimeError(f"{action} {params}: {response.status_code} {response.text[:300]}")
    return elapsed


def p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


async def measure(url: str, docs: int, nodes: int, requests: int) -> list[tuple[str, list[float], float | None]]:
    app = create_app(ServerSettings(database_url=url), robots=[bench_robot()])
    rng = random.Random(11)
    page_size = 20
    deep_page = min(10_000, max(1, docs // page_size))
    rows: list[tuple[str, list[float], float | None]] = []
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as client:
        for _ in range(20):  # warm the pool and the caches
            await timed(client, "memory", "aget_docs_by_cursor", {"page_size": page_size})
        gc.collect()
        gc.freeze()  # as a long-running server after start-up: the seeding's objects are not scanned per request

        async def run(label: str, component: str, action: str, params: Any, n: int, target: float | None) -> None:
            for _ in range(3):  # prepared statements, caches
                await timed(client, component, action, params() if callable(params) else params)
            samples = [
                await timed(client, component, action, params() if callable(params) else params) for _ in range(n)
            ]
            rows.append((label, samples, target))

        await run("aget_docs page 1 (offset + count)", "memory", "aget_docs", {"page": 1}, requests // 4, None)
        await run(f"aget_docs page {deep_page:,} (offset + count)", "memory", "aget_docs", {"page": deep_page},
                  max(10, requests // 10), None)  # fmt: skip
        await run("aget_docs_by_cursor first page", "memory", "aget_docs_by_cursor", {}, requests, 20.0)
        deep_cursor = str((deep_page - 1) * page_size)
        await run(f"aget_docs_by_cursor page {deep_page:,}", "memory", "aget_docs_by_cursor",
                  {"cursor": deep_cursor}, requests, 20.0)  # fmt: skip
        await run("aget_docs_by_cursor random depth", "memory", "aget_docs_by_cursor",
                  lambda: {"cursor": str(rng.randrange(docs))}, requests, 20.0)  # fmt: skip
        await run("asearch_docs keyword (first page)", "memory", "asearch_docs",
                  lambda: {"query": f"kw-{rng.randrange(KEYWORDS)}", "mode": "keyword"}, requests, None)  # fmt: skip
        await run("asearch_docs full text, 1 word", "memory", "asearch_docs",
                  lambda: {"query": rng.choice(VOCABULARY), "mode": "fulltext"}, requests, None)  # fmt: skip
        await run("asearch_docs full text, 2 words", "memory", "asearch_docs",
                  lambda: {"query": " ".join(rng.sample(VOCABULARY, 2)), "mode": "fulltext"}, requests // 2,
                  None)  # fmt: skip
        await run(f"aget_graph depth 2 around {HUB}", "graph", "aget_graph", {"iri": HUB, "depth": 2}, requests, 50.0)
        await run("aget_graph depth 2 around a random node", "graph", "aget_graph",
                  lambda: {"iri": f"n:{rng.randrange(1, nodes)}", "depth": 2}, requests, 50.0)  # fmt: skip
        sizes = await client.post(
            "/api/robots/bench/components/graph/actions/aget_graph", json={"iri": HUB, "depth": 2}
        )
        graph = sizes.json()
        console.print(f"hub neighbourhood at depth 2: {len(graph['nodes'])} nodes, {len(graph['edges'])} edges "
                      "(capped at 500 nodes)")  # fmt: skip
    await app.state.runtime.aclose()
    return rows


def bench_robot() -> Robot:
    return Robot(
        "bench", {"memory": MemoryComponent(collection=COLLECTION), "graph": GraphComponent(collection=COLLECTION)}
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=1_000_000)
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--edges", type=int, default=300_000)
    parser.add_argument("--requests", type=int, default=200, help="requests per measured action")
    parser.add_argument("--smoke", action="store_true", help="300 docs, 200 nodes, 600 edges, 8 requests")
    args = parser.parse_args()
    if args.smoke:
        args.docs, args.nodes, args.edges, args.requests = 300, 200, 600, 8
    if os.environ.get("TFROBOT_SKIP_PG") == "1":
        console.print("TFROBOT_SKIP_PG=1: this bench needs PostgreSQL; skipped")
        return
    admin = os.environ.get("TFROBOT_BENCH_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
    name = f"tfrobot_bench_{uuid.uuid4().hex[:10]}"
    admin_dsn = make_url(admin).set(drivername="postgresql").render_as_string(hide_password=False)
    conn = await asyncpg.connect(admin_dsn)
    await conn.execute(f'CREATE DATABASE "{name}"')
    await conn.close()
    url = make_url(admin).set(drivername="postgresql+asyncpg", database=name).render_as_string(hide_password=False)
    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    try:
        app = create_app(ServerSettings(database_url=url), robots=[bench_robot()])
        await app.state.runtime.ensure_started()  # creates the tables and indexes as the server does
        await app.state.runtime.aclose()
        started = time.perf_counter()
        await seed(dsn, args.docs, args.nodes, args.edges)
        console.print(
            f"seeded {args.docs:,} documents, {args.nodes:,} nodes, {args.edges:,} edges "
            f"in {time.perf_counter() - started:.0f} s"
        )
        rows = await measure(url, args.docs, args.nodes, args.requests)
    finally:
        conn = await asyncpg.connect(admin_dsn)
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.close()
    table = Table(title=f"Components through the HTTP API — PostgreSQL, {args.docs:,} docs, "
                        f"{args.nodes:,} nodes / {args.edges:,} edges")  # fmt: skip
    for column in ("action", "n", "p50 ms", "p99 ms", "target p99", "ok"):
        table.add_column(column, justify="left" if column == "action" else "right")
    failed = []
    for label, samples, target in rows:
        worst = p99(samples)
        ok = "" if target is None else ("yes" if worst < target else "NO")
        if ok == "NO":
            failed.append(label)
        table.add_row(label, str(len(samples)), f"{statistics.median(samples):.1f}", f"{worst:.1f}",
                      "-" if target is None else f"< {target:.0f}", ok)  # fmt: skip
    console.print(table)
    console.print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}, CPUs: {os.cpu_count()}")
    if failed:
        console.print(f"[red]over target: {', '.join(failed)}[/red]")


if __name__ == "__main__":
    asyncio.run(main())
