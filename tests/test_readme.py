"""Every Python example in the README runs as printed (in a fresh interpreter, with a private data dir)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.robot_servers import ROOT, post, serve_robots

README = Path(__file__).resolve().parents[1] / "README.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.DOTALL)


def test_the_readme_has_examples() -> None:
    assert len(EXAMPLES) >= 2


@pytest.mark.parametrize("source", EXAMPLES, ids=[f"example-{n}" for n in range(len(EXAMPLES))])
def test_example_runs(source: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "TFROBOT_MEMORY_URL"}
    env["XDG_DATA_HOME"] = str(tmp_path)
    done = subprocess.run([sys.executable, "-c", source], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


TOOLS_SECTION = README.read_text(encoding="utf-8").split("## Tools: Python functions and MCP servers\n", 1)[1]
EXAMPLE = ROOT / "examples" / "shop"


def test_the_readme_robot_file_is_the_example_folders() -> None:
    """What the README shows is the file the next test serves, so a reader who copies it gets that robot."""
    shown = TOOLS_SECTION.split("```yaml\n", 1)[1].split("```", 1)[0]
    assert shown == (EXAMPLE / "shop.yaml").read_text(encoding="utf-8")


def test_the_readme_robot_folder_chats_through_tfrobot_serve(tmp_path: Path) -> None:
    """Regression (issue 13, D): the README's robot file worked only from a checkout's root (its tools were
    the tests' modules, found through PYTHONPATH) with `python` on PATH being the server's Python. Here the
    folder is copied elsewhere and served as the README says: the module next to the robot file, the stdio
    MCP server started with `command: python` in that folder."""
    folder = tmp_path / "shop"
    shutil.copytree(EXAMPLE, folder)
    with serve_robots(folder, {}, {}) as url:
        status, reply = post(f"{url}/api/robots/shop/chat", {"message": "my order?"})
        assert status == 200, reply
        assert reply["message"]["content"] == "Done: A-1: 2 books, shipped; Returns are free within 30 days."
        status, refused = post(f"{url}/api/robots/shop/chat", {"message": "refund A-1"})
        assert "needs the user's confirmation, and this chat cannot ask" in refused["message"]["content"]
    assert "MCP server 'notes': command `python` runs this server's Python" in (folder / "serve.log").read_text()
