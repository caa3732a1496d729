"""Every Python example of docs/robots.md runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "robots.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_robots_doc_example_runs(code: str) -> None:
    exec(compile(code, str(DOC), "exec"), {"__name__": "robots_doc"})
