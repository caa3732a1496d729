"""The agent assembled from a robot's components; a failing LLM over JSON and SSE: typed, never a hang."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tfrobotserver.actions.errors import ActionInputError
from tfrobotserver.app.factory import create_app
from tfrobotserver.app.settings import ServerSettings
from tfrobotserver.robot.agent import build_brain, check_tools, system_prompt
from tfrobotserver.robot.base import AgentSpec, Robot
from tfrobotserver.robot.demo import build_demo_robot
from tfrobotserver.robot.factory.brain.llm import LLMComponent
from tfrobotserver.robot.factory.prompt import PromptComponent


def test_agent_parts_come_from_the_components() -> None:
    robot = build_demo_robot()
    assert system_prompt(robot) == "You are TFRobot demo. Answer the user in English."
    with pytest.raises(RuntimeError, match="before the server started it"):
        build_brain(robot)  # the conversations store opens at start-up
    with pytest.raises(ValueError, match=r"unknown tools \['x'\]"):
        check_tools(["weather", "x"])
    bare = Robot("bare", {"prompt": PromptComponent()})
    with pytest.raises(ActionInputError, match="has no agent"):
        system_prompt(bare)
    with pytest.raises(ValueError, match="the agent's llm component 'llm' is not one of its components"):
        Robot("half", {"prompt": PromptComponent()}, agent=AgentSpec())
    mistyped = Robot("odd", {"llm": PromptComponent(), "conversations": LLMComponent()}, agent=AgentSpec(prompt=None))
    with pytest.raises(TypeError, match="component 'llm' is a PromptComponent, not a LLMComponent"):
        build_brain(mistyped)


async def test_a_failing_provider_is_an_error_not_a_hang(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    app = create_app(ServerSettings(data_dir=tmp_path), robots=[build_demo_robot()])
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
        params = {"base_url": "http://127.0.0.1:9/v1", "max_retries": 0, "timeout": 5}
        set_llm = {"provider": "openai", "model": "gpt-4o", "params": params}
        assert (await client.post("/api/robots/demo/components/llm/actions/aset_llm", json=set_llm)).status_code == 200
        plain = await client.post("/api/robots/demo/chat", json={"message": "hi"})
        assert plain.status_code == 502
        assert (plain.json()["error"], plain.json()["kind"]) == ("provider_error", "connection")
        streamed = await client.post(
            "/api/robots/demo/chat", json={"message": "hi"}, headers={"Accept": "text/event-stream"}
        )
        assert streamed.status_code == 502  # it failed before the first event: a plain HTTP error
        error = streamed.json()
        assert (error["kind"], error["provider"], error["status"]) == ("connection", "openai", 502)
        assert error["fix"].startswith("check the network and the LLM's base_url")
        call = await client.post("/api/robots/demo/components/llm/actions/acall", json={"message": "hi"})
        assert call.status_code == 200
        assert call.json()["message"] is None
        assert call.json()["error"].startswith("ProviderConnectionError: openai: cannot reach")
        conversations = await client.post("/api/robots/demo/components/conversations/actions/aget_conversations")
        assert len(conversations.json()["items"]) == 2  # failed turns are stored with their (empty) trace
    await app.state.runtime.aclose()
