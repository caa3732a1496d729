"""Robots from YAML/JSON configuration, and `--config DIR` serving the robots of a folder."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from tfrobotserver.app.factory import create_app
from tfrobotserver.app.settings import load_settings
from tfrobotserver.robot.config import build_robot, load_robot, load_robot_config
from tfrobotserver.robot.factory.brain.llm import LLMComponent

SUPPORT = """\
name: support
description: Answers from the handbook
llm: {provider: scripted, params: {fallback: "Support here: {user}"}}
prompt:
  template: "You are {{ robot }}, polite and brief."
  defaults: {robot: Support}
tools: [weather]
documents: {collection: handbook, seed_docs: 3}
graph: {nodes: [{iri: "ex:a", label: A, cls: Thing}], edges: []}
"""


def test_yaml_builds_every_component(tmp_path: Path) -> None:
    (tmp_path / "support.yaml").write_text(SUPPORT, encoding="utf-8")
    robot = load_robot(tmp_path / "support.yaml")
    assert (robot.name, robot.description) == ("support", "Answers from the handbook")
    assert list(robot.components) == ["llm", "conversations", "tools", "prompt", "memory", "graph"]
    assert robot.agent is not None
    assert robot.agent.tools == "tools"
    assert [t.name for t in robot.components["tools"].catalog.tools()] == ["weather"]
    llm = robot.components["llm"]
    assert isinstance(llm, LLMComponent)
    assert llm.llm().provider == "scripted"
    assert robot.components["memory"].model_dump()["collection"] == "handbook"
    assert robot.components["graph"].model_dump()["collection"] == "support"


def test_json_and_minimal_configs(tmp_path: Path) -> None:
    path = tmp_path / "mini.json"
    path.write_text(json.dumps({"name": "mini"}), encoding="utf-8")
    robot = load_robot(path)
    assert list(robot.components) == ["llm", "conversations"]
    assert robot.agent is not None
    assert robot.agent.prompt is None


def test_configuration_mistakes_name_the_file_and_the_fix(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nllm: {provider: scripted}\ntool: [weather]\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.yaml: .*tool.*Extra inputs"):
        load_robot_config(bad)
    bad.write_text("name: [unclosed\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.yaml"):
        load_robot_config(bad)
    teleport = _write(tmp_path, "t.yaml", "name: t\ntools: [weather, teleport]\n")
    with pytest.raises(ValueError, match=r"t\.yaml: tools\[1\] \(teleport\): unknown built-in tool 'teleport'"):
        load_robot(teleport)
    with pytest.raises(ValueError, match="cannot build the 'nope' LLM"):
        build_robot(load_robot_config(_write(tmp_path, "n.yaml", "name: n\nllm: {provider: nope}\n")))
    with pytest.raises(ValueError, match=r"(?s)s\.yaml.*name.*should match pattern"):
        load_robot_config(_write(tmp_path, "s.yaml", "name: 'has space'\n"))


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


async def test_serve_config_dir_loads_the_robots_of_the_folder(tmp_path: Path) -> None:
    folder = tmp_path / "robots"
    folder.mkdir()
    _write(folder, "support.yaml", SUPPORT)
    _write(folder, "mini.json", json.dumps({"name": "mini"}))
    _write(folder, "server.toml", 'data_dir = "data"\n')
    settings = load_settings(folder)
    assert [p.name for p in settings.robot_configs] == ["mini.json", "support.yaml"]
    assert settings.robots == []  # the folder's robots replace the default demo robot
    app = create_app(settings)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as client:
        assert [r["name"] for r in (await client.get("/api/robots")).json()] == ["mini", "support"]
        reply = await client.post("/api/robots/support/chat", json={"message": "my order?"})
        assert reply.json()["message"]["content"] == "Support here: my order?"
        docs = await client.post("/api/robots/support/components/memory/actions/aget_docs", json={})
        assert docs.json()["total"] == 3
    await app.state.runtime.aclose()
    assert (folder / "data" / "server.sqlite3").is_file()
    (folder / "server.toml").unlink()
    assert len(load_settings(folder).robot_configs) == 2  # server.toml is optional beside robot files


def test_a_scripted_rule_with_a_bad_pattern_is_one_line_with_its_path(tmp_path: Path) -> None:
    """Regression (issue 13): the error read "1 validation error for LLMComponent / Value error, params: …
    rules.2.user: Value error, '(unclosed' is not …  [type=value_error, input_value=…]" over three lines."""
    bot = tmp_path / "bot.yaml"
    rules = "      - {user: a}\n      - {user: b}\n      - {user: '(unclosed', reply: x}\n"
    bot.write_text(f"name: bot\nllm:\n  provider: scripted\n  params:\n    rules:\n{rules}", encoding="utf-8")
    with pytest.raises(ValueError, match=r"rules\[2\]\.user") as caught:
        load_robot(bot)
    message = str(caught.value)
    assert message.startswith(
        f"{bot}: llm: params: cannot build the 'scripted' LLM: rules[2].user: (unclosed: missing ): (unclosed; fix: "
    )
    assert "\n" not in message
