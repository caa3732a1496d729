"""The README's TFL example runs and prints what its comments say; the documented limits are the defaults."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tfrobot.tfl import TFLLimits

README = Path(__file__).resolve().parents[2] / "README.md"


def tfl_section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("## TFL")
    return text[start : text.index("\n## ", start + 1)]


def test_readme_example_runs_as_documented(capsys: pytest.CaptureFixture[str]) -> None:
    code = re.search(r"```python\n(.*?)```", tfl_section(), re.S)
    assert code is not None
    source = code.group(1)
    exec(compile(source, str(README), "exec"), {"__name__": "readme_example"})  # the test runs the doc, not TFL
    printed = capsys.readouterr().out.splitlines()
    promised = [line.split("# ", 1)[1] for line in source.splitlines() if line.startswith("print(") and "# " in line]
    promised += [line[2:] for line in source.splitlines() if line.startswith("# ")]
    assert printed == promised


def test_readme_limit_table_matches_the_defaults() -> None:
    rows = re.findall(r"^\| `(\w+)` \| ([\d ]+)", tfl_section(), re.M)
    assert len(rows) == len(TFLLimits.model_fields)
    defaults = TFLLimits()
    for name, value in rows:
        assert getattr(defaults, name) == int(value.replace(" ", "")), name
