"""Every bench script runs to the end in smoke mode: a bench that breaks fails `make test`.

Each `bench/*.py` is run as `make bench` runs it — a fresh interpreter, the script's folder first on the
path — with `--smoke`, which keeps every step of the script at toy sizes. Only the exit status is
judged (the scripts check their own harness: restored types, equal payloads, equal endpoint bodies);
no timing is asserted. The list of scripts is the folder's: a new bench is covered without editing this
file. PostgreSQL is found as the other tests find it (`TFROBOT_TEST_PG_URL`, or the scripts' default
127.0.0.1:5432/test); `TFROBOT_SKIP_PG=1` reaches the scripts, which then skip their PostgreSQL part.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
SCRIPTS = sorted(BENCH.glob("*.py"))
TIMEOUT_S = 180
"""Per script; a smoke run takes seconds (most of it importing the peers), so this only stops a hang."""


def test_the_bench_folder_has_scripts() -> None:
    assert len(SCRIPTS) >= 8, [p.name for p in SCRIPTS]


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_smoke_run_succeeds(script: Path) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONWARNINGS": "ignore"}
    if os.environ.get("TFROBOT_TEST_PG_URL"):
        env["TFROBOT_BENCH_PG_URL"] = os.environ["TFROBOT_TEST_PG_URL"]
    done = subprocess.run(
        [sys.executable, str(script), "--smoke"],
        cwd=BENCH.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )
    assert done.returncode == 0, (
        f"{script.name} --smoke exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
