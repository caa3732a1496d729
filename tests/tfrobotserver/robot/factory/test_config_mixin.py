"""Config changes record who made them (the token's name) and need the write scope."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from pydantic import SecretStr, ValidationError

from tfrobotserver.actions.injected import Principal
from tfrobotserver.app.factory import create_app
from tfrobotserver.app.settings import ServerSettings, TokenConfig
from tfrobotserver.robot.demo import build_demo_robot
from tfrobotserver.robot.factory.brain.llm import LLMComponent
from tfrobotserver.robot.factory.brain.memory.memory_component import MemoryComponent
from tfrobotserver.robot.factory.prompt import PromptComponent

READER = "reader-secret-0123456789"
EDITOR = "editor-secret-0123456789"


async def test_change_log_names_the_caller_and_readers_cannot_change(tmp_path: Path) -> None:
    tokens = [
        TokenConfig(name="reader", scopes=["read"], secret=SecretStr(READER)),
        TokenConfig(name="ada", scopes=["read", "write"], secret=SecretStr(EDITOR)),
    ]
    app = create_app(ServerSettings(data_dir=tmp_path, tokens=tokens), robots=[build_demo_robot()])
    base = "/api/robots/demo/components/prompt/actions"
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as client:
        reader = {"Authorization": f"Bearer {READER}"}
        editor = {"Authorization": f"Bearer {EDITOR}"}
        denied = await client.post(f"{base}/aset_template", json={"template": "x"}, headers=reader)
        assert denied.status_code == 403
        chat = await client.post("/api/robots/demo/chat", json={"message": "hi"}, headers=reader)
        assert chat.status_code == 403
        ok = await client.post(f"{base}/aset_template", json={"template": "Hello {{ who }}"}, headers=editor)
        assert ok.json()["changed"] == ["template"]
        log = (await client.post(f"{base}/aget_config_changes", json={}, headers=reader)).json()
        assert [(c["field"], c["changedBy"], c["newValue"]) for c in log["items"]] == [
            ("template", "ada", "Hello {{ who }}")
        ]
    await app.state.runtime.aclose()


async def test_a_change_goes_live_only_when_its_transaction_commits(tmp_path: Path) -> None:
    app = create_app(ServerSettings(data_dir=tmp_path), robots=[build_demo_robot()])
    runtime = app.state.runtime
    await runtime.ensure_started()
    prompt = runtime.robots["demo"].components["prompt"]
    before = prompt.template

    async def change_then_fail() -> None:
        async with runtime.sessions.begin() as session:
            update = await prompt._change_config(session, Principal("t"), {"template": "Rolled back"})
            assert update.config["template"] == "Rolled back"
            assert prompt.template == before  # not live before the commit
            raise RuntimeError("abort")

    with pytest.raises(RuntimeError, match="abort"):
        await change_then_fail()
    assert prompt.template == before
    async with runtime.sessions.begin() as session:
        await prompt._change_config(session, Principal("t"), {"template": "Kept"})
    assert prompt.template == "Kept"
    async with runtime.sessions() as session:
        assert (await prompt.aget_config_changes(session)).total == 1
    await runtime.aclose()


def test_a_configuration_is_checked_however_it_arrives() -> None:
    """Regression: the template and file-type checks ran only inside their config actions, so a robot file
    (or a saved configuration) with a template that does not compile was accepted and failed every turn."""
    with pytest.raises(ValidationError, match="template syntax error on line 1"):
        PromptComponent(template="{% if %}")
    with pytest.raises(ValidationError, match=r"cannot ingest \['docx'\]; readable types: md, pdf, txt"):
        MemoryComponent(file_types={"docx": "Word"})
    with pytest.raises(ValidationError, match="keys are not configuration"):
        LLMComponent(params={"api_key": "sk-x"})


async def test_a_saved_configuration_says_it_overrides_the_file_and_can_be_reverted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Regression: a configuration saved through the console overrode the robot file at every start, silently."""

    def start() -> tuple[FastAPI, httpx.AsyncClient]:
        app = create_app(ServerSettings(data_dir=tmp_path), robots=[build_demo_robot()])
        return app, httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1")

    base = "/api/robots/demo/components/prompt/actions"
    app, client = start()
    async with client:
        fresh = (await client.post(f"{base}/aget_config_provenance", json={})).json()
        assert (fresh["saved"], fresh["differs"], fresh["savedTs"]) == (False, False, None)
        assert fresh["summary"].startswith("the robot file's configuration is in effect")
        await client.post(f"{base}/aset_template", json={"template": "Be brief."})
    await app.state.runtime.aclose()

    app, client = start()
    async with client:
        found = (await client.post(f"{base}/aget_config_provenance", json={})).json()
        assert any("demo/prompt: the configuration saved on" in r.message for r in caplog.records)
        assert (found["saved"], found["differs"], found["savedBy"]) == (True, True, "local")
        assert found["summary"].endswith("by local, differs from the file in template")
        template = next(f for f in found["fields"] if f["field"] == "template")
        assert template == {
            "field": "template",
            "fileValue": "You are {{ robot }}. Answer {{ user }} in {{ language }}.",
            "savedValue": "Be brief.",
            "differs": True,
        }
        reverted = (await client.post(f"{base}/arevert_config", json={})).json()
        assert reverted["changed"] == ["template"]
        log = (await client.post(f"{base}/aget_config_changes", json={})).json()["items"]
        assert (log[0]["oldValue"], log[0]["newValue"]) == ("Be brief.", template["fileValue"])
        after = (await client.post(f"{base}/aget_config_provenance", json={})).json()
        assert (after["saved"], after["differs"]) == (False, False)
    await app.state.runtime.aclose()

    app, client = start()
    async with client:
        text = (await client.post(f"{base}/arender", json={})).json()["text"]
        assert text == "You are TFRobot demo. Answer the user in English."  # the file rules after a restart
    await app.state.runtime.aclose()
