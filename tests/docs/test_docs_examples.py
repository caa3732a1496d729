"""Every Python example in `docs/*.md` runs and prints what it says it prints (as the README's do).

A page whose examples need a harness (recorded traffic, a served robot) has its own test beside this one,
`test_<page>.py` or `test_<page>_doc.py`, and runs there only: each example runs in one docs test."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
HERE = Path(__file__).resolve().parent
OWN_TEST = {
    page.stem
    for page in DOCS.glob("*.md")
    if {f"test_{page.stem}.py", f"test_{page.stem}_doc.py"} & {t.name for t in HERE.glob("test_*.py")}
}
BLOCKS = [
    pytest.param(code, id=f"{page.stem}-{i}")
    for page in sorted(DOCS.glob("*.md"))
    if page.stem not in OWN_TEST
    for i, code in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S))
]


def test_pages_with_their_own_test_are_left_to_it() -> None:
    assert {"providers", "robots", "telemetry"} <= OWN_TEST


@pytest.mark.parametrize("code", BLOCKS)
def test_docs_example_runs(code: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs", "exec"), {"__name__": "docs"})
    printed = out.getvalue().splitlines()
    for expected in re.findall(r"# prints: (.*)$", code, flags=re.M):
        assert expected in printed
