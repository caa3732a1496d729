"""The LLM component: the exact provider request (dry run), one real call, and run-time reconfiguration."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from tfrobotserver.robot.base import Robot
from tfrobotserver.robot.factory.brain.llm import LLMComponent

from .....tfrobotserver.conftest import act, refused


async def test_dry_run_is_the_request_the_turn_sends(api: httpx.AsyncClient) -> None:
    turn = await api.post("/api/robots/demo/chat", json={"message": "weather in Paris and Tokyo?"})
    conversation = turn.json()["conversationId"]
    dry = await act(api, "llm", "adry_run", {"message": "and tomorrow?", "conversation_id": conversation})
    assert (dry["provider"], dry["model"]) == ("scripted", "scripted-1")
    messages = dry["request"]["messages"]
    assert messages[0] == {"role": "system", "content": "You are TFRobot demo. Answer the user in English."}
    # the turn's trace is expanded around its user message; the TFL chart (an image) follows as user content
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "tool", "assistant", "console",
                                             "user", "assistant", "user"]  # fmt: skip
    assert messages[-1]["content"] == "and tomorrow?"
    assert [t["name"] for t in dry["request"]["tools"]] == ["weather", "chart"]
    fresh = await act(api, "llm", "adry_run", {"message": "hi"})
    assert [m["role"] for m in fresh["request"]["messages"]] == ["system", "user"]


async def test_one_real_call_is_not_stored(api: httpx.AsyncClient) -> None:
    reply = await act(api, "llm", "acall", {"message": "what about tomorrow?"})
    assert reply["message"]["content"] == "Tomorrow looks the same."
    assert (await act(api, "conversations", "aget_conversations"))["items"] == []


async def test_a_robot_without_an_agent_refuses_both_the_dry_run_and_the_call(
    serve: Callable[[list[Robot] | None], httpx.AsyncClient],
) -> None:
    """Regression: the call answered 500 where the dry run answered 422."""
    async with serve([Robot("demo", {"llm": LLMComponent()})]) as api:
        for action in ("adry_run", "acall"):
            body = await refused(api, "llm", action, {"message": "hi"})
            assert body["errors"][0]["path"] == "robot", action
            assert "has no agent" in body["errors"][0]["message"], action


async def test_reconfigure_validated_recorded_persisted(
    serve: Callable[[list[Robot] | None], httpx.AsyncClient],
) -> None:
    async with serve(None) as api:
        assert (
            "unknown LLM provider 'nope'"
            in (await refused(api, "llm", "aset_llm", {"provider": "nope"}))["errors"][0]["message"]
        )
        key = await refused(api, "llm", "aset_llm", {"params": {"api_key": "sk-123"}})
        assert key["errors"][0]["path"] == "params.api_key"
        changed = await act(api, "llm", "aset_llm", {"params": {"fallback": "Echo: {user}"}})
        demo_rules = {"rules": "tfrobot.brain.demo:RULES"}
        assert changed == {"changed": ["params"], "config": {"provider": "scripted", "model": None,
                                                            "params": {"fallback": "Echo: {user}"},
                                                            "params_from": demo_rules}}  # fmt: skip
        assert (await act(api, "llm", "acall", {"message": "ping"}))["message"]["content"] == "Echo: ping"
        await act(api, "llm", "aset_llm", {"provider": "openai", "model": "gpt-4o", "params": {"temperature": 0.2}})
        dry = await act(api, "llm", "adry_run", {"message": "hello"})
        assert (dry["provider"], dry["model"], dry["request"]["model"]) == ("openai", "gpt-4o", "gpt-4o")
        assert dry["request"]["temperature"] == 0.2
        assert dry["request"]["messages"][0]["role"] in {"system", "developer"}
        log = await act(api, "llm", "aget_config_changes", {"page_size": 3})
        assert log["total"] == 5  # a new provider drops the file's params_from (the scripted rules)
        assert [(c["field"], c["oldValue"], c["newValue"], c["changedBy"]) for c in log["items"]] == [
            ("params", {"fallback": "Echo: {user}"}, {"temperature": 0.2}, "local"),
            ("model", None, "gpt-4o", "local"),
            ("params_from", demo_rules, {}, "local"),
        ]
        older = await act(api, "llm", "aget_config_changes", {"page": 2, "page_size": 3})
        assert [(c["field"], c["oldValue"]) for c in older["items"]] == [("provider", "scripted"), ("params", {})]
    async with serve(None) as restarted:  # a new app on the same database: the change survived
        config = {c["name"]: c["config"] for c in (await restarted.get("/api/robots/demo/components")).json()}
        assert config["llm"] == {
            "provider": "openai",
            "model": "gpt-4o",
            "params": {"temperature": 0.2},
            "params_from": {},
        }
        dry = await act(restarted, "llm", "adry_run", {"message": "hello"})
        assert dry["request"]["model"] == "gpt-4o"
