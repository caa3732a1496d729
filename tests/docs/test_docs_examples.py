"""Every Python example of the README and of `docs/*.md` runs, once, and prints what it says it prints.

A page whose examples need a harness (recorded traffic, exact output) has its own test beside this one,
`test_<page>.py` or `test_<page>_doc.py`, and its examples run there only. Blocks fenced ```` ```py ````
(excerpts, not programs) are not run by anyone; `tests/test_readme.py` serves the README's robot folder."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
OWN_TEST = {
    page.stem
    for page in PAGES
    if {f"test_{page.stem}.py", f"test_{page.stem}_doc.py"} & {t.name for t in HERE.glob("test_*.py")}
}
BLOCKS = [
    pytest.param(page, code, id=f"{page.stem}-{i}")
    for page in PAGES
    if page.stem not in OWN_TEST
    for i, code in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S))
]


def test_pages_with_their_own_test_are_left_to_it() -> None:
    assert {"providers", "telemetry", "tfl"} == OWN_TEST


def test_the_readme_and_the_topic_pages_have_examples() -> None:
    pages = {page.stem for page in PAGES if any(block.values[0] == page for block in BLOCKS)}
    assert pages >= {"README", "messages", "agent-loop", "memory", "robots"}


@pytest.mark.parametrize(("page", "code"), BLOCKS)
def test_example_runs(page: Path, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Examples that use default locations (the memory's SQLite file) get a fresh data dir, never the user's.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("TFROBOT_MEMORY_URL", raising=False)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(page), "exec"), {"__name__": "docs"})
    printed = out.getvalue().splitlines()
    for expected in re.findall(r"# prints: (.*)$", code, flags=re.M):
        assert expected in printed, (expected, printed)
