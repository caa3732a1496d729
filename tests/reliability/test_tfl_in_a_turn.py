"""TFL scripts an LLM writes that loop, allocate or print without end, run inside a real Brain turn: the
limits stop each one quickly, the console error reaches the trace, and the turn still ends with an answer.

TFL has no function definitions and no while loops (the grammar refuses them), so recursion and unbounded
loops cannot be written; tests/tfl covers each limit on the interpreter alone. This checks the limits in
the agent loop, where the scripts come from the model."""

from __future__ import annotations

import time

import pytest

from tfrobot.brain.brain import Brain
from tfrobot.brain.chain.llms import ScriptRule
from tfrobot.brain.demo import demo_chain
from tfrobot.brain.memory import SQLMessageStore
from tfrobot.schema.message import TextMessage

BOMBS = {
    "loops": "n = 0\nfor a in range(100000):\n    for b in range(100000):\n        n = n + 1\nprint(n)",
    "allocation": 's = "x"\nfor i in range(64):\n    s = s + s\nprint(len(s))',
    "print": 'for i in range(100000):\n    print("spam spam spam spam spam spam spam spam spam spam")',
    "list": "xs = [1]\nfor i in range(64):\n    xs = xs + xs\nprint(len(xs))",
}


@pytest.mark.parametrize("name", sorted(BOMBS))
async def test_a_runaway_script_is_stopped_and_the_turn_answers(tmp_path: object, name: str) -> None:
    rules = [
        ScriptRule(user="go", reply="Running it.", tfl_scripts=[BOMBS[name]]),
        ScriptRule(after="console", reply="Done: {results}"),
    ]
    store = SQLMessageStore(f"sqlite+aiosqlite:///{tmp_path}/m.db")
    await store.migrate()
    try:
        brain = Brain(demo_chain(rules=rules), store)
        start = time.perf_counter()
        answer = await brain.arun(TextMessage(content="go", conversation_id="t"))
        assert time.perf_counter() - start < 20
        assert answer.content.startswith("Done:")
        stored = (await store.recall("t"))[0]
        console = [r for r in stored.intermediate_trace.ordered() if r.role == "console"]
        assert len(console) == 1
        text = console[0].model_dump_json()
        assert "limit" in text.lower(), text[:500]
        assert len(text) < 200_000
    finally:
        await store.aclose()
