"""The agent assembled from a robot's components; a failing LLM over JSON and SSE: typed, never a hang."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tfrobotserver.actions.errors import ActionInputError
from tfrobotserver.app.factory import create_app
from tfrobotserver.app.settings import ServerSettings, load_settings
from tfrobotserver.robot.agent import build_brain, system_prompt
from tfrobotserver.robot.base import AgentSpec, Robot
from tfrobotserver.robot.config import DEMO_CONFIG, LLMConfig, build_robot, load_robot_config
from tfrobotserver.robot.demo import build_demo_robot
from tfrobotserver.robot.factory.brain.llm import LLMComponent
from tfrobotserver.robot.factory.prompt import PromptComponent


def test_agent_parts_come_from_the_components() -> None:
    robot = build_demo_robot()
    assert system_prompt(robot) == "You are TFRobot demo. Answer the user in English."
    with pytest.raises(RuntimeError, match="before the server started it"):
        build_brain(robot)  # the conversations store opens at start-up
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
    params = {"base_url": "http://127.0.0.1:9/v1", "max_retries": 0, "timeout": 5}  # deployment settings: the file's
    config = load_robot_config(DEMO_CONFIG)
    robot = build_robot(config.model_copy(update={"llm": LLMConfig(provider="openai", model="gpt-4o", params=params)}))
    app = create_app(ServerSettings(data_dir=tmp_path), robots=[robot])
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as client:
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
        conversations = await client.post(
            "/api/robots/demo/components/conversations/actions/aget_conversations", json={}
        )
        assert len(conversations.json()["items"]) == 2  # failed turns are stored with their (empty) trace
    await app.state.runtime.aclose()


def test_the_agent_assembly_does_not_load_the_demo() -> None:
    """The seam: assembling agents and serving robots imports nothing demo-specific (the demo is a robot file)."""
    code = (
        "import sys, tfrobotserver.robot.agent, tfrobotserver.robot.factory.brain.llm, tfrobotserver.app.factory\n"
        "print('tfrobot.brain.demo' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


async def test_a_robot_file_chats_with_its_own_python_tool(tmp_path: Path) -> None:
    """Regression: a robot file could name only the demo tools (`unknown tools [...]`)."""
    robot = tmp_path / "robots" / "shop.yaml"
    robot.parent.mkdir()
    robot.write_text(
        "name: shop\n"
        "llm:\n  provider: scripted\n  params:\n    rules:\n"
        "      - {user: order, tool_calls: [{name: lookup_order, arguments: {order_id: A-1}}]}\n"
        '      - {after: "tool:lookup_order", reply: "Order {results}"}\n'
        "tools: [tests.tfrobotserver.robot.tools.shop:lookup_order]\n",
        encoding="utf-8",
    )
    settings = load_settings(robot.parent)
    settings.data_dir = tmp_path / "data"
    app = create_app(settings)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as client:
        reply = await client.post("/api/robots/shop/chat", json={"message": "my order?"})
        assert reply.json()["message"]["content"] == "Order A-1: 2 books, shipped"
    await app.state.runtime.aclose()
