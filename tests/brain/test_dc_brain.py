"""The planning brain: a plan is validated before it runs; a rejected plan goes back to the LLM."""

from __future__ import annotations

from tfrobot.brain import DCBrain, DCChains
from tfrobot.brain.chain.llms import ScriptedChat, ScriptRule
from tfrobot.brain.demo import weather
from tfrobot.brain.memory import SQLMessageStore
from tfrobot.drive import Drive
from tfrobot.drive.tfl_registry import DriveToolRegistry
from tfrobot.schema.message import AssistantTextMessage, BaseMessage, ConsoleResult, TextMessage
from tfrobot.tfl import TFLInterpreter

RULES = [
    ScriptRule(user="plan", reply='Plan:\n```tfl\nprint(weathr(city="Paris"))\n```'),
    ScriptRule(after="console", results="Paris: 18C", reply="Done: {results}"),
    ScriptRule(after="console", results="rejected", tfl_scripts=['print(weather(city="Paris"))']),
]


def _brain(store: SQLMessageStore) -> DCBrain:
    drive = Drive([weather])
    chain = DCChains(ScriptedChat(rules=RULES), drive, TFLInterpreter(DriveToolRegistry(drive)), stream=False)
    return DCBrain(chain, store)


async def test_a_bad_plan_is_rejected_before_running_then_repaired(store_url: str) -> None:
    store = SQLMessageStore(store_url)
    try:
        user = TextMessage(content="plan the weather check")
        answer = await _brain(store).arun(user)
        assert answer.content.startswith("Done: The plan was rejected before it ran")
        assert answer.content.endswith("; Paris: 18C")
        assert user.conversation_id is not None
        stored = (await store.recall(user.conversation_id))[0]
    finally:
        await store.aclose()
    assert isinstance(stored, TextMessage)
    records = stored.intermediate_trace.ordered()
    assert [(type(r), r.role) for r in records] == [
        (AssistantTextMessage, "assistant"),
        (BaseMessage, "console"),
        (AssistantTextMessage, "assistant"),
        (BaseMessage, "console"),
    ]
    rejected, ran = records[1].console_reses, records[3].console_reses
    assert rejected is not None
    assert ran is not None
    assert isinstance(rejected[0], ConsoleResult)
    assert isinstance(ran[0], ConsoleResult)
    assert "rejected before it ran" in rejected[0].result
    assert "weathr" in rejected[0].result
    assert rejected[0].trace_meta == rejected[0].trace_meta | {"ok": False, "stage": "plan_validate"}
    assert ran[0].result.strip() == "Paris: 18C"
    assert records[0].additional_kwargs["__trace_meta"]["source"] == "thinking"
    assert records[1].additional_kwargs["__trace_meta"]["source"] == "plan_validate"


def test_plan_validate_without_running() -> None:
    calls: list[str] = []

    def spy(city: str) -> str:
        calls.append(city)
        return city

    chain = DCChains(ScriptedChat(rules=RULES), interpreter=TFLInterpreter([spy]))
    assert chain.plan_validate(['spy(city="a")']) is None
    report = chain.plan_validate(['spy(city="a")\nspy(town="b")'])
    assert report is not None
    assert "town" in report.result
    assert "kind=" not in report.result  # the rendered error (headline, line, caret), not the model's repr
    assert 'spy(town="b")' in report.result
    assert "^" in report.result
    assert calls == []


def test_by_default_plans_may_call_the_drives_tools() -> None:
    """Regression: without an interpreter the chain's own tools were unknown to TFL: every plan that called
    one was rejected."""
    chain = DCChains(ScriptedChat(rules=RULES), Drive([weather]))
    assert chain.plan_validate(['print(weather(city="Paris"))']) is None
    report = chain.plan_validate(['print(teleport(city="Paris"))'])
    assert report is not None
    assert "teleport" in report.result


async def test_plan_returns_the_validated_script_without_running_it(store_url: str) -> None:
    calls: list[str] = []

    def weather(city: str) -> str:
        calls.append(city)
        return city

    drive = Drive([weather])
    chain = DCChains(ScriptedChat(rules=RULES), drive, TFLInterpreter(DriveToolRegistry(drive)), stream=False)
    store = SQLMessageStore(store_url)
    try:
        scripts, attempts = await DCBrain(chain, store).aplan(TextMessage(content="plan the weather check"))
        assert scripts == ['print(weather(city="Paris"))']
        assert [m.role for m in attempts] == ["assistant", "console", "assistant"]
        rejection = attempts[1].console_reses
        assert rejection is not None
        assert isinstance(rejection[0], ConsoleResult)
        assert "weathr" in rejection[0].result
        assert calls == []
        assert (await store.list_conversations()).items == []  # planning stores nothing
    finally:
        await store.aclose()
