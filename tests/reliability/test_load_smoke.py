"""A short variant of the soak load test (`make soak` runs 200 clients x 60 s x 3): a real `tfrobot serve`
with two worker processes on PostgreSQL, 20 clients for 3 s from a second process on loopback, zero errors."""

from __future__ import annotations

import os

import pytest

from tests.reliability.load import run_load


async def test_load_smoke(pg_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    if os.environ.get("TFROBOT_SKIP_PG") == "1":
        pytest.skip("PostgreSQL skipped on request")
    assert await run_load(clients=20, seconds=3, runs=1, warmup=1, workers=2) == 0
    out = capsys.readouterr().out
    assert "0 errors" in out
    with capsys.disabled():
        print("\n" + out.strip())
