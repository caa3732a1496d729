"""A robot whose tools have names TFL cannot write (`my-tool`, `drive.weather`, `3d_view`, `天气`) chats.

Regression (issue 13, A): the turn answered 500, because the TFL interpreter built for every turn refused
the tool names. Function calling takes them as they are; TFL names them through the documented mapping
(`tfrobot.drive.tfl_registry.tfl_name`) or leaves them out with a warning in the robot's readiness."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from tfrobotserver.app.factory import create_app
from tfrobotserver.app.settings import load_settings

ROBOT = """name: odd
llm:
  provider: scripted
  params:
    rules:
      - user: odd
        reply: "Calling them."
        tool_calls:
          - {name: my-tool, arguments: {text: hi}}
          - {name: 天气, arguments: {city: 北京}}
      - after: "tool:*"
        reply: "Now in TFL."
        tfl_scripts: ['print(my_tool(text="tfl"), drive_weather(city="Paris"), _3d_view(thing="cube"))']
      - after: console
        reply: "done: {results}"
tools:
  - tests.tfrobotserver.app.odd_names:*
"""


@pytest.fixture
async def odd(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    folder = tmp_path / "robots"
    folder.mkdir()
    (folder / "odd.yaml").write_text(ROBOT, encoding="utf-8")
    settings = load_settings(folder)
    settings.data_dir = tmp_path / "data"
    app = create_app(settings)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as client:
        await app.state.runtime.ensure_started()
        try:
            yield client
        finally:
            await app.state.runtime.aclose()


async def test_tools_with_names_tfl_cannot_write_chat_by_function_calls_and_tfl(odd: httpx.AsyncClient) -> None:
    response = await odd.post("/api/robots/odd/chat", json={"message": "odd names"})
    assert response.status_code == 200, response.text
    content = response.json()["message"]["content"]
    assert "my-tool saw hi" in content
    assert "北京: 晴" in content
    assert "my-tool saw tfl Paris: sunny 3d of cube" in content


async def test_a_tool_tfl_cannot_name_is_a_warning_in_readiness(odd: httpx.AsyncClient) -> None:
    (robot,) = (await odd.get("/api/robots")).json()
    assert robot["chat"]["ready"] is True
    (problem,) = robot["chat"]["problems"]
    assert problem.startswith("tools (天气): left out of TFL scripts")
    assert "function calls still reach it" in problem
