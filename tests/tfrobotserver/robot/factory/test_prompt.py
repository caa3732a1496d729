"""The prompt component: sandboxed rendering with errors as results, variables, and a recorded template change."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from tfrobotserver.robot.base import Robot

from ...conftest import act, refused


async def test_render_show_variables_and_errors_as_results(api: httpx.AsyncClient) -> None:
    assert await act(api, "prompt", "arender") == {
        "ok": True, "text": "You are TFRobot demo. Answer the user in English.", "error": None, "line": None,
        "variables": ["language", "robot", "user"],
    }  # fmt: skip
    assert (await act(api, "prompt", "arender", {"variables": {"language": "French"}}))["text"].endswith("in French.")
    assert await act(api, "prompt", "aget_variables") == {
        "template": "You are {{ robot }}. Answer {{ user }} in {{ language }}.",
        "variables": ["language", "robot", "user"],
        "defaults": {"robot": "TFRobot demo", "user": "the user", "language": "English"},
    }
    await act(api, "prompt", "aset_template", {"template": "Hi {{ name }} {{ robot.__class__.__mro__ }}"})
    missing = await act(api, "prompt", "arender")
    assert (missing["ok"], missing["text"]) == (False, None)
    assert "'name' is undefined; the template uses ['name', 'robot']" in missing["error"]
    unsafe = await act(api, "prompt", "arender", {"variables": {"name": "Ada"}})
    assert unsafe["ok"] is False
    assert "__class__" in unsafe["error"]
    broken = await refused(api, "prompt", "aset_template", {"template": "line one\n{% if %}"})
    assert "template syntax error on line 2" in broken["errors"][0]["message"]


async def test_template_change_is_recorded_and_survives_a_restart(
    serve: Callable[[list[Robot] | None], httpx.AsyncClient],
) -> None:
    async with serve(None) as api:
        update = await act(api, "prompt", "aset_template", {"template": "Be {{ mood }}.", "defaults": {"mood": "kind"}})
        assert update["changed"] == ["template", "defaults"]
        assert (await act(api, "prompt", "arender"))["text"] == "Be kind."
        same = await act(api, "prompt", "aset_template", {"template": "Be {{ mood }}."})
        assert same["changed"] == []
        log = await act(api, "prompt", "aget_config_changes")
        assert [(c["field"], c["component"]) for c in log["items"]] == [("defaults", "demo/prompt"),
                                                                          ("template", "demo/prompt")]  # fmt: skip
        assert log["items"][1]["oldValue"] == "You are {{ robot }}. Answer {{ user }} in {{ language }}."
        assert log["items"][1]["newValue"] == "Be {{ mood }}."
        assert log["items"][1]["changedTs"] > 1_700_000_000_000
        dry = (await api.post("/api/robots/demo/chat", json={"message": "hi", "dryRun": True})).json()
        assert dry["request"]["messages"][0]["content"] == "Be kind."  # effective without a restart
    async with serve(None) as restarted:
        assert (await act(restarted, "prompt", "arender"))["text"] == "Be kind."
        assert (await act(restarted, "llm", "aget_config_changes"))["total"] == 0
