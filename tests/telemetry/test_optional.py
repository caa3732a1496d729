"""The `otel` extra is optional: without OpenTelemetry the framework imports and runs a turn; a server
without the extra (FastAPI itself brings `opentelemetry-api`) runs turns untraced, and `--otel` says
which extra it needs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

BLOCK = """
import sys

class Missing:
    '''The modules named in BLOCKED are not installed.'''
    def find_spec(self, name, path=None, target=None):
        if any(name == top or name.startswith(top + ".") for top in BLOCKED):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Missing())
"""

CORE = """
BLOCKED = ["opentelemetry"]
{block}
import asyncio
import os
os.environ["OTEL_PYTHON_TRACER_PROVIDER"] = "sdk_tracer_provider"  # so the hooks look for the extra
from tfrobot.brain.demo import demo_chain
from tfrobot.schema.message import TextMessage
from tfrobot.telemetry import tracing

answer = asyncio.run(demo_chain().arun(TextMessage(content="weather in Paris and Tokyo, chart it")))
assert "chart" in answer.content, answer.content
assert tracing() is None
assert not [name for name in sys.modules if name.startswith("opentelemetry")]
print("ok")
"""

SERVER = """
BLOCKED = ["opentelemetry.sdk", "opentelemetry.exporter", "opentelemetry.instrumentation", "opentelemetry.semconv"]
{block}
import asyncio
from fastapi import FastAPI
from tfrobot.brain.demo import demo_chain
from tfrobot.schema.message import TextMessage
from tfrobot.telemetry import tracing
from tfrobotserver.app.telemetry import enable_tracing

assert "opentelemetry.trace" in sys.modules  # FastAPI's own telemetry imports the API
answer = asyncio.run(demo_chain().arun(TextMessage(content="weather in Paris and Tokyo, chart it")))
assert "chart" in answer.content, answer.content
assert tracing() is None
assert enable_tracing(FastAPI()) is False
try:
    enable_tracing(FastAPI(), True)
except ImportError as exc:
    assert "pip install 'tfrobot[otel]'" in str(exc), exc
else:
    raise AssertionError("--otel without the extra must say what to install")
print("ok")
"""


@pytest.mark.parametrize("script", [CORE, SERVER], ids=["framework", "server"])
def test_without_the_extra_turns_run_untraced(script: str) -> None:
    env = {name: value for name, value in os.environ.items() if not name.startswith(("OTEL_", "TFROBOT_OTEL"))}
    done = subprocess.run(
        [sys.executable, "-c", script.format(block=BLOCK)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "ok"
