"""The LLM component: the exact provider request (dry run), one real call, and run-time reconfiguration."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from tfrobot.brain.chain.llms import providers
from tfrobotserver.robot.base import Robot
from tfrobotserver.robot.factory.brain.llm import PLAY_MESSAGES, LLMComponent
from tfrobotserver.robot.factory.config_mixin import SessionDocumentStore

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


async def test_a_stored_step_s_request_is_re_rendered_as_that_step_sent_it(api: httpx.AsyncClient) -> None:
    """The request view: a stored turn's LLM step rebuilt through the same construct_request_params. The
    second turn's first step is exactly the dry run made just before it; later steps add the turn's own
    thinking and doing; unknown turns and steps are refused with what exists."""
    first = await api.post("/api/robots/demo/chat", json={"message": "weather in Paris and Tokyo?"})
    conversation = first.json()["conversationId"]
    dry = await act(api, "llm", "adry_run", {"message": "and tomorrow?", "conversation_id": conversation})
    await api.post("/api/robots/demo/chat", json={"message": "and tomorrow?", "conversationId": conversation})
    messages = (await act(api, "conversations", "aget_messages", {"conversation_id": conversation}))["items"]
    turns = [m["msgId"] for m in messages if m["role"] == "user"]
    again = await act(api, "llm", "astep_request", {"conversation_id": conversation, "msg_id": turns[1], "step": 0})
    assert again["rendered"] == "re-rendered"
    assert again["request"] == dry["request"]
    steps = [
        await act(api, "llm", "astep_request", {"conversation_id": conversation, "msg_id": turns[0], "step": step})
        for step in (0, 1)
    ]
    assert [m["role"] for m in steps[0]["request"]["messages"]] == ["system", "user"]
    assert [m["role"] for m in steps[1]["request"]["messages"]] == ["system", "user", "assistant", "tool", "tool"]
    unknown = await refused(api, "llm", "astep_request", {"conversation_id": conversation, "msg_id": "nope"}, 404)
    assert unknown["errors"][0]["path"] == "msg_id"
    late = await refused(api, "llm", "astep_request", {"conversation_id": conversation, "msg_id": turns[0], "step": 9})
    assert late["errors"][0]["path"] == "step"
    nul = await refused(api, "llm", "astep_request", {"conversation_id": "a\x00b", "msg_id": turns[0]})
    assert nul["errors"][0]["path"] == "conversation_id"  # a 422, not a database error


async def test_the_request_of_a_failed_first_call_is_its_step_0(
    api: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A turn whose first LLM call failed (no key here) stores that call as step 0, with its model; the request
    view rebuilds what it was sent, and no step after it exists."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    await act(api, "llm", "aset_llm", {"provider": "openai", "model": "gpt-4o"})
    failed = await api.post("/api/robots/demo/chat", json={"message": "weather in Paris?"})
    conversation = failed.json()["conversationId"]
    [turn] = (await act(api, "conversations", "aget_messages", {"conversation_id": conversation}))["items"]
    assert [(r["model"], r["finish_reason"]) for r in turn["trace"]] == [("openai:gpt-4o", "call_failed")]
    ask = {"conversation_id": conversation, "msg_id": turn["msgId"], "step": 0}
    step = await act(api, "llm", "astep_request", ask)
    assert (step["model"], step["request"]["messages"][-1]["content"]) == ("gpt-4o", "weather in Paris?")
    late = await refused(api, "llm", "astep_request", {**ask, "step": 1})
    assert "LLM steps 0 to 0" in late["errors"][0]["message"]


async def test_the_playground_sends_edited_messages_to_two_models_and_stores_nothing(api: httpx.AsyncClient) -> None:
    messages = [
        {"role": "system", "content": "Be terse."},
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": "Sunny."},
        {"role": "user", "content": "what about tomorrow?"},
    ]
    a = await act(api, "llm", "aplay", {"messages": messages})
    assert a["message"]["content"] == "Tomorrow looks the same."
    assert [(m["role"], m["content"]) for m in a["request"]["messages"]] == [
        (m["role"], m["content"]) for m in messages
    ]  # the edited messages, in their order, are what was sent
    echo = await act(api, "llm", "aplay", {"messages": messages[-1:], "params": {"fallback": "Echo: {user}"}})
    assert echo["message"]["content"] == "Tomorrow looks the same."  # the file's rules still apply
    ping = await act(
        api, "llm", "aplay", {"messages": [{"role": "user", "content": "ping"}], "params": {"fallback": "Echo: {user}"}}
    )
    assert ping["message"]["content"] == "Echo: ping"
    b = await act(api, "llm", "aplay", {"messages": messages, "provider": "openai", "model": "gpt-4o"})
    assert (b["provider"], b["model"], b["request"]["model"]) == ("openai", "gpt-4o", "gpt-4o")
    assert b["message"] is None
    assert "key" in b["error"].lower()
    assert (await act(api, "conversations", "aget_conversations"))["items"] == []
    last = await refused(api, "llm", "aplay", {"messages": messages[:-1]})
    assert last["errors"][0]["path"] == "messages"
    endpoint = await refused(api, "llm", "aplay", {"messages": messages, "params": {"base_url": "http://evil"}})
    assert "base_url" in endpoint["errors"][0]["message"]


async def test_a_draft_above_the_playground_s_limit_is_refused_naming_it(api: httpx.AsyncClient) -> None:
    """R15: a draft of any length was built whole on the event loop; one above `PLAY_MESSAGES` is now a 422 that
    names the limit and the fix, before its messages are validated."""
    draft = [{"role": "user", "content": "q"}] * (PLAY_MESSAGES + 1)
    body = await refused(api, "llm", "aplay", {"messages": draft})
    assert body["errors"][0]["path"] == "messages"
    message = body["errors"][0]["message"]
    assert f"{PLAY_MESSAGES + 1:,} messages" in message, message
    assert f"({PLAY_MESSAGES:,})" in message, message
    assert "fix: drop the oldest turns" in message


async def test_a_step_after_tool_results_plays_back_as_the_request_it_sent(api: httpx.AsyncClient) -> None:
    """Regression: the playground's messages had no tool role, so the step that read tool results could not be
    re-sent. The step's messages (its tool calls and results included) sent through the playground build the
    step's request again, tools offered as the step offered them; the last message may be a tool result."""
    first = await api.post("/api/robots/demo/chat", json={"message": "weather in Paris and Tokyo?"})
    conversation = first.json()["conversationId"]
    messages = (await act(api, "conversations", "aget_messages", {"conversation_id": conversation}))["items"]
    turn = next(m["msgId"] for m in messages if m["role"] == "user")
    step = await act(api, "llm", "astep_request", {"conversation_id": conversation, "msg_id": turn, "step": 1})
    assert [m["role"] for m in step["messages"]] == ["system", "user", "assistant", "tool", "tool"]
    assert [c["name"] for c in step["messages"][2]["toolCalls"]] == ["weather", "weather"]
    assert step["messages"][3]["content"] == "Paris: 18C"
    played = await act(api, "llm", "aplay", {"messages": step["messages"]})
    assert played["request"] == step["request"]
    assert played["message"]["content"] == "Drawing a chart."  # what the step answered (then a TFL script)
    unnamed = [*step["messages"][:-1], {"role": "tool", "content": "?"}]
    refused_result = await refused(api, "llm", "aplay", {"messages": unnamed})
    assert refused_result["errors"][0]["path"] == "messages.4.tool_call_id"


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


FILE_PARAMS = {"base_url": "http://127.0.0.1:9/v1", "max_retries": 0, "temperature": 0.5}
"""What a robot file sets: a deployment setting (base_url, max_retries) beside a writable one."""


def _openai_robot() -> list[Robot]:
    return [Robot("demo", {"llm": LLMComponent(provider="openai", model="gpt-4o", params=FILE_PARAMS)})]


async def test_deployment_settings_are_refused_over_http_with_where_to_set_them(
    serve: Callable[[list[Robot] | None], httpx.AsyncClient],
) -> None:
    """Regression: a write token set `base_url` to its own URL, and the server sent its key there."""
    async with serve(_openai_robot()) as api:
        refusal = await refused(api, "llm", "aset_llm", {"params": {"base_url": "https://attacker.example/v1"}})
        error = refusal["errors"][0]
        assert error["path"] == "params.base_url"
        assert "deployment setting" in error["message"]
        assert (
            "the robot file (`llm.params.base_url`) or OPENAI_BASE_URL in the server's environment" in error["message"]
        )
        for params in ({"media_roots": ["/"]}, {"extra_params": {"extra_headers": {"x": "y"}}}, {"timeout": 1e6}):
            assert (await refused(api, "llm", "aset_llm", {"params": params}))["errors"][0]["path"].startswith(
                "params."
            )
        gemini = await refused(api, "llm", "aset_llm", {"params": {"extra_params": {"config": {"http_options": {}}}}})
        assert gemini["errors"][0]["path"] == "params.extra_params.config.http_options"
        changed = await act(api, "llm", "aset_llm", {"params": {"temperature": 0.1, "extra_params": {"top_p": 0.9}}})
        assert changed["config"]["params"] == {**FILE_PARAMS, "temperature": 0.1, "extra_params": {"top_p": 0.9}}
        assert (await act(api, "llm", "aset_llm", {"model": "gpt-4o-mini"}))["config"]["params"]["base_url"] == (
            FILE_PARAMS["base_url"]
        )


async def test_a_provider_change_does_not_carry_the_file_s_endpoint_to_another_provider(
    serve: Callable[[list[Robot] | None], httpx.AsyncClient],
) -> None:
    """Regression: after `provider: anthropic` over HTTP the OpenAI base_url went along, with the Anthropic key."""
    async with serve(_openai_robot()) as api:
        moved = await act(api, "llm", "aset_llm", {"provider": "anthropic", "model": "claude-sonnet-4-6"})
        assert moved["config"]["params"] == {"temperature": 0.5}
        back = await act(api, "llm", "aset_llm", {"provider": "openai", "model": "gpt-4o"})
        assert back["config"]["params"] == FILE_PARAMS


async def test_a_saved_configuration_with_deployment_settings_has_them_ignored(
    serve: Callable[[list[Robot] | None], httpx.AsyncClient], caplog: pytest.LogCaptureFixture
) -> None:
    """Regression: an endpoint saved over HTTP by an older server (the attack, persisted) came back at start-up."""
    async with serve(_openai_robot()) as api:
        app = api._transport.app  # type: ignore[attr-defined]
        await app.state.runtime.ensure_started()
        component = app.state.runtime.robots["demo"].components["llm"]
        poisoned = LLMComponent(provider="openai", model="gpt-4o", params={**FILE_PARAMS, "base_url": "https://evil/v1",
                                                                           "temperature": 0.3})  # fmt: skip
        async with app.state.runtime.sessions.begin() as session:
            await component._saver().asave(poisoned, SessionDocumentStore(session), component.tfs_path)
    async with serve(_openai_robot()) as restarted:
        config = {c["name"]: c["config"] for c in (await restarted.get("/api/robots/demo/components")).json()}
        assert config["llm"]["params"] == {**FILE_PARAMS, "temperature": 0.3}
    assert "demo/llm: the saved configuration's deployment settings (base_url, max_retries) differ" in caplog.text
    assert "evil" not in caplog.text


async def test_a_rule_pattern_re2_cannot_compile_is_refused_and_nothing_changes(api: httpx.AsyncClient) -> None:
    """Regression: `aset_llm` saved an invalid pattern, and every later turn was a 500."""
    body = await refused(api, "llm", "aset_llm", {"params": {"rules": [{"user": "(", "reply": "x"}]}})
    assert body["errors"][0]["path"] == "params"
    assert body["errors"][0]["message"].startswith(
        "cannot build the 'scripted' LLM: rules[0].user: (: missing ): (; fix: "
    )
    turn = await api.post("/api/robots/demo/chat", json={"message": "weather in Paris and Tokyo?"})
    assert turn.status_code == 200, turn.text
    assert (await act(api, "llm", "aget_config_changes"))["total"] == 0


def test_the_provider_is_one_of_the_registered_ones_in_the_schema() -> None:
    """A console shows the provider as a select of the registered providers (still optional)."""
    provider = LLMComponent.tfs_bound_actions()["aset_llm"].params_schema["properties"]["provider"]
    branches = {b.get("type"): b for b in provider["anyOf"]}
    enum = branches["string"]["enum"]
    shipped = {name for name, cls in providers().items() if cls.__module__.startswith("tfrobot.")}
    # the registry as the schema was made: tests may register providers of their own after that
    assert enum == sorted(enum)
    assert shipped <= set(enum) <= set(providers())
    assert {"scripted", "openai"} <= set(branches["string"]["enum"])
    assert branches["null"] == {"type": "null"}
