"""docs/telemetry.md's Python example runs as printed, in a fresh interpreter (it sets the process's global
tracer provider, which a process sets once), and prints the span tree the page shows after it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "telemetry.md"
EXAMPLE = re.compile(r"```python\n(.*?)```\n\nprints\n\n```\n(.*?)```", flags=re.S)


def test_the_telemetry_example_prints_the_span_tree_it_shows() -> None:
    (example, shown), *others = EXAMPLE.findall(DOC.read_text(encoding="utf-8"))
    assert not others
    env = {name: value for name, value in os.environ.items() if not name.startswith("OTEL_")}
    done = subprocess.run(
        [sys.executable, "-c", example], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout == shown
