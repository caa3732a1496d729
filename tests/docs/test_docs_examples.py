"""Every Python example in `docs/*.md` runs and prints what it says it prints (as the README's do)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
BLOCKS = [
    pytest.param(code, id=f"{page.stem}-{i}")
    for page in sorted(DOCS.glob("*.md"))
    for i, code in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S))
]


@pytest.mark.parametrize("code", BLOCKS)
def test_docs_example_runs(code: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs", "exec"), {"__name__": "docs"})
    printed = out.getvalue().splitlines()
    for expected in re.findall(r"# prints: (.*)$", code, flags=re.M):
        assert expected in printed
