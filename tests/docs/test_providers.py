"""Every Python example in docs/providers.md runs against the recorded real traffic its first line names, and
prints what it says it prints (`# prints: …`, on the line or the next)."""

from __future__ import annotations

import contextlib
import importlib
import io
import re
from pathlib import Path

import pytest

from tests.brain.chain.llms.conftest import HTTP_MODULES, Recorder, handler, recording, replaying
from tfrobot.brain.chain.llms.scripted import ScriptedCall, ScriptedChat, ScriptRule

DOC = Path(__file__).resolve().parents[2] / "docs" / "providers.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY")


def test_the_page_has_an_example_for_each_feature() -> None:
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_example_runs_on_its_recording(code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    name = re.match(r"# recording: (\S+)\n", code)
    assert name, "each example names the recording it runs on, on its first line"
    for key in KEYS:
        monkeypatch.setenv(key, "test-key")
    module = importlib.import_module(HTTP_MODULES.get(name[1].split("/")[0], "httpx"))
    respond = handler(Recorder(), replaying(recording(name[1])), module)
    client = module.Client(transport=module.MockTransport(respond))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(DOC), "exec"), {"__name__": "docs", "http_client": client})
    printed = out.getvalue().splitlines()
    expected = re.findall(r"# prints: (.*)$", code, flags=re.M)
    assert expected
    for line in expected:
        assert line in printed, (line, printed)


def test_the_scripted_rules_are_documented_field_by_field() -> None:
    """Robot files drive the offline provider with `rules:`; every field a rule or a call takes is named on
    the page, or a robot author has only the README's one example to guess from."""
    section = DOC.read_text().partition("## The offline `scripted` provider")[2].partition("\n## ")[0]
    fields = [*ScriptRule.model_fields, *ScriptedCall.model_fields, "rules", "fallback"]
    assert ScriptedChat.model_fields["fallback"].default in section
    assert [name for name in fields if f"`{name}`" not in section] == []
