"""Two processes, each with its own Brain and store, on one PostgreSQL database, serving the same
conversation at once: no message lost or duplicated, and each process's turns in its own order."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

from tests.conftest import pg_execute, run_sync
from tfrobot.brain.memory import SQLMessageStore

ROOT = Path(__file__).parents[2]
TURNS = 60 if os.environ.get("RELIABILITY_SOAK") == "1" else 12


async def test_two_processes_one_conversation(pg_url: str) -> None:
    run_sync(pg_execute(pg_url, "TRUNCATE messages, conversations, documents RESTART IDENTITY"))
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.reliability.turns", pg_url, "shared", str(TURNS), name],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("a", "b")
    ]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))

    store = SQLMessageStore(pg_url)
    try:
        stored = [m.msg_id for m in await store.recall("shared")]
    finally:
        await store.aclose()
    assert len(stored) == 2 * 2 * TURNS
    assert not [k for k, n in Counter(stored).items() if n > 1]
    for accepted in results:
        positions = [stored.index(i) for i in accepted]
        assert positions == sorted(positions)
    print(f"\ntwo processes: {2 * TURNS} turns, {len(stored)} messages checked, 0 lost, 0 duplicated")
