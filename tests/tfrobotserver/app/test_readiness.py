"""`/api/robots` says whether each robot can chat: an MCP server that is not up is one of the reasons."""

from __future__ import annotations

from pathlib import Path

import httpx

from tfrobotserver.app.factory import create_app
from tfrobotserver.app.settings import load_settings

ROBOT = """name: shop
llm: {provider: scripted}
tools:
  - weather
  - {mcp: ghost, command: /nonexistent/server, startup_timeout: 5, optional: true}
"""


async def test_an_optional_mcp_server_that_did_not_start_is_listed_without_stopping_the_chat(tmp_path: Path) -> None:
    """Regression: the robot's readiness checked only its LLM, so a failed MCP server went unsaid."""
    folder = tmp_path / "robots"
    folder.mkdir()
    (folder / "shop.yaml").write_text(ROBOT, encoding="utf-8")
    settings = load_settings(folder)
    settings.data_dir = tmp_path / "data"
    app = create_app(settings)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as client:
        await app.state.runtime.ensure_started()
        try:
            (robot,) = (await client.get("/api/robots")).json()
            assert robot["chat"]["ready"] is True
            (problem,) = robot["chat"]["problems"]
            assert problem.startswith("tools (ghost): failed: ")
            assert "No such file or directory" in problem
            assert problem.endswith("(optional: the robot chats without its tools)")
        finally:
            await app.state.runtime.aclose()
