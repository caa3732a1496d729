"""The README's robot is the `examples/shop/` folder, and served as the README says it chats as it shows.

The README's Python examples are run by `tests/docs/test_docs_examples.py`, with every docs page's."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.robot_servers import ROOT, post, serve_robots

README = Path(__file__).resolve().parents[1] / "README.md"
ROBOT_SECTION = README.read_text(encoding="utf-8").split("## A robot with a real tool\n", 1)[1].split("\n## ", 1)[0]
EXAMPLE = ROOT / "examples" / "shop"


def test_the_readme_robot_file_is_the_example_folders() -> None:
    """What the README shows is the file the next test serves, so a reader who copies it gets that robot."""
    shown = ROBOT_SECTION.split("```yaml\n", 1)[1].split("```", 1)[0]
    assert shown == (EXAMPLE / "shop.yaml").read_text(encoding="utf-8")


def test_the_readme_tools_are_the_example_folders() -> None:
    shown = ROBOT_SECTION.split("```py\n", 1)[1].split("```", 1)[0]
    assert (EXAMPLE / "shop_tools.py").read_text(encoding="utf-8").endswith(shown)


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
        assert reply["message"]["content"] in ROBOT_SECTION
        status, refused = post(f"{url}/api/robots/shop/chat", {"message": "refund A-1"})
        assert "needs the user's confirmation, and this chat cannot ask" in refused["message"]["content"]
    assert "MCP server 'notes': command `python` runs this server's Python" in (folder / "serve.log").read_text()
