"""Bounded work, against a real `tfrobot serve`: one client's CPU-heavy request does not stall the others.

THREATS.md, "Bounded work": templates, TFL scripts, regular expressions from configs and PDF parsing
run off the event loop. Each case sends one hostile request on one connection while a second connection
sends cheap reads (`aget_doc_types`) back to back; the figures (their latencies while the hostile
request ran) are printed, and their p99 must stay under `P99` (before these fixes: the whole duration
of the hostile request, seconds).
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import time
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass
from typing import Any

import pytest
import pytest_asyncio

from tests.reliability.servers import HttpConnection, Server, fresh_database, serve
from tests.tfrobotserver.robot.factory.brain.memory.pdf import make_pdf

SOAK = os.environ.get("RELIABILITY_SOAK") == "1"
"""The long variant reads the PDF of the issue (40 pages at ~70 ms a page); the fast one a lighter one."""
P99 = 0.5
"""Seconds a cheap read may take at the 99th percentile while another client's hostile request runs. A read
blocked by the hostile request takes its whole duration (4.5 s for the 20,001-message draft before its fix);
one that is not measured 0.19-0.27 s on the faster VMs and 0.28 s on a VM ~1.5x slower (the bound was 0.25 s)."""
BASE = "/api/robots/attacker"
SLOW_TFL = (
    's = "x" * 1000000\nt = "x" * 999999 + "x"\nn = 0\nfor i in range(10000):\n    if s == t:\n        n = n + 1\n'
    "print(n)"
)
"""10,000 comparisons of two distinct, equal megabyte strings: about half a second of CPU, within every TFL limit."""
FENCE = f"```tfl\n{SLOW_TFL}\n```"
TEMPLATE = "{% for i in range(n) %}{% set words = text|wordcount %}{% endfor %}done"
RULES = [
    {"user": "^spin", "reply": f"Three plans.\n{FENCE}\n{FENCE}\n{FENCE}"},
    {"after": "console", "reply": "Done: {results}"},
]
ROBOT = {
    "name": "attacker",
    "llm": {"provider": "scripted", "params": {"rules": RULES}},
    "prompt": {"template": TEMPLATE, "defaults": {"n": 0, "text": ""}},
    "documents": {"collection": "attacker"},
    "max_steps": 2,
}


@dataclass
class Figures:
    """The cheap reads' latencies while one hostile request ran, and how that request ended."""

    name: str
    latencies: list[float]
    took: float
    status: int
    body: Any

    def quantile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(int(len(ordered) * q), len(ordered) - 1)]

    def report(self) -> str:
        return (
            f"{self.name}: hostile request {self.took * 1000:.0f} ms (HTTP {self.status}); {len(self.latencies)} "
            f"cheap reads meanwhile: p50 {self.quantile(0.5) * 1000:.1f} ms, p99 {self.quantile(0.99) * 1000:.1f} "
            f"ms, max {max(self.latencies) * 1000:.1f} ms"
        )


pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server() -> AsyncIterator[Server]:
    # traced=False: the figures are the event loop's latency, not what the coverage tracer costs the server
    async with (
        fresh_database() as url,
        serve(url, robots={"attacker.json": json.dumps(ROBOT)}, traced=False) as servers,
    ):
        yield servers[0]


async def _under_attack(server: Server, name: str, hostile: Awaitable[tuple[int, bytes]]) -> Figures:
    """Cheap reads on their own connection for as long as `hostile` runs (and at least a few)."""
    probe = HttpConnection(server.port)
    await probe.post(f"{BASE}/components/memory/actions/aget_doc_types", {}, server.read)  # connected, warm
    started = time.monotonic()
    attack = asyncio.ensure_future(hostile)
    latencies: list[float] = []
    try:
        while not attack.done() or len(latencies) < 5:
            sent = time.monotonic()
            status, _ = await probe.post(f"{BASE}/components/memory/actions/aget_doc_types", {}, server.read)
            latencies.append(time.monotonic() - sent)
            assert status == 200
            await asyncio.sleep(0.005)
        status, body = await attack
    finally:
        probe.close()
    figures = Figures(name, latencies, time.monotonic() - started, status, json.loads(body or b"null"))
    print(f"\n{figures.report()}")
    return figures


async def _post(server: Server, path: str, payload: Any, token: str) -> tuple[int, bytes]:
    connection = HttpConnection(server.port)
    try:
        return await connection.post(f"{BASE}{path}", payload, token)
    finally:
        connection.close()


async def test_a_chat_turn_with_heavy_tfl_blocks(server: Server) -> None:
    turn = _post(server, "/chat", {"message": "spin"}, server.write)
    figures = await _under_attack(server, "chat turn with three ```tfl blocks", turn)
    assert figures.status == 200, figures.body
    assert figures.body["message"]["content"] == "Done: 10000; 10000; 10000"
    assert figures.quantile(0.99) < P99


async def test_a_costly_pdf_ingest(server: Server) -> None:
    pdf = make_pdf("Heavy page of words", pages=40, repeat=1700 if SOAK else 600)
    upload = {"file_name": "heavy.pdf", "content_base64": base64.b64encode(pdf).decode()}
    ingest = _post(server, "/components/memory/actions/aingest_file", upload, server.write)
    figures = await _under_attack(server, f"ingest of a {len(pdf) // 1000} KB, 40-page PDF", ingest)
    assert figures.status == 200, figures.body
    assert figures.body["docMetadata"]["pages"] == 40
    assert figures.quantile(0.99) < P99


async def test_a_template_render_that_counts_the_words_of_a_megabyte_forty_times(server: Server) -> None:
    variables = {"n": 40, "text": "a " * 500_000}
    render = _post(server, "/components/prompt/actions/arender", {"variables": variables}, server.write)
    figures = await _under_attack(server, "template render counting a megabyte's words 40 times", render)
    assert figures.status == 200, figures.body
    assert figures.quantile(0.99) < P99


async def test_a_catastrophic_rule_pattern_and_an_invalid_one(server: Server) -> None:
    params = {"params": {"rules": [{"user": "(a+)+$", "reply": "matched"}, *RULES]}}
    status, body = await _post(server, "/components/llm/actions/aset_llm", params, server.write)
    assert status == 200, body
    try:
        turn = _post(server, "/chat", {"message": "a" * 25 + "b"}, server.write)
        figures = await _under_attack(server, "chat turn against the rule (a+)+$", turn)
        assert figures.status == 200, figures.body
        assert figures.quantile(0.99) < P99
        invalid = {"params": {"rules": [{"user": "(", "reply": "x"}]}}
        status, body = await _post(server, "/components/llm/actions/aset_llm", invalid, server.write)
        assert status == 422, body
        assert "rules[0].user: (: missing ): (; fix: write it in RE2 syntax" in body.decode()
    finally:
        status, body = await _post(
            server, "/components/llm/actions/aset_llm", {"params": {"rules": RULES}}, server.write
        )
        assert status == 200, body


async def test_a_playground_draft_of_twenty_thousand_messages(server: Server) -> None:
    """R15 attack: the playground's `aplay` with a long edited conversation (user and assistant turns)."""
    messages: list[dict[str, str]] = []
    for i in range(10_000):
        messages += [{"role": "user", "content": f"question {i}"}, {"role": "assistant", "content": f"answer {i}"}]
    messages.append({"role": "user", "content": "and now?"})
    play = _post(server, "/components/llm/actions/aplay", {"messages": messages}, server.write)
    figures = await _under_attack(server, f"playground draft of {len(messages):,} messages", play)
    assert figures.status == 200, figures.body
    assert figures.quantile(0.99) < P99
