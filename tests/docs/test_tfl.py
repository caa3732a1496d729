"""docs/tfl.md's example prints exactly what its comments say, and its limit table is the defaults.

The page has this test of its own (the generic docs test leaves it here): a TFL example's comments promise
the whole output, line for line, not only the `# prints:` lines."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tfrobot.tfl import TFLLimits

DOC = Path(__file__).resolve().parents[2] / "docs" / "tfl.md"
TEXT = DOC.read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", TEXT, flags=re.S)


def test_the_page_has_its_example() -> None:
    assert len(BLOCKS) == 1


@pytest.mark.parametrize("source", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_example_runs_as_documented(source: str, capsys: pytest.CaptureFixture[str]) -> None:
    exec(compile(source, str(DOC), "exec"), {"__name__": "tfl_doc"})  # the test runs the doc, not TFL
    printed = capsys.readouterr().out.splitlines()
    promised = [line.split("# ", 1)[1] for line in source.splitlines() if line.startswith("print(") and "# " in line]
    promised += [line[2:] for line in source.splitlines() if line.startswith("# ")]
    assert printed == promised


def test_limit_table_matches_the_defaults() -> None:
    rows = re.findall(r"^\| `(\w+)` \| ([\d ]+)", TEXT, re.M)
    assert len(rows) == len(TFLLimits.model_fields)
    defaults = TFLLimits()
    for name, value in rows:
        assert getattr(defaults, name) == int(value.replace(" ", "")), name
