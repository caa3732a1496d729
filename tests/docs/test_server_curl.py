"""The curl examples of docs/server.md, docs/components.md and the README's API section run against the real
app and succeed, and the robot files those pages and docs/robots.md show are ones the server takes."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient

from tfrobotserver.app.factory import create_app
from tfrobotserver.app.settings import ServerSettings, load_settings
from tfrobotserver.cli import LOCAL_TOKEN_FILE
from tfrobotserver.robot.demo import build_demo_robot
from tfrobotserver.robot.tools import MCPTools

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SECRET = "docs-local-secret-0123456789"
"""What `$TOKEN` stands for: the examples run against a server in local mode, as `make run` starts it."""


def page(name: str) -> str:
    """A docs page by its name; `README` is the repository's README."""
    path = ROOT / "README.md" if name == "README" else DOCS / f"{name}.md"
    return path.read_text(encoding="utf-8")


def section(name: str, title: str) -> str:
    return page(name).split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def curl_commands(text: str) -> list[list[str]]:
    """The commands of the text's first bash block that runs curl."""
    block = next(b for b in text.split("```bash")[1:] if "curl" in b.split("```", 1)[0])
    block = block.split("```", 1)[0]
    joined = re.sub(r"\\\n\s*", " ", block)
    return [shlex.split(line, comments=True) for line in joined.splitlines() if line.strip().startswith("curl")]


README_API = section("README", "Every component is an API")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(ServerSettings(data_dir=tmp_path), robots=[build_demo_robot()], local_secret=SECRET)
    with TestClient(app, base_url="http://localhost:8000") as c:
        yield c


def test_the_pages_have_curl_examples() -> None:
    assert len(curl_commands(page("server"))) >= 4
    assert len(curl_commands(page("components"))) >= 4
    assert len(curl_commands(README_API)) >= 2
    assert f"TOKEN=$(cat ~/.local/share/tfrobot/{LOCAL_TOKEN_FILE})" in page("server")


@pytest.mark.parametrize(
    "argv", curl_commands(page("server")) + curl_commands(page("components")) + curl_commands(README_API)
)
def test_curl_example(client: TestClient, argv: list[str]) -> None:
    method, url, headers, body = "GET", "", {}, None
    args = iter(argv[1:])
    for arg in args:
        if arg == "-X":
            method = next(args)
        elif arg == "-H":
            name, _, value = next(args).partition(":")
            headers[name.strip().lower()] = value.strip().replace("$TOKEN", SECRET)
        elif arg == "-d":
            body = next(args)
            method = "POST" if method == "GET" else method
        elif not arg.startswith("-"):
            url = arg
    assert url.startswith("localhost:8000/"), url
    if method == "POST":  # anything else is a 415: what keeps other sites' pages from posting to the server
        assert headers.get("content-type") == "application/json", argv
    response = client.request(method, url.removeprefix("localhost:8000"), headers=headers, content=body)
    assert response.status_code == 200, response.text


def test_the_components_robot_file_serves(tmp_path: Path) -> None:
    yaml_text = page("components").split("```yaml\n", 1)[1].split("```", 1)[0]
    folder = tmp_path / "robots"
    folder.mkdir()
    (folder / "support.yaml").write_text(yaml_text, encoding="utf-8")
    settings = load_settings(folder)
    settings.data_dir = tmp_path / "data"
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        assert [r["name"] for r in client.get("/api/robots").json()] == ["support"]
        reply = client.post("/api/robots/support/chat", json={"message": "refund?"}).json()
        assert reply["message"]["content"] == "Support here: refund?"
        nodes = client.post("/api/robots/support/components/graph/actions/aget_nodes", json={}).json()
        assert [n["iri"] for n in nodes["items"]] == ["ex:faq"]


def test_the_robots_http_mcp_entry_is_a_valid_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/robots.md's streamable-HTTP entry is one a robot file takes (the README's stdio robot is served
    in tests/test_readme.py; HTTP servers chat end to end in tests/tfrobotserver/robot/tools/)."""
    block = section("robots", "Tools: Python functions and MCP servers").split("```yaml\n")[1].split("```", 1)[0]
    (entry,) = yaml.safe_load(block)
    monkeypatch.setenv("WEB_TOKEN", "web-secret")
    parsed = MCPTools.model_validate(entry)
    assert (parsed.url, parsed.resolved_headers()) == (
        "http://127.0.0.1:8765/mcp",
        {"Authorization": "Bearer web-secret"},
    )
