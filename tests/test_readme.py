"""Every Python example in the README runs as printed (in a fresh interpreter, with a private data dir)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.DOTALL)


def test_the_readme_has_examples() -> None:
    assert len(EXAMPLES) >= 2


@pytest.mark.parametrize("source", EXAMPLES, ids=[f"example-{n}" for n in range(len(EXAMPLES))])
def test_example_runs(source: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "TFROBOT_MEMORY_URL"}
    env["XDG_DATA_HOME"] = str(tmp_path)
    done = subprocess.run([sys.executable, "-c", source], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
